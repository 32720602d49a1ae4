"""The statements of webhook ingress (queue_core.server.ingress) besides the enqueue itself:
which deliveries' jobs exist already, a replayed body under a new delivery id, and the ledger
event on the first delivery's jobs when one is refused.

Where the ingress ran several statements on one checkout (one implicit transaction), the
function here runs them on one checkout too.
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def existing_dedupe_keys(pool: AsyncConnectionPool, keys: list[str | None]) -> set[str]:
    """Those of ``keys`` a job already holds (a sender's retry of the same delivery)."""
    async with pool.connection() as conn:
        return {row[0] for row in await (await conn.execute(q("control", "existing_dedupe_keys"), {"keys": keys})).fetchall()}


async def first_delivery_of_body(pool: AsyncConnectionPool, params: dict[str, Any]) -> str | None:
    """Claim the body's sha256 for this delivery (and prune the claims older than the window);
    when another delivery id claimed it within the window, that first id, else None.

    ``params``: source, digest, delivery_id, now, window_s.
    """
    async with pool.connection() as conn:
        if await (await conn.execute(q("ingress", "body_claim"), params)).fetchone() is not None:
            await conn.execute(q("ingress", "body_prune"), params)
            return None
        row = await (await conn.execute(q("ingress", "body_replayed"), params)).fetchone()
    return None if row is None else str(row[0])


async def refuse_replay(pool: AsyncConnectionPool, keys: list[str], *, actor: str, detail: str) -> dict[str, uuid.UUID]:
    """The jobs of the first delivery (by dedupe key), each given a ``replay_refused`` ledger
    event (``detail``: JSON text), on one checkout."""
    async with pool.connection() as conn:
        rows = await (await conn.execute(q("ingress", "jobs_by_dedupe_key"), {"keys": keys})).fetchall()
        found: dict[str, uuid.UUID] = {row[0]: row[1] for row in rows}
        for job_id in found.values():
            await conn.execute(q("ingress", "ledger_replay_refused"), {"job_id": job_id, "actor": actor, "detail": detail})
    return found


async def job_reply(pool: AsyncConnectionPool, job_id: uuid.UUID) -> tuple[Any, str | None]:
    """The job's first answer to its webhook caller (None until it gives one) and its status."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("ingress", "job_reply"), {"job_id": job_id})).fetchone()
    assert row is not None  # two scalar subqueries: always one row
    return row[0], row[1]

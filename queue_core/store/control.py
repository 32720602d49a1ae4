"""What the control endpoints read and write: pauses, a job's steps, metrics, the migration level."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def job_steps(pool: AsyncConnectionPool, job_id: uuid.UUID) -> list[dict[str, Any]]:
    """The job's step rows, in the order the job reached them."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("control", "job_steps"), {"id": job_id})
        return await cur.fetchall()


async def pause(pool: AsyncConnectionPool, kind: str, name: str, *, actor: str, reason: str | None) -> tuple[Any, ...]:
    """Insert the pause (an existing one is kept); its row, and whether it is new, last."""
    params = {"kind": kind, "name": name, "actor": actor, "reason": reason}
    async with pool.connection() as conn:
        row = await (await conn.execute(q("control", "pause"), params)).fetchone()
    assert row is not None  # either inserted or already there
    return tuple(row)


async def resume(pool: AsyncConnectionPool, kind: str, name: str, *, actor: str) -> tuple[Any, ...] | None:
    """Delete the pause; its row, or None when there was none."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("control", "resume"), {"kind": kind, "name": name, "actor": actor})).fetchone()
    return tuple(row) if row else None


async def pauses(pool: AsyncConnectionPool) -> list[tuple[Any, ...]]:
    """Every current pause's row."""
    async with pool.connection() as conn:
        return [tuple(r) for r in await (await conn.execute(q("control", "list_pauses"))).fetchall()]


async def migration_level(pool: AsyncConnectionPool, *, timeout_s: float) -> int:
    """The newest migration applied (0 for none); a checkout waits at most ``timeout_s``."""
    async with pool.connection(timeout=timeout_s) as conn:
        row = await (await conn.execute(q("control", "migration_level"))).fetchone()
    return int(row[0]) if row else 0


async def metrics(pool: AsyncConnectionPool) -> dict[str, list[tuple[Any, ...]]]:
    """The rows behind /metrics, five read-only queries in one checkout: ``jobs`` (automation,
    status, n), ``events`` (automation, claims, reclaims, retries, budget waits), ``blocked``
    (provider, n), ``pauses`` (kind, name), ``replays`` (automation, n)."""
    names = {"jobs": ("control", "metrics_jobs"), "events": ("control", "metrics_events"),
             "blocked": ("control", "metrics_budgets_blocked"), "pauses": ("control", "metrics_pauses"),
             "replays": ("ingress", "metrics_replays_refused")}
    out: dict[str, list[tuple[Any, ...]]] = {}
    async with pool.connection() as conn:
        for key, (group, name) in names.items():
            out[key] = [tuple(r) for r in await (await conn.execute(q(group, name), {})).fetchall()]
    return out

"""Go-live gate verdicts (``gate_verdicts``) and worker-level ledger events."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def record(pool: AsyncConnectionPool, automation: str, code_version: str, *, ready: bool,
                 reasons: Sequence[str], recording: str | None, summary: dict[str, Any] | None) -> int:
    """Insert a verdict for ``automation`` at ``code_version``; return its id."""
    params = {
        "automation": automation, "code_version": code_version, "ready": ready,
        "reasons": json.dumps(list(reasons)), "recording": recording, "summary": json.dumps(summary or {}),
    }
    async with pool.connection() as conn:
        row = await (await conn.execute(q("queue", "record_verdict"), params)).fetchone()
    assert row is not None
    return int(row[0])


async def passing(pool: AsyncConnectionPool, automation: str, code_version: str) -> dict[str, Any] | None:
    """The newest passing verdict for ``automation`` at ``code_version``, or None."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("queue", "passing_verdict"), {"automation": automation, "code_version": code_version})
        return await cur.fetchone()


async def worker_event(pool: AsyncConnectionPool, kind: str, actor: str, detail: dict[str, Any]) -> None:
    """Append a worker-level event to the ledger under the nil job id."""
    async with pool.connection() as conn:
        await conn.execute(q("queue", "worker_event"), {"kind": kind, "actor": actor, "detail": json.dumps(detail)})

"""The statements of a poll: read the cursor; lock, mark seen and advance the poller (fenced);
list the pollers for ``cutover pollers``.

``lock``, ``mark_seen`` and ``advance`` run in the caller's transaction (``ctx.start_new`` is
one transaction with the jobs it enqueues); ``lock`` and ``advance`` are fenced by the polling
job's claim and return False when it is gone (the caller rolls back).
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def read_cursor(pool: AsyncConnectionPool, poller: str) -> Any:
    """The poller's stored cursor (None before its first poll)."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("poller", "read_cursor"), {"poller": poller})).fetchone()
    return None if row is None else row[0]


async def lock(conn: AsyncConnection[Any], params: dict[str, Any]) -> bool:
    """Lock the poller's row (created on its first poll), fenced by the polling job's claim."""
    return await (await conn.execute(q("poller", "lock_poller"), params)).fetchone() is not None


async def mark_seen(conn: AsyncConnection[Any], poller: str, ids: list[str]) -> set[str]:
    """Record ``ids`` as seen by ``poller``; return those it had not seen before."""
    rows = await (await conn.execute(q("poller", "mark_seen"), {"poller": poller, "ids": ids})).fetchall()
    return {r[0] for r in rows}


async def advance(conn: AsyncConnection[Any], params: dict[str, Any]) -> bool:
    """Advance the cursor and counters, prune the seen ids and write the poll's step row (fenced)."""
    return await (await conn.execute(q("poller", "advance_poller"), params)).fetchone() is not None


async def list_pollers(pool: AsyncConnectionPool) -> list[tuple[Any, ...]]:
    """Every poller that has polled: (poller, target, cursor, last_poll_at, items_started, polls, seen)."""
    async with pool.connection() as conn:
        return [tuple(r) for r in await (await conn.execute(q("poller", "list_pollers"))).fetchall()]

"""The worker's hot path: claim, complete, a turn (complete and claim in one statement), and the
heartbeat that renews leases (queries/queue.sql).

Each runs one whole statement on a connection or a cursor the caller holds and returns its rows;
``queue_core.queue.Queue`` builds the parameters and reads the rows. A cursor run again with the
same statement keeps its adapters (loaders made once, not per statement): a worker lane passes
its own. ``full`` picks the completion that also writes traces and deferred step rows and events
(``*_full``) over the slimmer ``*_plain``.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, AsyncCursor

from .._sql import q

# Where a statement runs: a connection the caller holds, or a cursor of one.
Connectable = AsyncConnection[Any] | AsyncCursor[Any]


async def claim(conn: Connectable, params: dict[str, Any]) -> list[Any]:
    """The claimed jobs' rows (ClaimedJob's fields, in order)."""
    return await _rows(conn, q("queue", "claim"), params)


async def complete(conn: Connectable, params: dict[str, Any], *, full: bool) -> list[Any]:
    """The ids whose outcome was applied, one per row."""
    return await _rows(conn, q("queue", "complete_full") if full else q("queue", "complete_plain"), params)


async def turn(conn: Connectable, params: dict[str, Any], *, full: bool) -> list[Any]:
    """One row counting the outcomes applied (its first column set), then one per claimed job.

    Prepared at once: a lane runs it every turn, and planning it cost more than executing it.
    """
    sql = q("queue", "turn_full") if full else q("queue", "turn_plain")
    return await _rows(conn, sql, params, prepare=True)


async def plan_turns_once(cur: AsyncCursor[Any]) -> None:
    """Make the prepared turns of a lane's own connection use one generic plan (``lane_generic_plans``)."""
    await cur.execute(q("queue", "lane_generic_plans"))


async def heartbeat(conn: AsyncConnection[Any], params: dict[str, Any]) -> set[Any]:
    """The ids whose lease was extended."""
    cur = await conn.execute(q("queue", "heartbeat"), params)
    return {row[0] for row in await cur.fetchall()}


async def _rows(conn: Connectable, sql: str, params: dict[str, Any], *, prepare: bool | None = None) -> list[Any]:
    cur = conn if isinstance(conn, AsyncCursor) else conn.cursor()
    await cur.execute(sql, params, prepare=prepare)
    return await cur.fetchall()

"""The statements of the tick producer (queue_core._ticker): sync the declared schedules, claim
the due ones, move them on, list them.

``sync_*`` and the producer's ``claim_due``/``advance`` run on the connection of the caller's
transaction: a pass locks its due rows, enqueues their ticks and advances them in one commit.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def db_now(conn: AsyncConnection[Any]) -> datetime:
    """The database's clock (the transaction's now)."""
    row = await (await conn.execute(q("schedule", "db_now"))).fetchone()
    assert row is not None  # SELECT now() returns one row
    now: datetime = row[0]
    return now


async def sync_schedules(conn: AsyncConnection[Any], rows: list[dict[str, Any]]) -> None:
    """Upsert the declared schedules' rows (a changed cron or timezone takes the row's next_tick)."""
    await conn.execute(q("schedule", "sync_schedules"), {"schedules": json.dumps(rows)})


async def drop_undeclared(conn: AsyncConnection[Any], *, automations: list[str], names: list[str]) -> None:
    """Delete the schedules of ``automations`` whose name is not in ``names``."""
    await conn.execute(q("schedule", "drop_undeclared"), {"automations": automations, "names": names})


async def claim_due(conn: AsyncConnection[Any], *, now: datetime | None, automations: list[str],
                    limit: int) -> list[dict[str, Any]]:
    """Set the pass's statement timeout, then lock up to ``limit`` due schedules of ``automations``
    (skipping rows another producer holds); their rows with the database's ``now``."""
    await conn.execute(q("schedule", "producer_timeout"))
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(q("schedule", "claim_due"), {"now": now, "automations": automations, "limit": limit})
    return await cur.fetchall()


async def advance(conn: AsyncConnection[Any], advanced: list[dict[str, Any]], *, worker: str) -> None:
    """Move each schedule of ``advanced`` (name, next_tick, last_tick) on, recording ``worker``."""
    await conn.execute(q("schedule", "advance"), {"rows": json.dumps(advanced), "worker": worker})


async def list_schedules(pool: AsyncConnectionPool) -> list[dict[str, Any]]:
    """Every schedule with its last and next tick and whether it is paused."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("schedule", "list_schedules"))
        return await cur.fetchall()

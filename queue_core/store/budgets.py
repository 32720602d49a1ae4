"""The statements of the provider rate budgets (queue_core.budget): create a scope's window rows,
check out of them, record an answer (and a provider's tightening), count 429s, read paused
providers and the windows' states.

Each is one statement on one checkout of the pool; ``ensure`` writes all of a scope's windows
on the same connection. The arithmetic lives in the database (migration 0009's functions).
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def ensure(pool: AsyncConnectionPool, windows: list[dict[str, Any]]) -> None:
    """Create (or reset to a changed configuration) the row of each window of ``windows``
    (provider, scope_key, window_seconds, limit, burst, algorithm, guard, slots)."""
    async with pool.connection() as conn:
        for params in windows:
            await conn.execute(q("budget", "ensure"), params)


async def checkout(pool: AsyncConnectionPool, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Spend ``params["cost"]`` from every window of the scope or from none: one row per window
    (granted, delay, granted_at, window_seconds, remaining, blocked_for, reason)."""
    async with pool.connection() as conn:
        cur = await conn.execute(q("budget", "checkout"), params)
        names = [d.name for d in cur.description or ()]
        return [dict(zip(names, row)) for row in await cur.fetchall()]


async def answer(pool: AsyncConnectionPool, params: dict[str, Any]) -> None:
    """Move an answered call to its answer's sub-bucket and apply the provider's tightening."""
    async with pool.connection() as conn:
        await conn.execute(q("budget", "answer"), params)


async def count_rate_limited(pool: AsyncConnectionPool, job_id: uuid.UUID, key: str, provider: str) -> int:
    """Count one more 429 for the call ``key`` of ``job_id``; its total (1 when no row came back)."""
    async with pool.connection() as conn:
        cur = await conn.execute(q("budget", "count_rate_limited"), {"job_id": job_id, "key": key, "provider": provider})
        row = await cur.fetchone()
    return int(row[0]) if row else 1


async def paused_providers(pool: AsyncConnectionPool) -> list[tuple[Any, ...]]:
    """(provider, paused_by, reason) of every provider an operator has paused."""
    async with pool.connection() as conn:
        cur = await conn.execute(q("budget", "paused_providers"))
        return [tuple(r) for r in await cur.fetchall()]


async def states(pool: AsyncConnectionPool, provider: str) -> list[tuple[Any, ...]]:
    """The rows of every window of ``provider``'s budgets, refilled to now (read-only)."""
    async with pool.connection() as conn:
        cur = await conn.execute(q("budget", "states"), {"provider": provider})
        return [tuple(r) for r in await cur.fetchall()]

"""The statements of a running job's durable waits: register a wait, read the token secret, test a condition."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def register_wait(pool: AsyncConnectionPool, job_id: uuid.UUID, claim: int, name: str, kind: str,
                        token_hash: str | None, wake_at: datetime | None, on_timeout: str, predicate: str | None,
                        params: Any) -> tuple[Any, ...] | None:
    """Create wait ``name`` unless it exists (it may be resolved already); return its row
    (kind, wake_at, on_timeout, resolved_at, decision, payload), or None when the claim is gone."""
    sql_params = {
        "job_id": job_id, "claim": claim, "name": name, "kind": kind, "token_hash": token_hash,
        "wake_at": wake_at, "on_timeout": on_timeout, "predicate": predicate,
        "params": json.dumps(params) if params is not None else None,
    }
    async with pool.connection() as conn:
        row = await (await conn.execute(q("steps", "register_wait"), sql_params)).fetchone()
    return None if row is None else tuple(row)


async def wait_secret(pool: AsyncConnectionPool) -> str | None:
    """The per-database secret wait tokens are derived with (None before ``cutover migrate``)."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("steps", "wait_secret"))).fetchone()
    return None if row is None else str(row[0])


async def condition_holds(pool: AsyncConnectionPool, predicate: str, params: dict[str, Any]) -> bool:
    """Whether the automation's SQL ``predicate`` (a query it wrote) returns a row now."""
    async with pool.connection() as conn:
        return await (await conn.execute(predicate, params)).fetchone() is not None


async def wake_due(pool: AsyncConnectionPool, *, actor: str, limit: int, now: datetime | None) -> int:
    """Move waiting jobs whose timer or timeout is due back to pending; return how many."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("steps", "wake_due"), {"actor": actor, "limit": limit, "now": now})).fetchone()
    return int(row[0]) if row else 0


async def resolve(pool: AsyncConnectionPool, params: dict[str, Any]) -> bool:
    """Resolve a wait once (waking its job if it waits); True if this call resolved it."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("steps", "resolve_wait"), params)).fetchone()
    return bool(row and row[0])


async def open_event_waits(pool: AsyncConnectionPool, limit: int) -> list[tuple[uuid.UUID, str, str, Any]]:
    """Open ``ctx.wait_for`` waits: (job_id, name, predicate, params), at most ``limit``."""
    async with pool.connection() as conn:
        rows = await (await conn.execute(q("steps", "open_event_waits"), {"limit": limit})).fetchall()
    return [tuple(r) for r in rows]


async def note(pool: AsyncConnectionPool, job_id: uuid.UUID, kind: str, actor: str, detail: str) -> None:
    """Append an event about a job by someone who does not run it (the waker's condition errors);
    ``detail`` is JSON text."""
    async with pool.connection() as conn:
        await conn.execute(q("steps", "append_ledger"), {"job_id": job_id, "kind": kind, "actor": actor, "detail": detail})

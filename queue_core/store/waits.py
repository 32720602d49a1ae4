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

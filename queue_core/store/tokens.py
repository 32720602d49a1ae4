"""The statements of the control API's bearer tokens (queue_core.server.token): create, revoke,
list and look one up by hash, and the audit row each change writes to control_events.

``create`` and ``revoke`` run on the connection of the caller's transaction, which also appends
the audit row: a refused change raises there and rolls back with it.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def create(conn: AsyncConnection[Any], params: dict[str, Any]) -> bool:
    """Insert the token (``params``: name, token_hash, prefix, scopes); False when a live token
    already has that name."""
    return await (await conn.execute(q("control", "token_create"), params)).fetchone() is not None


async def revoke(conn: AsyncConnection[Any], name: str) -> bool:
    """Revoke the live token ``name``; False when there is none."""
    return await (await conn.execute(q("control", "token_revoke"), {"name": name})).fetchone() is not None


async def audit(conn: AsyncConnection[Any], *, actor: str, action: str, target_kind: str, target: str,
                detail: str) -> None:
    """Append a control_events row (``detail``: JSON text) saying who did what to which target."""
    await conn.execute(q("control", "audit_append"), {
        "actor": actor, "action": action, "target_kind": target_kind, "target": target, "detail": detail,
    })


async def list_all(pool: AsyncConnectionPool) -> list[dict[str, Any]]:
    """Every token's name, prefix, scopes and timestamps (never a hash)."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("control", "token_list"))
        return await cur.fetchall()


async def by_hash(pool: AsyncConnectionPool, digest: str) -> tuple[Any, ...] | None:
    """The live token whose hash is ``digest``: (name, scopes, token_hash), recording its
    ``last_used_at``; None for an unknown or revoked one."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("control", "token_authenticate"), {"token_hash": digest})).fetchone()
    return None if row is None else tuple(row)

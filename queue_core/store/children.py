"""The statements of a running parent's children: enqueue one with its step row, link one, check all;
group them by status for ``jobs explain``.

Each write is fenced by the parent's claim (queries/children.sql); the caller turns a refused
fence into LeaseLostError.
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def insert_child(pool: AsyncConnectionPool, params: dict[str, Any], child: str) -> tuple[bool, uuid.UUID | None]:
    """Insert a new child (``child``: its jobs row as JSON) with its link, events and the parent's
    step row, in one statement; return (fenced, the child's id, None when its dedupe key is taken)."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("children", "enqueue_child"), {**params, "child": child})).fetchone()
    assert row is not None  # the statement's final SELECT always returns its one row
    fenced, child_id, _ = row
    return bool(fenced), cast("uuid.UUID | None", child_id)


async def link_child(conn: AsyncConnection[Any], params: dict[str, Any]) -> bool:
    """Link an existing child and write the parent's step row, in the caller's transaction;
    return False when the parent's claim is gone (the caller rolls back)."""
    return await (await conn.execute(q("children", "link_child"), params)).fetchone() is not None


async def children_settled(pool: AsyncConnectionPool, parent_id: uuid.UUID) -> list[tuple[Any, ...]] | None:
    """Every child's row (id, key, automation, status, error, outputs, returned) once all of ``parent_id``'s
    children are finished; None while one is not. One query: check and read together."""
    async with pool.connection() as conn:
        rows = await (await conn.execute(q("children", "children_settled"), {"parent_id": parent_id})).fetchall()
    if rows[0][0]:
        return None
    return [tuple(r[1:]) for r in rows if r[1] is not None]


async def children_of(conn: AsyncConnection[Any], parent_id: uuid.UUID) -> list[tuple[str, int, list[str]]]:
    """A parent's children grouped by status: (status, count, keys), for ``jobs explain`` (it
    reads them on the connection of its explain context)."""
    rows = await (await conn.execute(q("children", "children_of"), {"parent_id": parent_id})).fetchall()
    return [(r[0], int(r[1]), list(r[2])) for r in rows]

"""The statements of the console (queue_core.server.console): its sign-in sessions, a job's parent,
and the dead and failed jobs grouped by error signature."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def create_session(pool: AsyncConnectionPool, *, session_hash: str, token_hash: str, csrf_secret: str,
                         ttl_s: float) -> datetime:
    """Store a session (only hashes and its CSRF secret), purging expired ones; return its expiry."""
    params = {"session_hash": session_hash, "token_hash": token_hash, "csrf_secret": csrf_secret, "ttl_s": ttl_s}
    async with pool.connection() as conn, conn.transaction():
        await conn.execute(q("console", "sessions_purge_expired"))
        row = await (await conn.execute(q("console", "session_create"), params)).fetchone()
    assert row is not None
    return row[0]  # type: ignore[no-any-return]


async def session(pool: AsyncConnectionPool, session_hash: str) -> tuple[str, list[str], str, str] | None:
    """The live session whose hash is ``session_hash`` of a live token: (token name, scopes, CSRF
    secret, session hash); None when unknown, expired or its token revoked."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("console", "session_lookup"), {"session_hash": session_hash})).fetchone()
    return None if row is None else (row[0], list(row[1]), row[2], row[3])


async def delete_session(pool: AsyncConnectionPool, session_hash: str) -> None:
    """Forget the session (sign-out)."""
    async with pool.connection() as conn:
        await conn.execute(q("console", "session_delete"), {"session_hash": session_hash})


async def counts_serial(pool: AsyncConnectionPool) -> dict[str, int]:
    """The number of jobs in each status, counted without parallel workers (a background recount)."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        return {status: n for status, n in await (await conn.execute(q("console", "counts_by_status_serial"))).fetchall()}


async def parent_of(pool: AsyncConnectionPool, job_id: uuid.UUID) -> uuid.UUID | None:
    """The id of the job that started ``job_id`` (None: a top-level job)."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("console", "job_parent"), {"id": job_id})).fetchone()
    return row[0] if row else None


async def failing_groups(pool: AsyncConnectionPool, *, limit: int = 200) -> list[dict[str, Any]]:
    """The dead and failed jobs by (automation, error kind, signature): each group's count, latest
    finish and one example error, largest first."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("console", "failing_groups"), {"limit": limit})
        return await cur.fetchall()


async def failing_group_ids(pool: AsyncConnectionPool, *, automation: str, error_kind: str, signature: str,
                            limit: int) -> list[uuid.UUID]:
    """The ids of one group's jobs (at most ``limit``), oldest first."""
    params = {"automation": automation, "error_kind": error_kind, "signature": signature, "limit": limit}
    async with pool.connection() as conn:
        return [r[0] for r in await (await conn.execute(q("console", "failing_group_ids"), params)).fetchall()]


async def automation_activity(pool: AsyncConnectionPool) -> list[tuple[str, str, int, int]]:
    """(automation, status, jobs created in the last day, of them in the last hour)."""
    async with pool.connection() as conn:
        return [(r[0], r[1], r[2], r[3]) for r in await (await conn.execute(q("console", "automation_activity"))).fetchall()]


async def latest_verdicts(pool: AsyncConnectionPool) -> dict[str, dict[str, Any]]:
    """Each automation's latest gate verdict: code_version, ready, reasons, recording, recorded_at."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("console", "latest_verdicts"))
        return {row["automation"]: row for row in await cur.fetchall()}

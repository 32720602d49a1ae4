"""Reading jobs, their history and their descendants; emptying and vacuuming the jobs tables; a worker's LISTEN."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q
from ..errors import JobNotFoundError


async def fetch(conn: AsyncConnection[Any], job_id: uuid.UUID) -> dict[str, Any]:
    """The job's row as a dict; raise JobNotFoundError."""
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(q("queue", "get_job"), {"id": job_id})
    row = await cur.fetchone()
    if row is None:
        raise JobNotFoundError(job_id)
    return row


async def ledger(pool: AsyncConnectionPool, job_id: uuid.UUID) -> list[dict[str, Any]]:
    """The job's ledger entries in order."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("queue", "job_ledger"), {"id": job_id})
        return await cur.fetchall()


async def counts(pool: AsyncConnectionPool) -> dict[str, int]:
    """The number of jobs in each status."""
    async with pool.connection() as conn:
        cur = await conn.execute(q("queue", "counts_by_status"))
        return {status: n for status, n in await cur.fetchall()}


async def trace(pool: AsyncConnectionPool, job_id: uuid.UUID) -> dict[str, Any] | None:
    """The decision trace recorded for a shadow/dry-run job, if any."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("queue", "job_trace"), {"id": job_id})).fetchone()
    return row[0] if row else None


async def results(pool: AsyncConnectionPool, job_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """Status, attempt, error and decision trace of each job in ``job_ids`` (one query)."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("queue", "job_results"), {"ids": list(job_ids)})
        return {row["id"]: row for row in await cur.fetchall()}


async def tree_results(pool: AsyncConnectionPool, job_ids: Sequence[uuid.UUID]) -> list[dict[str, Any]]:
    """Return ``job_ids`` and all their descendants (``jobs.parent_id``) with status, error, key
    and decision trace.

    One statement. Each row has ``id``, ``parent_id`` (None for a job of ``job_ids``),
    ``automation``, ``status``, ``attempt``, ``claim_count``, ``error_kind``, ``last_error``,
    ``trigger_id``, ``key`` (the child key from ``ctx.enqueue``; None for a root) and ``trace``.
    Rows come in no particular order; a job of ``job_ids`` that does not exist has no row.
    """
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("tree", "tree_results"), {"ids": list(job_ids)})
        return list(await cur.fetchall())


async def clear(pool: AsyncConnectionPool) -> None:
    """Truncate the jobs tables (a throwaway database one process owns)."""
    async with pool.connection() as conn:
        await conn.execute(q("queue", "clear_all"))


async def vacuum(pool: AsyncConnectionPool) -> None:
    """Vacuum the jobs tables, on an autocommit connection (VACUUM runs outside transactions)."""
    async with pool.connection() as conn:
        if not conn.autocommit:
            await conn.set_autocommit(True)
        await conn.execute(q("queue", "vacuum_jobs"))


async def live_leases(pool: AsyncConnectionPool, *, automations: str, modes: str, since_s: float,
                      timeout_s: float) -> int:
    """Jobs of ``automations`` and ``modes`` (array literals) running under a lease that was live
    ``since_s`` ago; a checkout waits at most ``timeout_s``."""
    params = {"automations": automations, "modes": modes, "since_s": since_s}
    async with pool.connection(timeout=timeout_s) as conn:
        row = await (await conn.execute(q("queue", "live_leases"), params)).fetchone()
    return int(row[0]) if row else 0


async def listen(conn: AsyncConnection[Any]) -> None:
    """LISTEN on ``conn`` for new jobs and resolved waits (an autocommit connection kept open)."""
    await conn.execute(q("queue", "listen_jobs"))
    await conn.execute(q("queue", "listen_waits"))


async def insert(conn: AsyncConnection[Any], jobs_json: str, now: Any, actor: str) -> list[Any]:
    """Run the enqueue statement (in the caller's transaction on ``conn``); one row per input
    job, in input order: (ord, id or None, created)."""
    cur = await conn.execute(q("queue", "enqueue_many"), {"jobs": jobs_json, "now": now, "actor": actor})
    return list(await cur.fetchall())


async def ids_by_dedupe_key(conn: AsyncConnection[Any], keys: Sequence[str]) -> dict[str, uuid.UUID]:
    """The ids of the jobs that hold ``keys`` (committed by another enqueue meanwhile)."""
    return dict(await (await conn.execute(q("queue", "ids_by_dedupe_key"), {"keys": list(keys)})).fetchall())


async def notify(conn: AsyncConnection[Any], automation: str) -> None:
    """Wake the workers listening for ``automation``'s jobs (at the transaction's commit)."""
    await conn.execute(q("queue", "notify"), {"automation": automation})


async def analyze(conn: AsyncConnection[Any]) -> None:
    """Refresh the jobs table's statistics (after a bulk enqueue)."""
    await conn.execute(q("queue", "analyze_jobs"))

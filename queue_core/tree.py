"""Read a batch of jobs together with every job descending from them (``jobs.parent_id``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from ._sql import q


async def tree_results(pool: AsyncConnectionPool, job_ids: Sequence[uuid.UUID]) -> list[dict[str, Any]]:
    """Return ``job_ids`` and all their descendants with status, error, key and decision trace.

    One statement. Each row has ``id``, ``parent_id`` (None for a job of ``job_ids``),
    ``automation``, ``status``, ``attempt``, ``claim_count``, ``error_kind``, ``last_error``,
    ``trigger_id``, ``key`` (the child key from ``ctx.enqueue``; None for a root) and ``trace``.
    Rows come in no particular order; a job of ``job_ids`` that does not exist has no row.
    """
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("tree", "tree_results"), {"ids": list(job_ids)})
        return list(await cur.fetchall())

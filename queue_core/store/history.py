"""The run history: every job, newest first, filtered and paged with a keyset (``cutover jobs list``, GET /jobs).

A page is ``limit`` jobs in (created_at, id) descending order; its ``next`` cursor is the id of
its last job, and the next page is the jobs strictly after that job in the same order (a keyset:
the job's (created_at, id)). A keyset page costs the same at the millionth row as at the first (an
index range scan on ``jobs_history`` or, with an automation, ``jobs_history_automation``), where
OFFSET would read and drop every row before it. A cursor naming no job (deleted since) is
JobNotFoundError, never a silently empty page.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q
from ..errors import JobNotFoundError, QueueError
from ..states import ErrorKind, JobStatus, Mode

__all__ = ["MAX_LIMIT", "JobFilter", "Page", "list_jobs"]

MAX_LIMIT = 500
STATUSES = tuple(s.value for s in JobStatus)
MODES = tuple(m.value for m in Mode)
ERROR_KINDS = tuple(k.value for k in ErrorKind)


@dataclass(frozen=True)
class JobFilter:
    """Which jobs a page holds; a field left None (an empty ``statuses``) does not filter."""

    automation: str | None = None
    statuses: Sequence[str] = field(default_factory=tuple)
    mode: str | None = None
    since: datetime | None = None  # created at or after
    until: datetime | None = None  # created before
    error_kind: str | None = None
    error_text: str | None = None  # a substring of the last error, case-insensitive
    concurrency_key: str | None = None
    parent: uuid.UUID | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (("status", None, STATUSES), ("mode", self.mode, MODES),
                                     ("error kind", self.error_kind, ERROR_KINDS)):
            values = self.statuses if name == "status" else ([value] if value is not None else [])
            for v in values:
                if v not in allowed:
                    raise QueueError(f"unknown {name} {v!r} (one of: {', '.join(allowed)})")


@dataclass(frozen=True)
class Page:
    """One page of the history: its jobs, newest first, and the cursor of the next page (None: the last)."""

    jobs: list[dict[str, Any]]
    next: uuid.UUID | None  # the id of the page's last job, when more follow


def _like(text: str) -> str:
    """Escape LIKE's wildcards (and its escape character) so ``text`` matches as it is."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


async def list_jobs(pool: AsyncConnectionPool, where: JobFilter, *, limit: int = 50,
                    after: uuid.UUID | None = None) -> Page:
    """Return one page of jobs, newest first, that ``where`` lets through, after the job ``after``."""
    if not 1 <= limit <= MAX_LIMIT:
        raise QueueError(f"limit {limit}: a page holds 1 to {MAX_LIMIT} jobs")
    params = {
        "automation": where.automation, "statuses": list(where.statuses) or None, "mode": where.mode,
        "since": where.since, "until": where.until, "error_kind": where.error_kind,
        "error_text": _like(where.error_text) if where.error_text else None,
        "concurrency_key": where.concurrency_key, "parent": where.parent,
        "after": after, "limit": limit + 1,
    }
    async with pool.connection() as conn:
        if after is not None and await (await conn.execute(q("history", "job_exists"), {"id": after})).fetchone() is None:
            raise JobNotFoundError(after)
        cur = conn.cursor(row_factory=dict_row)
        # Unprepared: planned with these values each time, so the filters that are off fall away.
        await cur.execute(q("history", "list_jobs"), params, prepare=False)
        rows = await cur.fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    return Page(rows, rows[-1]["id"] if rows and more else None)

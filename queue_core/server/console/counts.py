"""The runs page's counts per status, at most :data:`MAX_AGE_S` old.

Counting a million jobs by status reads the whole table (~350 ms here), which alone would be
most of the runs page's time. So the count is kept per app: the first page view computes it; a
view that finds it older than ``max_age_s`` is served the one it has (the page says as of when) and
starts one recount in the background. The worker's path is untouched: no trigger, no counter table.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from psycopg_pool import AsyncConnectionPool

from ...store import console as store
from ...store.jobs import counts

MAX_AGE_S = 10.0
log = logging.getLogger("queue_core.server.console")


class StatusCounts:
    """Jobs per status, recounted in the background when older than ``max_age_s``."""

    def __init__(self, max_age_s: float = MAX_AGE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_age_s = max_age_s
        self._clock = clock
        self._value: dict[str, int] | None = None
        self._as_of = datetime.now(UTC)
        self._at = 0.0
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    async def get(self, pool: AsyncConnectionPool) -> tuple[dict[str, int], datetime]:
        """The counts and when they were taken."""
        if self._value is None:
            async with self._lock:
                if self._value is None:
                    await self._recount(pool)
        elif self._clock() - self._at > self.max_age_s and self._task is None:
            self._task = asyncio.create_task(self._background(pool))
        assert self._value is not None
        return self._value, self._as_of

    async def _recount(self, pool: AsyncConnectionPool, *, serial: bool = False) -> None:
        began, as_of = self._clock(), datetime.now(UTC)
        self._value = await (store.counts_serial(pool) if serial else counts(pool))
        self._at, self._as_of = began, as_of

    async def _background(self, pool: AsyncConnectionPool) -> None:
        try:
            await self._recount(pool, serial=True)  # one core: the others serve the pages meanwhile
        except Exception as exc:  # the pool closing at shutdown, a lost connection: the next view retries
            log.info("console: recounting jobs by status failed: %s", type(exc).__name__)
        finally:
            self._task = None

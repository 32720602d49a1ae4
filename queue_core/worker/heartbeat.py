"""The heartbeater and the lease guard: every held lease renewed in one statement, and a job
whose lease could not be renewed stopped before another worker may take it.

A worker that loses its database stops claiming at the first heartbeat that fails (each attempt
is bounded to the renew timeout, a quarter of the lease by default), and the lease guard cancels
every job whose lease was not renewed a margin before that lease ends. A heartbeat names each
job by (id, claim_count), and so does every stop it causes: a heartbeat that was sent while claim
1 of a job ran, and answered after claim 1 was completed and the job claimed again, leaves
claim 2 alone.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable

import psycopg

from .._lease import LeaseTiming, next_check, overdue
from ..queue import Queue
from .completer import describe, log_failure
from .executor import Claim, Executor

log = logging.getLogger("cutover.worker")


class Heartbeater:
    """Renews every held lease each ``interval_s``; says whether claiming is safe."""

    def __init__(self, queue: Queue, executor: Executor, held: Callable[[], list[Claim]], *, interval_s: float,
                 lease_s: float, timing: LeaseTiming, stats: dict[str, int]) -> None:
        self.queue = queue
        self.executor = executor
        self._held = held
        self.interval_s = interval_s
        self.lease_s = lease_s
        self.timing = timing
        self._stats = stats
        self.claiming_ok = True

    async def run(self) -> None:
        """Renew each ``interval_s``, each attempt bounded in time, until cancelled.

        A failed attempt stops claiming until one succeeds; the lease guard stops the jobs whose
        leases stay unrenewed. The first failure of a run is logged, and the recovery.
        """
        failures = 0
        while True:
            await asyncio.sleep(self.interval_s)
            held = self._held()
            if not held:
                self.claiming_ok = True  # nothing to renew: the lanes' turns find out if the database answers
                continue
            started = time.monotonic()
            try:
                async with asyncio.timeout(self.timing.renew_timeout_s):
                    kept = await self.queue.heartbeat(held, lease_s=self.lease_s)
            except (psycopg.Error, TimeoutError) as exc:
                failures += 1
                self.claiming_ok = False
                log_failure(failures, "heartbeat failed; not claiming until one succeeds: %s",
                            describe(exc) if isinstance(exc, psycopg.Error)
                            else f"no answer within {self.timing.renew_timeout_s:.2f}s")
                continue
            if failures:
                log.warning("heartbeat succeeded after %d failed; claiming again", failures)
            failures = 0
            self.claiming_ok = True
            self._renewed(held, kept, started)

    def _renewed(self, held: list[Claim], kept: set[uuid.UUID], started: float) -> None:
        renewed = self.executor.renewed
        running = self.executor.inflight
        for job_id, claim in held:
            if job_id in kept:
                entry = running.get(job_id)
                if entry is not None and entry[0].claim_count == claim and job_id in renewed:
                    renewed[job_id] = started
            elif self.executor.stop(job_id, claim):
                self._stats["lost"] += 1
                log.warning("job %s: lease taken over; cancelling it", job_id)


async def guard_leases(executor: Executor, timing: LeaseTiming, lease_s: float, stats: dict[str, int]) -> None:
    """Cancel each running job whose lease was not renewed by ``lease - margin`` after it last
    started: another worker may reclaim the job once the lease ends."""
    horizon = timing.horizon_s
    renewed = executor.renewed
    while True:
        late = overdue(renewed, time.monotonic(), horizon)
        cancelled = [str(job_id) for job_id in late
                     if job_id in executor.inflight and executor.stop(job_id, executor.inflight[job_id][0].claim_count)]
        for job_id in late:
            renewed.pop(job_id, None)
        if cancelled:
            stats["expired"] += len(cancelled)
            log.warning("cancelling %d job(s) whose lease could not be renewed for %.1fs of its %.1fs; their "
                        "outcome is not written, and they are reclaimed once the lease ends: %s",
                        len(cancelled), horizon, lease_s, ", ".join(cancelled[:10]))
        now = time.monotonic()
        await asyncio.sleep(max(0.01, next_check(renewed, now, horizon) - now))

"""The asyncio worker, split the way River splits one: each room does one job.

- ``producer``: one per lane; fetches due jobs in claim turns and dispatches them.
- ``executor``: runs each job in a task of its own and turns its ending into an Outcome (the
  classification is ``queue_core.executor``'s); no SQL.
- ``completer``: the only writer of outcomes, batched with the lane's next claim or inline.
- ``heartbeat``: renews every held lease in one statement; the lease guard stops a job whose
  lease could not be renewed.
- ``notifier``: LISTENs for new jobs and resolved waits; the waker wakes due timers.

:class:`Worker` wires them together (and starts the schedule ticker and the vacuumer).
Correctness never depends on a clean exit: a worker killed with SIGKILL leaves leases that
expire, and its jobs are reclaimed. A graceful stop (SIGTERM) stops claiming, lets in-flight jobs
finish for ``shutdown_grace_s``, and releases the rest without using an attempt.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import random
import time
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from .. import db
from ..context import Clock, Context, system_clock
from ..job import ClaimedJob
from ..queue import Queue, array_literal
from ..registry import Registry
from ..store import jobs
from .completer import RETRY_S, Completer, completer, describe
from .config import WorkerConfig
from .executor import Claim, ContextFactory, Executor
from .heartbeat import Heartbeater, guard_leases
from .notifier import Notifier, Waker
from .producer import Producer

__all__ = ["Worker", "WorkerConfig"]

log = logging.getLogger("cutover.worker")


class Worker:
    """Claims and runs jobs of the automations in ``registry`` until stopped.

    ``run(drain=True)`` returns once no job of its automations (and modes) is due and none is
    running under a live lease, this worker's or another's: it waits for other workers' jobs to
    end, or for their leases to expire and then reclaims them. The harness and the benchmarks use
    it to empty a queue.
    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        registry: Registry,
        config: WorkerConfig | None = None,
        *,
        conninfo: str | None = None,
        listen: bool = True,
        gateway: Any = None,
        clock: Clock = system_clock,
        rng: random.Random | None = None,
        context_factory: ContextFactory | None = None,
        own_pool: AsyncConnectionPool | None = None,
    ) -> None:
        self.config = config or WorkerConfig()
        self.id = self.config.worker_id
        # The worker's own statements (claim, complete, heartbeat, wake) run on a small pool of
        # its own without a per-checkout health check: that check is one more round trip per
        # statement on the hot path. A dead connection fails one statement, which the loops
        # retry, and the pool replaces it. A caller that runs many short-lived workers (the
        # shadow replay: one per batch) passes an open ``own_pool`` that outlives them, so the
        # connections and their prepared statements are kept; the worker does not close it.
        n = max(1, min(self.config.lanes, self.config.concurrency))
        self._timing = self.config.timing
        self._owns_pool = own_pool is None
        self._own = own_pool or db.worker_pool(pool.conninfo, max_size=n + 2, timeout_s=self._timing.renew_timeout_s,
                                               application_name=self.config.application_name)
        self.queue = Queue(self._own, registry=registry)
        self.pool = pool
        self.registry = registry
        self._gateway = gateway
        self._clock = clock
        self.stats = {"claimed": 0, "completed": 0, "lost": 0, "expired": 0, "released": 0, "vacuums": 0}
        self._stopping = asyncio.Event()
        self._recheck = asyncio.Event()
        self._vacuum_due = asyncio.Event()
        self._since_vacuum = 0
        self.executor = Executor(registry, context_factory or self._default_context, rng or random.Random(),
                                 self.stats, self._stopping)
        self.producers = [self._producer(self.config.concurrency // n + (1 if i < self.config.concurrency % n else 0),
                                         pin=self._own.max_size >= n + 1) for i in range(n)]
        self.heartbeater = Heartbeater(self.queue, self.executor, self._held, interval_s=self.config.heartbeat_interval,
                                       lease_s=self.config.lease_s, timing=self._timing, stats=self.stats)
        self.waker = Waker(self.queue, self.id, poll_s=self.config.poll_s, wake=self._wake_all, recheck=self._recheck)
        # Without ``conninfo`` the notifier connects with the pool's own conninfo and arguments;
        # ``listen=False`` (CUTOVER_LISTEN_URL=off, or too few connections) runs no notifier and
        # the producers claim every ``poll_s``.
        self._listen = listen
        listen_at: tuple[Any, Any] = (conninfo, {}) if conninfo else (pool.conninfo, pool.kwargs)
        self.notifier = Notifier(*listen_at, application_name=self.config.application_name,
                                 connect_timeout_s=self._timing.renew_timeout_s, poll_s=self.config.poll_s,
                                 wake=self._wake_all, recheck=self._recheck)

    def _producer(self, capacity: int, *, pin: bool) -> Producer:
        wake = asyncio.Event()
        done = completer(self.config.completer, self.queue, self.id, batch=self.config.complete_batch,
                         stats=self.stats, wake=wake, on_written=self._count_for_vacuum)
        return Producer(capacity, config=self.config, worker=self.id, queue=self.queue, registry=self.registry,
                        own=self._own, executor=self.executor, completer=done, wake=wake, stopping=self._stopping,
                        claiming_ok=lambda: self.heartbeater.claiming_ok, drained=self._drained, pin=pin,
                        checkout_s=self._timing.renew_timeout_s, stats=self.stats)

    def _default_context(self, job: ClaimedJob) -> Context:
        return Context(job, self.pool, worker=self.id, gateway=self._gateway, clock=self._clock,
                       registry=self.registry)

    @property
    def completers(self) -> list[Completer]:
        return [p.completer for p in self.producers]

    def _held(self) -> list[Claim]:
        """Every lease this worker holds: running jobs, and jobs whose outcome is not yet written."""
        held = self.executor.held()
        for c in self.completers:
            held += [(job.id, job.claim_count) for job in c.unwritten.values()]
        return held

    def _wake_all(self) -> None:
        for producer in self.producers:
            producer.wake.set()

    def stop(self) -> None:
        """Ask the worker to stop claiming and shut down gracefully."""
        self._stopping.set()
        self._wake_all()

    async def run(self, *, drain: bool = False) -> None:
        """Run until ``stop()`` (or, with ``drain``, until nothing is due and nothing is running)."""
        if self._owns_pool:
            await self._own.open(wait=True)
        if self.config.freeze_gc:
            _freeze_heap()
        try:
            await self._run(drain)
        finally:
            if self._owns_pool:
                await self._own.close()

    async def _run(self, drain: bool) -> None:
        aux = [asyncio.create_task(self.heartbeater.run(), name="heartbeater"),
               asyncio.create_task(guard_leases(self.executor, self._timing, self.config.lease_s, self.stats),
                                   name="lease-guard")]
        if self.config.vacuum_every > 0:
            aux.append(asyncio.create_task(self._vacuumer(), name="vacuumer"))
        if not drain:  # a draining producer wakes due jobs itself before it calls the queue empty
            aux.append(asyncio.create_task(self.waker.run(), name="waker"))
            if self._listen:
                aux.append(asyncio.create_task(self.notifier.run(), name="notifier"))
            if "live" in self.config.modes:  # schedule ticks are live jobs (queue_core._ticker)
                from .._ticker import run_ticker

                aux.append(asyncio.create_task(run_ticker(self.pool, self.registry, worker=self.id), name="ticker"))
        try:
            await asyncio.gather(*(p.run(drain) for p in self.producers))
            await self.executor.finish(self.config.shutdown_grace_s)
        finally:
            await _cancel_all(aux)
            for c in self.completers:
                await c.flush()

    async def _drained(self, claimed_at: float) -> bool:
        """Whether nothing is left to do after a turn that began at ``claimed_at`` claimed nothing:
        no waiting job became due, no job of this worker's is running or unwritten, and no job of
        its automations is running under another worker's live lease (wait for it: it may end in
        a retry, or its worker may die and its lease expire, and then it is reclaimed here)."""
        if self.executor.inflight or any(c.held for c in self.completers):
            return False
        try:
            if await self.waker.wake_due():
                return False  # a waiting job became due: claim it before calling the queue drained
            if not await self._leased_elsewhere(time.monotonic() - claimed_at):
                return True
        except psycopg.Error as exc:
            log.warning("checking whether the queue is drained failed, retrying: %s", describe(exc))
        await self.producers[0].sleep(min(self.config.poll_s, RETRY_S))
        return False

    async def _leased_elsewhere(self, since_s: float) -> int:
        """Count jobs of this worker's automations and modes running under a lease that was live
        ``since_s`` ago: one that ended since the last claim began may not have been claimable to it."""
        return await jobs.live_leases(self._own, automations=array_literal(tuple(self.registry.names())),
                                      modes=array_literal(tuple(self.config.modes)), since_s=since_s,
                                      timeout_s=self._timing.renew_timeout_s)

    def _count_for_vacuum(self, applied: int) -> None:
        self._since_vacuum += applied
        if self.config.vacuum_every > 0 and self._since_vacuum >= self.config.vacuum_every:
            self._since_vacuum = 0
            self._vacuum_due.set()

    async def _vacuumer(self) -> None:
        """Vacuum the jobs table after every ``vacuum_every`` outcomes, beside the producers."""
        while True:
            await self._vacuum_due.wait()
            self._vacuum_due.clear()
            try:
                await self.queue.vacuum()
                self.stats["vacuums"] += 1
            except psycopg.Error as exc:
                log.warning("vacuuming jobs failed (autovacuum will do it): %s", describe(exc))


_heap_frozen = False


def _freeze_heap() -> None:
    """Freeze the heap the process has built so far, the first time a worker runs (see
    ``WorkerConfig.freeze_gc``). Later workers of the process (the shadow replay runs one per
    batch) freeze nothing more: what they leave behind stays collectable."""
    global _heap_frozen
    if not _heap_frozen:
        _heap_frozen = True
        gc.freeze()


async def _cancel_all(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait for them to end, cancelling again any that is still running.

    A cancel can be lost, in psycopg_pool rather than here: a checkout that waits for a
    connection waits in ``asyncio.wait_for`` (``ACondition.wait_timeout``), and on Python 3.11
    ``wait_for`` returns the result, dropping the cancel, when the connection is handed over as
    the cancel lands (CPython gh-86296, fixed in 3.12 only; psycopg#1345, psycopg#1413). The
    task then goes on to its next wait with the cancel spent: any side task that checks out a
    connection (heartbeater, waker, vacuumer, the ticker) can be hit. ``bench/cancel_probe.py``
    stops a worker 150 times with a probe around that wait: 4 side tasks outlived their single
    cancel, each after a cancel dropped exactly there. Cancelling again is the one remedy that
    covers every task, ours or a library's.
    """
    pending = {t for t in tasks if not t.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.2)
    for task in tasks:  # retrieve every exception, so none is reported as never retrieved
        if not task.cancelled():
            task.exception()


"""The asyncio worker: a producer that claims, executors that run, one completer that writes.

The split follows River's: the *producer* fetches due jobs in batches and dispatches them; an
*executor* task runs one job and turns its ending into an Outcome without touching SQL; the
*completer* is the only writer of outcomes and writes them in batches. Beside them a
*heartbeater* extends every held lease in one statement and stops jobs whose lease was taken
over, and a *listener* wakes the producer on NOTIFY (with polling as the fallback).

Correctness never depends on a clean exit: a worker killed with SIGKILL leaves leases that
expire, and its jobs are reclaimed. A worker that loses its database stops claiming at the first
heartbeat that fails (each attempt is bounded to a quarter of the lease), and a *lease guard*
cancels every job whose lease could not be renewed a margin before that lease ends: the job does
not run on while another worker may reclaim it, and its outcome is not written. A graceful stop
(SIGTERM) stops claiming, lets in-flight jobs finish for ``shutdown_grace_s``, and releases the
rest without using an attempt.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import random
import socket
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool

from . import db
from ._lease import LeaseTiming, next_check, overdue
from ._sql import q
from .context import Clock, Context, system_clock
from .errors import LeaseLostError
from .executor import execute
from .job import ClaimedJob, Outcome
from .queue import ALL_MODES, Queue, array_literal, load_json
from .registry import Registry

log = logging.getLogger("cutover.worker")


@dataclass
class WorkerConfig:
    """How a worker runs. Defaults suit a production worker; tests shorten the timings."""

    concurrency: int = 10
    lease_s: float = 30.0
    heartbeat_s: float | None = None  # default: a third of the lease
    # One heartbeat attempt (checkout, connect, statement) may take this long (default: a quarter
    # of the lease); a job whose lease was not renewed is cancelled ``lease_margin_s`` before
    # its lease ends (default: a quarter of the lease).
    renew_timeout_s: float | None = None
    lease_margin_s: float | None = None
    poll_s: float = 1.0
    batch_size: int | None = None  # claim at most this many at once (default: a lane's share)
    # Producer lanes: each claims and completes its share of the concurrency in its own
    # transactions, so two turns (and two WAL flushes) can be in flight at once.
    lanes: int = 2
    complete_batch: int = 500
    # Vacuum the jobs table after this many outcomes (0: leave it to autovacuum). Dead row
    # versions pile up at queue speed between autovacuum runs and slow every claim down.
    vacuum_every: int = 20_000
    shutdown_grace_s: float = 10.0
    modes: tuple[str, ...] = ALL_MODES
    # Automations whose live jobs may be claimed; None means all registered (library use). The
    # CLI passes those whose current code has a passing go-live verdict.
    live_automations: tuple[str, ...] | None = None
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}")

    def __post_init__(self) -> None:
        self.timing  # noqa: B018 - raise ConfigError now for a lease too short to run a job in

    @property
    def heartbeat_interval(self) -> float:
        return self.heartbeat_s if self.heartbeat_s is not None else self.lease_s / 3

    @property
    def timing(self) -> LeaseTiming:
        return LeaseTiming.for_lease(self.lease_s, self.renew_timeout_s, self.lease_margin_s,
                                     heartbeat_s=self.heartbeat_interval)

    @property
    def application_name(self) -> str:
        """What the worker's connections are called in ``pg_stat_activity``."""
        return f"cutover-worker {self.worker_id}"[:63]


ContextFactory = Callable[[ClaimedJob], Context]


@dataclass
class _Lane:
    """One producer lane: its share of the concurrency, the jobs it holds, their outcomes.

    ``held`` counts the lane's jobs from dispatch until their outcome is written (or until they
    end without one: lease lost, cancelled). ``outcomes`` is read only by the lane's producer,
    which the jobs wake through the worker's event, so a plain deque serves.
    """

    capacity: int
    held: int = 0
    outcomes: deque[Outcome] = field(default_factory=deque)
    # A cursor of the lane's own connection (``cursor.connection``), when pinned: reused turn
    # after turn.
    cursor: psycopg.AsyncCursor[Any] | None = None

    def take(self, limit: int) -> list[Outcome]:
        outcomes = self.outcomes
        if len(outcomes) <= limit:
            taken = list(outcomes)
            outcomes.clear()
            return taken
        return [outcomes.popleft() for _ in range(limit)]

    def put_back(self, outcomes: list[Outcome]) -> None:
        """Return outcomes that could not be written to the front, in their order."""
        self.outcomes.extendleft(reversed(outcomes))


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
        # The notifier LISTENs on a direct, long-lived connection of its own (a pooled one would
        # go back to the pool, and its LISTEN with it). Without ``conninfo`` it is opened from the
        # pool's conninfo and connection arguments, so every way of building a worker listens.
        self._listen_at: tuple[Any, Any] = (conninfo, {}) if conninfo else (pool.conninfo, pool.kwargs)
        self._gateway = gateway
        self._clock = clock
        self._rng = rng or random.Random()
        self._context_factory = context_factory or self._default_context
        self._inflight: dict[uuid.UUID, tuple[ClaimedJob, asyncio.Task[None]]] = {}
        # When each running job's lease last started at the latest (monotonic): the start of the
        # turn that claimed it, then of each heartbeat that renewed it. The lease guard reads it.
        self._renewed: dict[uuid.UUID, float] = {}
        self._now: Callable[[], float] = time.monotonic
        # Jobs whose outcome is queued but not yet written: they still count against concurrency
        # and are still heartbeated, so a slow completer slows claiming instead of losing leases.
        self._unwritten: dict[uuid.UUID, ClaimedJob] = {}
        self._lanes = [
            _Lane(self.config.concurrency // n + (1 if i < self.config.concurrency % n else 0)) for i in range(n)
        ]
        # Each lane keeps one connection of the pool for its turns (a checkout per turn was a
        # tenth of the worker's time) when that leaves one for the heartbeater and the rest.
        self._pin = self._own.max_size >= n + 1
        self._wake = asyncio.Event()
        self._recheck = asyncio.Event()
        self._stopping = asyncio.Event()
        self._claiming_ok = True
        self._lost: set[uuid.UUID] = set()
        self._since_vacuum = 0
        self._vacuum_due = asyncio.Event()
        self.stats = {"claimed": 0, "completed": 0, "lost": 0, "expired": 0, "released": 0, "vacuums": 0}

    def _default_context(self, job: ClaimedJob) -> Context:
        return Context(job, self.pool, worker=self.id, gateway=self._gateway, clock=self._clock,
                       registry=self.registry)

    def stop(self) -> None:
        """Ask the worker to stop claiming and shut down gracefully."""
        self._stopping.set()
        self._wake.set()

    async def run(self, *, drain: bool = False) -> None:
        """Run until ``stop()`` (or, with ``drain``, until nothing is due and nothing is running)."""
        if self._owns_pool:
            await self._own.open(wait=True)
        try:
            await self._run(drain)
        finally:
            if self._owns_pool:
                await self._own.close()

    async def _run(self, drain: bool) -> None:
        aux = [asyncio.create_task(self._heartbeater(), name="heartbeater"),
               asyncio.create_task(self._lease_guard(), name="lease-guard")]
        if self.config.vacuum_every > 0:
            aux.append(asyncio.create_task(self._vacuumer(), name="vacuumer"))
        if not drain:  # a draining producer wakes due jobs itself before it calls the queue empty
            aux.append(asyncio.create_task(self._waker(), name="waker"))
            if self._listen_at[0] or self._listen_at[1]:  # a pool with no conninfo: kwargs only
                aux.append(asyncio.create_task(self._listener(), name="listener"))
            if "live" in self.config.modes:  # schedule ticks are live jobs (queue_core._ticker)
                from ._ticker import run_ticker

                aux.append(asyncio.create_task(run_ticker(self.pool, self.registry, worker=self.id), name="ticker"))
        try:
            await asyncio.gather(*(self._producer(lane, drain) for lane in self._lanes))
            await self._shutdown()
        finally:
            for task in aux:
                task.cancel()
            await asyncio.gather(*aux, return_exceptions=True)
            await self._flush()

    # -- producer + completer ----------------------------------------------------------------

    async def _producer(self, lane: _Lane, drain: bool) -> None:
        """Claim, dispatch and complete until stopped (or drained).

        Each turn is one transaction: it writes the outcomes that finished since the last turn
        and claims as many jobs as that frees (River runs its producer and completer apart; here
        they share a commit, because each commit costs a WAL flush).
        """
        batch = min(self.config.batch_size or lane.capacity, lane.capacity)
        failures = 0
        try:
            while not self._stopping.is_set():
                outcomes = lane.take(self.config.complete_batch)
                free = lane.capacity - lane.held + len(outcomes)
                limit = min(free, batch) if self._claiming_ok else 0
                started = self._now()  # the leases this turn takes start after this
                try:
                    if self._pin and lane.cursor is None:
                        await self._pin_connection(lane)
                    got = await self._turn(lane, outcomes, limit)
                except psycopg.OperationalError as exc:
                    failures += 1
                    _log_failure(failures, "claim/complete failed, retrying every %.1fs: %s", _RETRY_S, exc)
                    lane.put_back(outcomes)
                    await self._unpin(lane)  # the pool replaces a broken connection
                    await self._sleep(min(self.config.poll_s, _RETRY_S))
                    continue
                if failures:
                    log.warning("claim/complete works again after %d failed turns", failures)
                    failures = 0
                if not await self._after_turn(lane, drain, outcomes, got, limit, free, started):
                    return
        finally:
            await self._unpin(lane)

    async def _pin_connection(self, lane: _Lane) -> None:
        conn = await self._own.getconn(timeout=self._timing.renew_timeout_s)
        if not conn.autocommit:
            # A pool of the caller's whose connections open transactions: a kept connection
            # would hold its first turn's transaction open forever. Check out per turn instead,
            # where the pool's context commits each one.
            await self._own.putconn(conn)
            self._pin = False
            return
        set_json_loads(load_json, conn)
        lane.cursor = conn.cursor()

    async def _unpin(self, lane: _Lane) -> None:
        if lane.cursor is not None:
            conn, lane.cursor = lane.cursor.connection, None
            await self._own.putconn(conn)

    async def _after_turn(self, lane: _Lane, drain: bool, outcomes: list[Outcome], got: list[ClaimedJob],
                          limit: int, free: int, started: float) -> bool:
        """Dispatch what a turn claimed and wait for work when there is none; False: drained."""
        self.stats["claimed"] += len(got)
        for job in got:
            self._dispatch(lane, job, started)
        # A turn's claim cannot see what its own writes made due (a retry without delay):
        # after writing outcomes, claim once more before calling the queue drained.
        if drain and not got and not outcomes and not self._inflight and not self._unwritten:
            return not await self._drained(started)
        if limit > 0 and len(got) == limit and free > limit:
            return True  # more work is likely waiting: claim again at once
        if outcomes or got:
            return True  # jobs may have finished while this turn ran
        await self._wait_for_work(drain)
        return True

    async def _turn(self, lane: _Lane, outcomes: list[Outcome], limit: int) -> list[ClaimedJob]:
        """Write ``outcomes`` and claim up to ``limit`` jobs, in one transaction when both."""
        names = self.registry.names()
        cfg = self.config
        if outcomes and limit > 0:
            try:
                applied, got = await self.queue.complete_and_claim(
                    outcomes, self.id, limit, lease_s=cfg.lease_s, automations=names, modes=cfg.modes,
                    live_automations=cfg.live_automations, conn=lane.cursor)
            except psycopg.OperationalError:
                raise
            except psycopg.Error:  # not an outage: drop this batch rather than retry it forever
                log.exception("writing %d outcomes failed; their leases will expire and be reclaimed", len(outcomes))
                self._written(lane, outcomes, 0)
                return []
            self._written(lane, outcomes, applied)
            return got
        if outcomes:
            await self._write(lane, outcomes)
            return []
        if limit > 0:
            return await self.queue.claim(self.id, limit, lease_s=cfg.lease_s, automations=names,
                                          modes=cfg.modes, live_automations=cfg.live_automations, conn=lane.cursor)
        return []

    def _written(self, lane: _Lane, outcomes: list[Outcome], applied: int) -> None:
        """``outcomes`` were written (``applied`` of them landed; the rest were fenced out)."""
        self.stats["completed"] += applied
        self._since_vacuum += applied
        if self.config.vacuum_every > 0 and self._since_vacuum >= self.config.vacuum_every:
            self._since_vacuum = 0
            self._vacuum_due.set()
        lane.held -= len(outcomes)
        for outcome in outcomes:
            self._unwritten.pop(outcome.job_id, None)

    async def _wait_for_work(self, drain: bool) -> None:
        self._wake.clear()
        timeout = 0.05 if drain else self.config.poll_s
        try:
            # asyncio.timeout, not wait_for: wait_for wraps the wait in a task of its own, and
            # a producer waits once per turn.
            async with asyncio.timeout(timeout):
                await self._wake.wait()
        except TimeoutError:
            pass

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            pass

    async def _drained(self, claimed_at: float) -> bool:
        """Whether nothing is left to do after a turn that began at ``claimed_at`` claimed nothing:
        no waiting job became due, and no job of this worker's automations is running under
        another worker's live lease (wait for it: it may end in a retry, or its worker may die
        and its lease expire, and then it is reclaimed here)."""
        try:
            woken = await self.queue.wake_due(actor=self.id)
            woken += await self.queue.recheck_conditions(actor=self.id)
            if woken:
                return False  # a waiting job became due: claim it before calling the queue drained
            if not await self._leased_elsewhere(self._now() - claimed_at):
                return True
        except psycopg.OperationalError as exc:
            log.warning("checking whether the queue is drained failed, retrying: %s", exc)
        await self._sleep(min(self.config.poll_s, _RETRY_S))
        return False

    async def _leased_elsewhere(self, since_s: float) -> int:
        """Count jobs of this worker's automations and modes running under a lease that was live
        ``since_s`` ago: one that ended since the last claim began may not have been claimable to it."""
        params = {"automations": array_literal(tuple(self.registry.names())),
                  "modes": array_literal(tuple(self.config.modes)), "since_s": since_s}
        async with self._own.connection(timeout=self._timing.renew_timeout_s) as conn:
            row = await (await conn.execute(q("queue", "live_leases"), params)).fetchone()
        return int(row[0]) if row else 0

    def _dispatch(self, lane: _Lane, job: ClaimedJob, started: float) -> None:
        lane.held += 1
        task = asyncio.create_task(self._run_one(lane, job))  # unnamed: a name costs a str(uuid) per job
        self._inflight[job.id] = (job, task)
        self._renewed[job.id] = started

    async def _run_one(self, lane: _Lane, job: ClaimedJob) -> None:
        queued = False  # an outcome is on its way to the database: _written releases the hold
        try:
            ctx = self._context_factory(job)
            outcome = await execute(job, ctx, self.registry, self._rng)
        except LeaseLostError:
            self.stats["lost"] += 1
            log.warning("job %s: lease lost (claim %s), stopping it", job.id, job.claim_count)
        except asyncio.CancelledError:
            if job.id not in self._lost and self._stopping.is_set():
                self._unwritten[job.id] = job
                lane.outcomes.append(Outcome.release(job))
                queued = True
                self.stats["released"] += 1
            raise
        else:
            self._unwritten[job.id] = job
            lane.outcomes.append(outcome)
            queued = True
        finally:
            self._inflight.pop(job.id, None)
            self._renewed.pop(job.id, None)
            if not queued:
                lane.held -= 1  # lost or cancelled: nothing to write for it
            self._wake.set()

    # -- writing outcomes outside a turn ---------------------------------------------------

    async def _flush(self) -> None:
        """Write every outcome still queued (at shutdown), retrying through outages."""
        for lane in self._lanes:
            while lane.outcomes:
                await self._write(lane, lane.take(self.config.complete_batch))

    async def _write(self, lane: _Lane, batch: list[Outcome]) -> None:
        """Write a batch of outcomes, retrying through database outages until it lands.

        Another kind of database error drops the batch: its jobs stay leased until the lease
        expires and are then reclaimed, so nothing is lost, only delayed.
        """
        delay, failures = 0.1, 0
        while True:
            try:
                applied = await self.queue.complete(batch, worker=self.id)
                self._written(lane, batch, len(applied))
                return
            except psycopg.OperationalError as exc:
                failures += 1
                _log_failure(failures, "writing %d outcomes failed, retrying: %s", len(batch), exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_S)
            except psycopg.Error:
                log.exception("writing %d outcomes failed; their leases will expire and be reclaimed", len(batch))
                self._written(lane, batch, 0)
                return

    # -- heartbeats --------------------------------------------------------------------------

    async def _heartbeater(self) -> None:
        """Renew every held lease each ``heartbeat_interval``, each attempt bounded in time.

        A failed attempt stops claiming until one succeeds; the lease guard stops the jobs whose
        leases stay unrenewed. The first failure of a run is logged, and the recovery.
        """
        failures = 0
        while True:
            await asyncio.sleep(self.config.heartbeat_interval)
            held = [(job.id, job.claim_count) for job, _ in self._inflight.values()]
            held += [(job.id, job.claim_count) for job in self._unwritten.values()]
            if not held:
                self._claiming_ok = True  # nothing to renew: the lanes' turns find out if the database answers
                continue
            started = self._now()
            try:
                async with asyncio.timeout(self._timing.renew_timeout_s):
                    kept = await self.queue.heartbeat(held, lease_s=self.config.lease_s)
            except (psycopg.Error, TimeoutError) as exc:
                failures += 1
                self._claiming_ok = False
                _log_failure(failures, "heartbeat failed; not claiming until one succeeds: %s",
                             str(exc) or f"no answer within {self._timing.renew_timeout_s:.2f}s")
                continue
            if failures:
                log.warning("heartbeat succeeded after %d failed; claiming again", failures)
            failures = 0
            self._claiming_ok = True
            for job_id in kept:
                if job_id in self._renewed:
                    self._renewed[job_id] = started
            self._abandon({job_id for job_id, _ in held} - kept)

    async def _lease_guard(self) -> None:
        """Cancel each running job whose lease was not renewed by ``lease - margin`` after it
        last started: another worker may reclaim the job once the lease ends."""
        horizon = self._timing.horizon_s
        while True:
            late = overdue(self._renewed, self._now(), horizon)
            if late:
                self._expire(late)
            now = self._now()
            await asyncio.sleep(max(0.01, next_check(self._renewed, now, horizon) - now))

    def _expire(self, ids: list[uuid.UUID]) -> None:
        cancelled = []
        for job_id in ids:
            self._renewed.pop(job_id, None)
            entry = self._inflight.get(job_id)
            if entry is not None:
                self._lost.add(job_id)
                entry[1].cancel()
                cancelled.append(str(job_id))
        if cancelled:
            self.stats["expired"] += len(cancelled)
            log.warning("cancelling %d job(s) whose lease could not be renewed for %.1fs of its %.1fs; their "
                        "outcome is not written, and they are reclaimed once the lease ends: %s",
                        len(cancelled), self._timing.horizon_s, self.config.lease_s, ", ".join(cancelled[:10]))

    def _abandon(self, ids: set[uuid.UUID]) -> None:
        """Stop jobs whose lease this worker no longer holds; their outcome must not be written."""
        for job_id in ids:
            entry = self._inflight.get(job_id)
            if entry is None:
                continue
            self._lost.add(job_id)
            self.stats["lost"] += 1
            log.warning("job %s: lease taken over; cancelling it", job_id)
            entry[1].cancel()

    # -- vacuumer ----------------------------------------------------------------------------

    async def _vacuumer(self) -> None:
        """Vacuum the jobs table after every ``vacuum_every`` outcomes, beside the producers."""
        while True:
            await self._vacuum_due.wait()
            self._vacuum_due.clear()
            try:
                await self.queue.vacuum()
                self.stats["vacuums"] += 1
            except psycopg.Error as exc:
                log.warning("vacuuming jobs failed (autovacuum will do it): %s", exc)

    # -- waker -------------------------------------------------------------------------------

    async def _waker(self) -> None:
        """Wake waiting jobs whose timer is due and recheck ``ctx.wait_for`` conditions."""
        failures = 0
        while True:
            try:
                woken = await self.queue.wake_due(actor=self.id)
                woken += await self.queue.recheck_conditions(actor=self.id)
                failures = 0
                if woken:
                    self._wake.set()
            except psycopg.OperationalError as exc:
                failures += 1
                _log_failure(failures, "waking due jobs failed, retrying: %s", exc)
            try:
                await asyncio.wait_for(self._recheck.wait(), self.config.poll_s)
            except TimeoutError:
                pass
            self._recheck.clear()

    # -- listener ----------------------------------------------------------------------------

    async def _listener(self) -> None:
        conninfo, kwargs = self._listen_at
        # psycopg_pool also takes callables (sync or async) for either; resolve them as it does.
        conninfo, kwargs = await _resolved(conninfo), await _resolved(kwargs)
        kwargs = {**(kwargs or {}), "autocommit": True, "application_name": self.config.application_name,
                  "connect_timeout": max(2, round(self._timing.renew_timeout_s))}
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(conninfo, **kwargs) as conn:
                    await conn.execute(q("queue", "listen_jobs"))
                    await conn.execute(q("queue", "listen_waits"))
                    async for note in conn.notifies():
                        if note.channel == "cutover_waits":
                            self._recheck.set()
                        self._wake.set()
            except psycopg.OperationalError as exc:
                log.info("listener lost its connection (%s); polling until it is back", exc)
                await asyncio.sleep(min(self.config.poll_s, _RETRY_S))

    # -- shutdown ----------------------------------------------------------------------------

    async def _shutdown(self) -> None:
        tasks = [task for _, task in self._inflight.values()]
        if not tasks:
            return
        done, pending = await asyncio.wait(tasks, timeout=self.config.shutdown_grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


async def _resolved(value: Any) -> Any:
    """``value``, or what it returns when called (awaited if that is awaitable)."""
    if callable(value):
        value = value()
        if inspect.isawaitable(value):
            value = await value
    return value


# Retries after a failed statement come at least this often, so a worker resumes within about
# this long (plus a reconnection, db.RECONNECT_S at most) after its database comes back.
_RETRY_S = 1.0


def _log_failure(failures: int, message: str, *args: Any) -> None:
    """Log the first failure of a run of them as a warning and the rest at debug level."""
    log.log(logging.WARNING if failures == 1 else logging.DEBUG, message, *args)

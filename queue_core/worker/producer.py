"""The producer: one lane's claim turns. It fetches due jobs and dispatches them to the executor.

Each turn is one transaction on the lane's own connection: it carries the outcomes the lane's
completer has queued and claims as many jobs as that frees. Between turns the producer waits on
its own wake event, set when one of its jobs ends, on NOTIFY, on a woken timer and on stop. The
event is cleared *before* a turn, never after it: whatever happens while the turn runs (a job
ends, stop() is called) wakes the wait that follows at once, instead of being wiped out and left
for the next poll (a worker polling every 30 s then took 30 s to stop).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool

from ..job import ClaimedJob, Outcome
from ..queue import Queue, load_json
from ..registry import Registry
from ..store.leases import plan_turns_once
from .completer import RETRY_S, Completer, describe, log_failure, transient
from .config import WorkerConfig
from .executor import Executor

log = logging.getLogger("cutover.worker")


class Producer:
    """Claims and dispatches one lane's share (``capacity``) of the worker's concurrency."""

    def __init__(self, capacity: int, *, config: WorkerConfig, worker: str, queue: Queue, registry: Registry,
                 own: AsyncConnectionPool, executor: Executor, completer: Completer, wake: asyncio.Event,
                 stopping: asyncio.Event, claiming_ok: Callable[[], bool], drained: Callable[[float], Awaitable[bool]],
                 pin: bool, checkout_s: float, stats: dict[str, int]) -> None:
        self.capacity = capacity
        self.config = config
        self.worker = worker
        self.queue = queue
        self.registry = registry
        self._own = own
        self.executor = executor
        self.completer = completer
        self.wake = wake
        self._stopping = stopping
        self._claiming_ok = claiming_ok
        self._drained = drained
        # Keep one connection of the pool for the lane's turns (a checkout per turn was a tenth of
        # the worker's time) when the pool leaves one for the heartbeater and the rest.
        self._pin = pin
        self._checkout_s = checkout_s
        self._stats = stats
        # A cursor of the lane's own connection (``cursor.connection``), when pinned: reused turn
        # after turn.
        self.cursor: psycopg.AsyncCursor[Any] | None = None

    async def run(self, drain: bool) -> None:
        """Claim, dispatch and complete until stopped (or drained)."""
        batch = min(self.config.batch_size or self.capacity, self.capacity)
        failures = 0
        try:
            while not self._stopping.is_set():
                self.wake.clear()  # before the turn: a wake-up during it is kept for the wait after it
                outcomes = self.completer.take(self.config.complete_batch)
                free = self.capacity - self.completer.held + len(outcomes)
                limit = min(free, batch) if self._claiming_ok() else 0
                started = time.monotonic()  # the leases this turn takes start after this
                try:
                    if self._pin and self.cursor is None:
                        await self._pin_connection()
                    got = await self._turn(outcomes, limit)
                except psycopg.Error as exc:
                    # An outage, or any other error of a turn's own statement (a job's bad outcome
                    # is dropped in _turn, not raised): retried until it works, never the end of
                    # the worker.
                    failures += 1
                    log_failure(failures, "claim/complete failed, retrying every %.1fs: %s", RETRY_S, describe(exc))
                    if outcomes:
                        self.completer.put_back(outcomes)
                    await self._unpin()  # the pool replaces a broken connection
                    await self.sleep(min(self.config.poll_s, RETRY_S))
                    continue
                if failures:
                    log.warning("claim/complete works again after %d failed turns", failures)
                    failures = 0
                if not await self._after_turn(drain, outcomes, got, limit, free, started):
                    return
        finally:
            await self._unpin()

    async def _pin_connection(self) -> None:
        conn = await self._own.getconn(timeout=self._checkout_s)
        if not conn.autocommit:
            # A pool of the caller's whose connections open transactions: a kept connection
            # would hold its first turn's transaction open forever. Check out per turn instead,
            # where the pool's context commits each one.
            await self._own.putconn(conn)
            self._pin = False
            return
        set_json_loads(load_json, conn)
        self.cursor = conn.cursor()  # set first: a failing statement below still hands conn back
        await plan_turns_once(self.cursor)  # one plan of the turn, not one a turn

    async def _unpin(self) -> None:
        if self.cursor is not None:
            conn, self.cursor = self.cursor.connection, None
            await self._own.putconn(conn)

    async def _turn(self, outcomes: list[Outcome], limit: int) -> list[ClaimedJob]:
        """Write ``outcomes`` and claim up to ``limit`` jobs, in one transaction when both."""
        names = self.registry.names()
        cfg = self.config
        if outcomes and limit > 0:
            try:
                applied, got = await self.queue.complete_and_claim(
                    outcomes, self.worker, limit, lease_s=cfg.lease_s, automations=names, modes=cfg.modes,
                    live_automations=cfg.live_automations, conn=self.cursor)
            except psycopg.Error as exc:
                if transient(exc):
                    raise  # the turn is retried with these outcomes
                # Not an outage nor the session: what these outcomes carry may be at fault, so
                # drop this batch rather than retry it forever.
                self.completer.dropped(outcomes, exc)
                return []
            self.completer.written(outcomes, applied)
            return got
        if outcomes:
            await self.completer.write(outcomes)
            return []
        if limit > 0:
            return await self.queue.claim(self.worker, limit, lease_s=cfg.lease_s, automations=names,
                                          modes=cfg.modes, live_automations=cfg.live_automations, conn=self.cursor)
        return []

    async def _after_turn(self, drain: bool, outcomes: list[Outcome], got: list[ClaimedJob],
                          limit: int, free: int, started: float) -> bool:
        """Dispatch what a turn claimed and wait for work when there is none; False: drained."""
        self._stats["claimed"] += len(got)
        self.executor.start_all(got, started, self.completer)
        # A turn's claim cannot see what its own writes made due (a retry without delay):
        # after writing outcomes, claim once more before calling the queue drained.
        if drain and not got and not outcomes and not self.completer.held:
            return not await self._drained(started)
        if limit > 0 and len(got) == limit and free > limit:
            return True  # more work is likely waiting: claim again at once
        if outcomes or got:
            return True  # jobs may have finished while this turn ran
        await self._wait_for_work(drain)
        return True

    async def _wait_for_work(self, drain: bool) -> None:
        timeout = 0.05 if drain else self.config.poll_s
        try:
            # asyncio.timeout, not wait_for: wait_for wraps the wait in a task of its own, and
            # a producer waits once per turn.
            async with asyncio.timeout(timeout):
                await self.wake.wait()
        except TimeoutError:
            pass

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds``, or less if the worker is stopped meanwhile."""
        try:
            async with asyncio.timeout(seconds):  # not wait_for: see Waker.run
                await self._stopping.wait()
        except TimeoutError:
            pass

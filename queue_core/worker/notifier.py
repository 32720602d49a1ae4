"""What wakes the producers besides their own jobs: NOTIFY (the notifier) and due timers (the waker).

The notifier LISTENs on a direct, long-lived connection of its own: a pooled one would go back
to the pool, and its LISTEN with it. It is opened from ``conninfo`` when the worker was given
one, else from the pool's own conninfo and connection arguments, so every way of building a
worker listens (a Worker built from Python with only a pool used to poll, every ``poll_s``).
Polling stays the fallback while the connection is down.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

import psycopg

from ..queue import Queue
from ..store import jobs
from .completer import RETRY_S, describe, log_failure

log = logging.getLogger("cutover.worker")


class Notifier:
    """LISTENs for new jobs and resolved waits and calls ``wake`` (and ``recheck``) on each."""

    def __init__(self, conninfo: Any, kwargs: Any, *, application_name: str, connect_timeout_s: float,
                 poll_s: float, wake: Callable[[], None], recheck: asyncio.Event) -> None:
        self._conninfo = conninfo
        self._kwargs = kwargs
        self._application_name = application_name
        self._connect_timeout_s = connect_timeout_s
        self._poll_s = poll_s
        self._wake = wake
        self._recheck = recheck
        self.listening = asyncio.Event()  # set while a LISTEN is in place

    async def run(self) -> None:
        """Listen until cancelled, reconnecting after a lost connection."""
        # psycopg_pool also takes callables (sync or async) for either; resolve them as it does.
        conninfo, kwargs = await _resolved(self._conninfo), await _resolved(self._kwargs)
        kwargs = {**(kwargs or {}), "autocommit": True, "application_name": self._application_name,
                  "connect_timeout": max(2, round(self._connect_timeout_s))}
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(conninfo, **kwargs) as conn:
                    await jobs.listen(conn)
                    self.listening.set()
                    self._wake()  # a job enqueued before the LISTEN took effect is claimed now
                    async for note in conn.notifies():
                        if note.channel == "cutover_waits":
                            self._recheck.set()
                        self._wake()
            except psycopg.Error as exc:  # an outage, or an error of LISTEN itself: never the worker's end
                log.info("listener failed (%s); polling until it listens again", describe(exc))
            self.listening.clear()
            await asyncio.sleep(min(self._poll_s, RETRY_S))


class Waker:
    """Wakes waiting jobs whose timer is due and rechecks ``ctx.wait_for`` conditions."""

    def __init__(self, queue: Queue, actor: str, *, poll_s: float, wake: Callable[[], None],
                 recheck: asyncio.Event) -> None:
        self.queue = queue
        self.actor = actor
        self.poll_s = poll_s
        self._wake = wake
        self.recheck = recheck

    async def wake_due(self) -> int:
        """Wake what is due now; return how many jobs were woken."""
        woken = await self.queue.wake_due(actor=self.actor)
        return woken + await self.queue.recheck_conditions(actor=self.actor)

    async def run(self) -> None:
        """Wake due jobs every ``poll_s`` (sooner when a wait is resolved) until cancelled."""
        failures = 0
        while True:
            try:
                woken = await self.wake_due()
                failures = 0
                if woken:
                    self._wake()
            except psycopg.Error as exc:
                failures += 1
                log_failure(failures, "waking due jobs failed, retrying: %s", describe(exc))
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow the cancel that
            # stops the worker when it lands as the wait ends (bpo-42130), and the waker then
            # slept a whole poll interval more: a worker polling every 30 s took 30 s to stop.
            try:
                async with asyncio.timeout(self.poll_s):
                    await self.recheck.wait()
            except TimeoutError:
                pass
            self.recheck.clear()


async def _resolved(value: Any) -> Any:
    """``value``, or what it returns when called (awaited if that is awaitable)."""
    if callable(value):
        value = value()
        if inspect.isawaitable(value):
            value = await value
    return value

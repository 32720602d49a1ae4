"""The completer: the only writer of outcomes. One interface, a batched and an inline kind.

A lane's completer counts the lane's jobs from dispatch until their outcome is written (or until
they end without one), so claiming never outruns writing: a slow completer slows claiming
instead of losing leases. Jobs whose outcome waits to be written are still heartbeated.

- :class:`BatchCompleter` (the default) queues outcomes; the lane's producer sends them with its
  next claim, one statement and one commit for both (River keeps producer and completer apart;
  here they share a commit, because each commit costs a WAL flush).
- :class:`InlineCompleter` writes each outcome by itself as soon as its job ends (one statement
  per job; the lowest latency per job, the most commits).

A write that fails for an outage, or for the state of its connection's session (see
:func:`transient`), is retried until it lands; another database error drops the batch, whose
jobs stay leased until the lease expires and are then reclaimed: nothing is lost, only delayed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any

import psycopg

from ..errors import ConfigError
from ..job import ClaimedJob, Outcome
from ..queue import Queue

log = logging.getLogger("cutover.worker")

# Retries after a failed statement come at least this often, so a worker resumes within about
# this long (plus a reconnection, db.RECONNECT_S at most) after its database comes back.
RETRY_S = 1.0


def log_failure(failures: int, message: str, *args: Any) -> None:
    """Log the first failure of a run of them as a warning and the rest at debug level."""
    log.log(logging.WARNING if failures == 1 else logging.DEBUG, message, *args)


# Errors about a connection's session rather than the statement it ran: a prepared statement the
# server holds, or lacks, behind psycopg's back (PgBouncer in transaction mode hands one client
# several server connections).
_SESSION_ERRORS = (psycopg.errors.DuplicatePreparedStatement, psycopg.errors.InvalidSqlStatementName)


def transient(exc: BaseException) -> bool:
    """Whether a failed statement says nothing about what it carried: an outage
    (OperationalError) or its session's state, so the same statement may be sent again."""
    return isinstance(exc, (psycopg.OperationalError, *_SESSION_ERRORS))


def describe(exc: BaseException) -> str:
    """An error for a log line: its class, SQLSTATE and primary message, never the statement's
    parameters nor the server's DETAIL (which may quote a payload)."""
    diag = getattr(exc, "diag", None)
    primary = diag.message_primary if diag is not None else None
    if primary is None:
        lines = str(exc).strip().splitlines()
        primary = lines[0] if lines else ""
    state = getattr(exc, "sqlstate", None)
    return f"{type(exc).__name__}{f' [{state}]' if state else ''}: {primary}"


class Completer:
    """What every completer does: hold a lane's jobs until their outcomes are written."""

    def __init__(self, queue: Queue, worker: str, *, batch: int, stats: dict[str, int],
                 wake: asyncio.Event, on_written: Callable[[int], None] = lambda n: None) -> None:
        self.queue = queue
        self.worker = worker
        self.batch = batch
        self.stats = stats
        self.wake = wake  # the lane's producer: a job ended, so there is room (or an outcome) for a turn
        self._on_written = on_written
        self.held = 0  # the lane's jobs from dispatch until their outcome is written
        # Jobs whose outcome is queued but not yet written: still heartbeated.
        self.unwritten: dict[uuid.UUID, ClaimedJob] = {}

    def hold(self) -> None:
        """A job of the lane was dispatched."""
        self.held += 1

    def accept(self, job: ClaimedJob, outcome: Outcome | None) -> None:
        """Take a job's ending; None means there is nothing to write (lease lost, cancelled)."""
        if outcome is None:
            self.held -= 1
        else:
            self.unwritten[job.id] = job
            self._queue(outcome)
        self.wake.set()

    def _queue(self, outcome: Outcome) -> None:
        raise NotImplementedError

    def take(self, limit: int) -> list[Outcome]:
        """Outcomes to send with the producer's next claim (the batched kind's; inline: none)."""
        return []

    def put_back(self, outcomes: list[Outcome]) -> None:
        """Return outcomes a turn could not write, to go out first next time."""
        raise NotImplementedError

    def written(self, outcomes: list[Outcome], applied: int) -> None:
        """``outcomes`` were written (``applied`` of them landed; the rest were fenced out)."""
        self.stats["completed"] += applied
        self._on_written(applied)
        self.held -= len(outcomes)
        for outcome in outcomes:
            self.unwritten.pop(outcome.job_id, None)

    def dropped(self, outcomes: list[Outcome], exc: BaseException) -> None:
        """A turn failed to write ``outcomes`` for good (not an outage): their leases will expire.
        Logged without the server's DETAIL, which may quote what the outcomes carry."""
        log.error("writing %d outcomes failed; their leases will expire and be reclaimed: %s", len(outcomes),
                  describe(exc))
        self.written(outcomes, 0)

    async def write(self, batch: list[Outcome]) -> None:
        """Write ``batch`` in one statement, retrying through database outages until it lands."""
        delay, failures = 0.1, 0
        while True:
            try:
                applied = await self.queue.complete(batch, worker=self.worker)
            except psycopg.Error as exc:
                if not transient(exc):
                    self.dropped(batch, exc)
                    return
                failures += 1
                log_failure(failures, "writing %d outcomes failed, retrying: %s", len(batch), describe(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_S)
                continue
            self.written(batch, len(applied))
            return

    async def flush(self) -> None:
        """Write every outcome still queued (at shutdown), retrying through outages."""


class BatchCompleter(Completer):
    """Queues outcomes for the lane's next turn, in the order the jobs finished."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outcomes: deque[Outcome] = deque()

    def _queue(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    def take(self, limit: int) -> list[Outcome]:
        outcomes = self.outcomes
        if len(outcomes) <= limit:
            taken = list(outcomes)
            outcomes.clear()
            return taken
        return [outcomes.popleft() for _ in range(limit)]

    def put_back(self, outcomes: list[Outcome]) -> None:
        self.outcomes.extendleft(reversed(outcomes))

    async def flush(self) -> None:
        while self.outcomes:
            await self.write(self.take(self.batch))


class InlineCompleter(Completer):
    """Writes each outcome at once, in a task of its own, beside the producer's turns."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writes: set[asyncio.Task[None]] = set()

    def _queue(self, outcome: Outcome) -> None:
        task = asyncio.create_task(self.write([outcome]))
        self._writes.add(task)
        task.add_done_callback(self._written_task)

    def _written_task(self, task: asyncio.Task[None]) -> None:
        self._writes.discard(task)
        self.wake.set()

    def put_back(self, outcomes: list[Outcome]) -> None:
        raise AssertionError("an inline completer hands no outcomes to a turn")

    async def flush(self) -> None:
        while self._writes:
            await asyncio.gather(*list(self._writes), return_exceptions=True)


def completer(kind: str, queue: Queue, worker: str, **kwargs: Any) -> Completer:
    """A completer of ``kind`` (``batched`` or ``inline``)."""
    kinds: dict[str, type[Completer]] = {"batched": BatchCompleter, "inline": InlineCompleter}
    if kind not in kinds:
        raise ConfigError(f"must be one of {', '.join(kinds)}, got {kind!r}", field="completer")
    return kinds[kind](queue, worker, **kwargs)

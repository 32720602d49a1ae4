"""The executor: runs each claimed job in a task of its own and hands its ending to a completer.

No SQL here: ``queue_core.executor.execute`` turns a run into an Outcome, and the lane's
completer writes it. The executor keeps what the heartbeater and the lease guard need (the
jobs in flight, when each lease last started) and stops a job only under the claim it was
asked to stop: a stale heartbeat that names claim 1 of a job leaves that job's claim 2 alone.

Every ending is handled in the task's done callback, never in the coroutine's own ``finally``: a
task cancelled before its first step never runs its coroutine at all, so a ``finally`` there
would leave the job counted in flight (heartbeated for ever) and its lane full (never claiming
again). That is how a job whose claim turn outlasted the lease horizon used to hang a worker.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ..context import Context
from ..errors import LeaseLostError
from ..executor import execute
from ..job import ClaimedJob, Outcome
from ..registry import Registry

if TYPE_CHECKING:
    from .completer import Completer

log = logging.getLogger("cutover.worker")
# One line per job outcome, at INFO (`cutover -v worker`), on a logger of its own so it can be
# routed or silenced apart: automation, job, attempt, outcome, duration, error kind.
outcomes = logging.getLogger("cutover.jobs")

ContextFactory = Callable[[ClaimedJob], Context]
Claim = tuple[uuid.UUID, int]


class Executor:
    """The jobs a worker runs: one task each, from dispatch to its outcome's hand-over."""

    def __init__(self, registry: Registry, context_factory: ContextFactory, rng: random.Random,
                 stats: dict[str, int], stopping: asyncio.Event) -> None:
        self.registry = registry
        self._context_factory = context_factory
        self._rng = rng
        self._stats = stats
        self._stopping = stopping
        self.inflight: dict[uuid.UUID, tuple[ClaimedJob, asyncio.Task[Outcome | None]]] = {}
        # When each running job's lease last started at the latest (monotonic): the start of the
        # turn that claimed it, then of each heartbeat that renewed it. The lease guard reads it.
        self.renewed: dict[uuid.UUID, float] = {}
        self._lost: set[Claim] = set()  # claims stopped because the lease is gone: no outcome

    def start(self, job: ClaimedJob, started: float, completer: Completer) -> None:
        """Run ``job`` (claimed by a turn that began at ``started``); ``completer`` gets its outcome."""
        self.start_all([job], started, completer)

    def start_all(self, jobs: list[ClaimedJob], started: float, completer: Completer) -> None:
        """Run each of ``jobs`` (claimed by one turn that began at ``started``) in a task of its
        own, in their order; ``completer`` gets their outcomes. A turn hands over hundreds at once:
        the loop, the tables and the callbacks are looked up once for all of them."""
        if not jobs:
            return
        completer.held += len(jobs)  # what hold() does, once for the batch
        create_task = asyncio.get_running_loop().create_task  # unnamed tasks: a name costs a str(uuid) per job
        inflight, renewed, run, ended = self.inflight, self.renewed, self._run, self._ended
        for job in jobs:
            task = create_task(run(job))
            inflight[job.id] = (job, task)
            renewed[job.id] = started
            task.add_done_callback(partial(ended, job, completer))

    async def _run(self, job: ClaimedJob) -> Outcome | None:
        started = time.perf_counter() if outcomes.isEnabledFor(logging.INFO) else None
        try:
            outcome = await execute(job, self._context_factory(job), self.registry, self._rng)
        except LeaseLostError:
            self._stats["lost"] += 1
            log.warning("job %s: lease lost (claim %s), stopping it", job.id, job.claim_count)
            outcome = None
        if started is not None:
            log_outcome(job, outcome, time.perf_counter() - started)
        return outcome

    def _ended(self, job: ClaimedJob, completer: Completer, task: asyncio.Task[Outcome | None]) -> None:
        entry = self.inflight.pop(job.id, None)
        if entry is not None:
            if entry[0] is job:
                self.renewed.pop(job.id, None)
            else:  # another claim of the same job runs now: it keeps its place
                self.inflight[job.id] = entry
        lost = False
        if self._lost:  # almost always empty: no key to build and hash per job
            lost = (job.id, job.claim_count) in self._lost
            self._lost.discard((job.id, job.claim_count))
        outcome: Outcome | None = None
        if task.cancelled():
            if not lost and self._stopping.is_set():  # a graceful stop: back to pending, no attempt used
                outcome = Outcome.release(job)
                self._stats["released"] += 1
        elif task.exception() is not None:
            log.error("job %s: the worker failed to run it", job.id, exc_info=task.exception())
        else:
            outcome = task.result()
        completer.accept(job, outcome)

    def stop(self, job_id: uuid.UUID, claim_count: int) -> bool:
        """Cancel the job's run if it is still under ``claim_count``; its outcome is not written."""
        entry = self.inflight.get(job_id)
        if entry is None or entry[0].claim_count != claim_count:
            return False
        self._lost.add((job_id, claim_count))
        self.renewed.pop(job_id, None)
        entry[1].cancel()
        return True

    def held(self) -> list[Claim]:
        """The (id, claim_count) of every job running now."""
        return [(job.id, job.claim_count) for job, _ in self.inflight.values()]

    async def finish(self, grace_s: float) -> None:
        """Let running jobs finish for ``grace_s``, then cancel the rest (they are released)."""
        tasks = [task for _, task in self.inflight.values()]
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def log_outcome(job: ClaimedJob, outcome: Outcome | None, seconds: float) -> None:
    """Log one structured line (logfmt) for a job's ending: ``outcome`` is the ledger event
    (``succeeded``, ``retry_scheduled``, ``dead``, …; ``lease_lost`` when the claim was lost), the
    attempt the one that ran (from 1). The error itself is not logged (it may quote a payload):
    ``cutover jobs show`` has it, redacted."""
    event = outcome.event if outcome is not None else "lease_lost"
    kind = outcome.error_kind if outcome is not None and outcome.error_kind is not None else "-"
    outcomes.info("job outcome automation=%s job=%s attempt=%d mode=%s outcome=%s duration_ms=%.1f error_kind=%s",
                  job.automation, job.id, job.attempt + 1, job.mode, event, seconds * 1000, kind)


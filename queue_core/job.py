"""Values that cross the queue's boundaries: what to enqueue, what a claim returns, an outcome."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from .states import ErrorKind, JobStatus, Mode


@dataclass(frozen=True)
class JobSpec:
    """A job to enqueue. ``payload`` is the trigger body and must be JSON-serialisable.

    ``concurrency_key``: at most ``concurrency_limit`` (default 1) jobs with this key run at once,
    across all workers; when None, the automation's declared key (read from the payload) applies.
    """

    automation: str
    payload: Any = field(default_factory=dict)
    priority: int = 0
    run_after: datetime | None = None
    mode: Mode | str = Mode.LIVE
    dedupe_key: str | None = None
    max_attempts: int = 20
    max_claims: int = 5
    trigger_id: str | None = None
    recording: str | None = None
    trigger_meta: dict[str, Any] = field(default_factory=dict)
    automation_version: int | None = None
    concurrency_key: str | None = None
    concurrency_limit: int | None = None


class ClaimedJob(NamedTuple):
    """A job this worker holds: valid while ``claim_count`` is still the job's fencing token.

    A NamedTuple rather than a frozen dataclass, like Outcome: a worker makes one of each per
    job, and a frozen dataclass's ``__init__`` (one ``object.__setattr__`` per field) cost
    several times more than the job's own bookkeeping. Immutable all the same.
    """

    id: uuid.UUID
    automation: str
    automation_version: int
    mode: Mode
    priority: int
    payload: Any
    trigger_meta: dict[str, Any]
    attempt: int
    max_attempts: int
    claim_count: int
    leased_until: datetime
    created_at: datetime
    trigger_id: str | None
    recording: str | None
    reclaimed: bool

    @property
    def key(self) -> tuple[uuid.UUID, int]:
        return (self.id, self.claim_count)


class Outcome(NamedTuple):
    """How one claim of a job ended; written by the completer, fenced by ``claim_count``.

    ``status`` is the job's next status (``pending`` for a retry, snooze or release); ``event``
    is the ledger kind; ``attempt_inc`` is 1 when the claim used up an attempt.
    """

    job_id: uuid.UUID
    claim_count: int
    status: JobStatus
    event: str
    attempt_inc: int = 1
    delay_s: float | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    trace: dict[str, Any] | None = None
    # Step rows and ledger events of a shadow/dry-run job, written with the outcome.
    deferred: dict[str, Any] | None = None

    @classmethod
    def succeeded(cls, job: ClaimedJob, trace: dict[str, Any] | None = None) -> Outcome:
        return cls(job.id, job.claim_count, JobStatus.SUCCEEDED, "succeeded", trace=trace)

    @classmethod
    def release(cls, job: ClaimedJob, reason: str = "released") -> Outcome:
        """Put the job back at once without using an attempt (worker shutting down)."""
        return cls(job.id, job.claim_count, JobStatus.PENDING, reason, attempt_inc=0, delay_s=0.0)


@dataclass(frozen=True)
class ChildOutcome:
    """How one child job ended (``ctx.wait_for_children``): its id, key, automation, status, error, recorded
    outputs and what it returned (its ``ctx:returned`` step)."""

    id: str
    key: str | None
    automation: str
    status: str
    error: str | None
    outputs: dict[str, Any] | None
    returned: Any = None  # the output of the child's ``ctx:returned`` step (None when it returned nothing)

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"

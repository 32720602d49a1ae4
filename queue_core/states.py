"""Job and step states, and execution modes; kept equal to the SQL enums by a test."""

from __future__ import annotations

from enum import StrEnum


class JobStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    WAITING = "waiting"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"
    COMPENSATING = "compensating"
    DEAD = "dead"
    COMPENSATION_FAILED = "compensation_failed"

    @property
    def is_final(self) -> bool:
        return self in _FINAL


_FINAL = frozenset({
    JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELED, JobStatus.DEAD,
    JobStatus.COMPENSATION_FAILED,
})


class StepStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    WAITING = "waiting"
    RETRYABLE_FAILED = "retryable_failed"
    TERMINAL_FAILED = "terminal_failed"
    DONE = "done"


class Mode(StrEnum):
    LIVE = "live"
    DRY_RUN = "dry_run"
    SHADOW = "shadow"


class ErrorKind(StrEnum):
    RETRYABLE = "retryable"
    TERMINAL = "terminal"

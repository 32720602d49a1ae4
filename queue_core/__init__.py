"""queue_core: a durable Postgres job queue and the runtime migrated automations run on."""

from __future__ import annotations

from ._waits import Resolution, WaitTimeoutError, WaitToken, WaitTokenError
from .context import Context, Trace, Trigger, upcaster
from .errors import (
    ConfigError,
    EnqueueError,
    Filtered,
    JobNotFoundError,
    JobSignal,
    LeaseLostError,
    ProvisionError,
    QueueError,
    RetryableError,
    Snooze,
    StepMismatchError,
    TerminalError,
    UnknownAutomationError,
)
from .job import ClaimedJob, JobSpec, Outcome
from .keys import child_key
from .queue import Queue
from .registry import Automation, Registry, automation, default_registry, discover
from .states import ErrorKind, JobStatus, Mode, StepStatus
from .worker import Worker, WorkerConfig

__all__ = [
    "Automation",
    "ClaimedJob",
    "ConfigError",
    "Context",
    "EnqueueError",
    "ErrorKind",
    "Filtered",
    "JobNotFoundError",
    "JobSignal",
    "JobSpec",
    "JobStatus",
    "LeaseLostError",
    "Mode",
    "Outcome",
    "ProvisionError",
    "Queue",
    "QueueError",
    "Registry",
    "Resolution",
    "RetryableError",
    "Snooze",
    "StepMismatchError",
    "StepStatus",
    "TerminalError",
    "Trace",
    "Trigger",
    "UnknownAutomationError",
    "WaitTimeoutError",
    "WaitToken",
    "WaitTokenError",
    "Worker",
    "WorkerConfig",
    "automation",
    "child_key",
    "default_registry",
    "discover",
    "upcaster",
]

"""queue_core: a durable Postgres job queue and the runtime migrated automations run on."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The public names load their module on first use (PEP 562), so that `cutover --help` and a
# program using one corner of the package do not pay for psycopg, httpx and the runtime.
if TYPE_CHECKING:
    from ._waits import Resolution, WaitToken
    from ._job_run import Trace
    from .context import Context, Trigger, upcaster
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
        WaitTimeoutError,
        WaitTokenError,
    )
    from .job import ClaimedJob, JobSpec, Outcome
    from .keys import child_key
    from .queue import Queue
    from .registry import Automation, Registry, automation, default_registry, discover
    from .states import ErrorKind, JobStatus, Mode, StepStatus
    from .worker import Worker, WorkerConfig

_LAZY = {
    "Automation": ".registry",
    "ClaimedJob": ".job",
    "ConfigError": ".errors",
    "Context": ".context",
    "EnqueueError": ".errors",
    "ErrorKind": ".states",
    "Filtered": ".errors",
    "JobNotFoundError": ".errors",
    "JobSignal": ".errors",
    "JobSpec": ".job",
    "JobStatus": ".states",
    "LeaseLostError": ".errors",
    "Mode": ".states",
    "Outcome": ".job",
    "ProvisionError": ".errors",
    "Queue": ".queue",
    "QueueError": ".errors",
    "Registry": ".registry",
    "Resolution": "._waits",
    "RetryableError": ".errors",
    "Snooze": ".errors",
    "StepMismatchError": ".errors",
    "StepStatus": ".states",
    "TerminalError": ".errors",
    "Trace": "._job_run",
    "Trigger": ".context",
    "UnknownAutomationError": ".errors",
    "WaitTimeoutError": ".errors",
    "WaitToken": "._waits",
    "WaitTokenError": ".errors",
    "Worker": ".worker",
    "WorkerConfig": ".worker",
    "automation": ".registry",
    "child_key": ".keys",
    "default_registry": ".registry",
    "discover": ".registry",
    "upcaster": ".context",
}

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


def __getattr__(name: str) -> Any:
    """Import a public name's module (or a submodule) the first time it is used."""
    module = _LAZY.get(name)
    if module is None:
        if name.startswith("__"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

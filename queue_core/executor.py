"""Run one claimed job and classify how it ended, as an Outcome value. No SQL here.

The executor calls the automation with its Context and maps what happens to an Outcome:

    returns normally          → succeeded
    ctx.filter(reason)        → succeeded, trace status "filtered"
    Snooze(delay)             → pending after delay, attempt not used
    TerminalError             → failed (terminal)
    RetryableError / anything → pending after backoff (or the error's delay), attempt used;
                                failed (retryable) once max_attempts is reached
    LeaseLostError            → no outcome: another worker owns the job now
"""

from __future__ import annotations

import random
import traceback
from typing import Any

from .context import Context
from .errors import Filtered, RetryableError, Snooze, TerminalError
from .job import ClaimedJob, Outcome
from .registry import Registry
from .retry import backoff_delay
from .states import ErrorKind, JobStatus, Mode

MAX_ERROR_CHARS = 2000


def _summary(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def classify(job: ClaimedJob, exc: BaseException | None, rng: random.Random) -> tuple[JobStatus, str, int, float | None, str | None, ErrorKind | None]:
    """Return (status, event, attempt_inc, delay_s, error, error_kind) for a run ending in ``exc``.

    Pure: depends only on the job's attempt counters, the exception and ``rng``.
    """
    if exc is None or isinstance(exc, Filtered):
        return JobStatus.SUCCEEDED, "succeeded", 1, None, None, None
    if isinstance(exc, Snooze):
        return JobStatus.PENDING, "snoozed", 0, max(0.0, exc.delay), exc.reason, None
    error = _summary(exc)
    if isinstance(exc, TerminalError):
        return JobStatus.FAILED, "failed", 1, None, error, ErrorKind.TERMINAL
    attempt = job.attempt + 1
    if attempt >= job.max_attempts:
        return JobStatus.FAILED, "failed", 1, None, f"attempts exhausted ({attempt}/{job.max_attempts}): {error}", ErrorKind.RETRYABLE
    delay = exc.delay if isinstance(exc, RetryableError) and exc.delay is not None else backoff_delay(attempt, rng)
    return JobStatus.PENDING, "retry_scheduled", 1, delay, error, ErrorKind.RETRYABLE


async def execute(job: ClaimedJob, ctx: Context, registry: Registry, rng: random.Random) -> Outcome:
    """Run ``job``'s automation with ``ctx`` and return its Outcome.

    LeaseLostError and cancellation propagate: the job is no longer this worker's to complete.
    """
    exc: BaseException | None = None
    try:
        auto = registry.get(job.automation)
        await auto.fn(ctx, ctx.trigger)
    except Exception as caught:  # classified below; LeaseLostError is re-raised
        from .errors import LeaseLostError

        if isinstance(caught, LeaseLostError):
            raise
        exc = caught
    status, event, inc, delay, error, kind = classify(job, exc, rng)
    trace = _trace(job, ctx, exc, status)
    return Outcome(job.id, job.claim_count, status, event, inc, delay, error, kind, trace)


def _trace(job: ClaimedJob, ctx: Context, exc: BaseException | None, status: JobStatus) -> dict[str, Any] | None:
    if Mode(job.mode) is Mode.LIVE:
        return None
    if isinstance(exc, Filtered):
        ctx.trace.status = "filtered"
        ctx.trace.error = exc.reason
    elif exc is not None and not isinstance(exc, Snooze):
        ctx.trace.status = "failed"
        ctx.trace.error = _summary(exc)
        trace = ctx.trace.as_dict()
        trace["exception"] = "".join(traceback.format_exception(exc))[-4000:]
        return trace
    return ctx.trace.as_dict()

"""Run one claimed job and classify how it ended, as an Outcome value. No SQL of its own.

The executor calls the automation with its Context and maps what happens to an Outcome:

    returns normally          → succeeded
    ctx.filter(reason)        → succeeded, trace status "filtered"
    Snooze(delay)             → pending after delay, attempt not used
    RateLimited (a 429)       → the same, a Snooze of its own: ledger event ``rate_limited``
    a wait (sleep/token/cond) → waiting until woken, attempt not used
    TerminalError             → failed (terminal) — after running the job's compensations,
                                if it registered any: compensating while they retry,
                                compensation_failed if one fails terminally
    QueueError (config, code) → failed (terminal): retrying cannot fix a configuration; so is
                                a payload without a field the automation ``requires`` (the
                                function is not run)
    RetryableError / anything → pending after backoff (or the error's delay), attempt used;
                                failed (retryable) once max_attempts is reached
    LeaseLostError            → no outcome: another worker owns the job now
"""

from __future__ import annotations

import logging
import random
import traceback
from datetime import datetime
from typing import Any

from .context import Context, job_run
from .errors import (
    Filtered,
    LeaseLostError,
    QueueError,
    RetryableError,
    Snooze,
    Suspend,
    TerminalError,
    WaitTimeoutError,
)
from .job import ClaimedJob, Outcome
from .registry import Registry
from .retry import backoff_delay
from .states import ErrorKind, JobStatus, Mode

MAX_ERROR_CHARS = 2000
FOREVER_S = 10 * 365 * 86400.0
log = logging.getLogger("cutover.executor")
Classified = tuple[JobStatus, str, int, float | None, str | None, ErrorKind | None]
_LIVE = Mode.LIVE.value


def _summary(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _retry_or_fail(job: ClaimedJob, exc: BaseException, rng: random.Random, *,
                   retry_status: JobStatus = JobStatus.PENDING, fail_status: JobStatus = JobStatus.FAILED,
                   prefix: str = "") -> Classified:
    error = prefix + _summary(exc)
    attempt = job.attempt + 1
    if attempt >= job.max_attempts:
        return (fail_status, fail_status.value, 1, None,
                f"attempts exhausted ({attempt}/{job.max_attempts}): {error}", ErrorKind.RETRYABLE)
    delay = exc.delay if isinstance(exc, RetryableError) and exc.delay is not None else backoff_delay(attempt, rng)
    event = "retry_scheduled" if retry_status is JobStatus.PENDING else "compensation_retry"
    return retry_status, event, 1, delay, error, ErrorKind.RETRYABLE


def classify(job: ClaimedJob, exc: BaseException | None, rng: random.Random, now: datetime | None = None) -> Classified:
    """Return (status, event, attempt_inc, delay_s, error, error_kind) for a run ending in ``exc``.

    Pure: depends only on the job's attempt counters, the exception, ``rng`` and ``now``.
    """
    if exc is None or isinstance(exc, Filtered):
        return JobStatus.SUCCEEDED, "succeeded", 1, None, None, None
    if isinstance(exc, Snooze):
        return JobStatus.PENDING, exc.kind, 0, max(0.0, exc.delay), exc.reason, None
    if isinstance(exc, Suspend):
        delay = FOREVER_S
        if isinstance(exc.wake_at, datetime) and now is not None:
            delay = max(0.0, (exc.wake_at - now).total_seconds())
        return JobStatus.WAITING, "waiting", 0, delay, str(exc), None
    if isinstance(exc, TerminalError | QueueError):
        return JobStatus.FAILED, "failed", 1, None, _summary(exc), ErrorKind.TERMINAL
    return _retry_or_fail(job, exc, rng)


async def execute(job: ClaimedJob, ctx: Context, registry: Registry, rng: random.Random) -> Outcome:
    """Run ``job``'s automation with ``ctx`` and return its Outcome.

    LeaseLostError and cancellation propagate: the job is no longer this worker's to complete.
    """
    exc: BaseException | None = None
    try:
        auto = registry.get(job.automation)
        if auto.requires:  # a MissingFieldError is a QueueError: failed once, terminally, not run
            auto.check_required(job.payload)
        await auto.fn(ctx, ctx.trigger)
    except LeaseLostError:
        raise
    except Exception as caught:  # classified below
        exc = caught
    if exc is None and ctx.mode == _LIVE:
        # The common case, without the general path's calls: live runs write through at once,
        # so there is no trace and nothing deferred to hand over.
        return Outcome(job.id, job.claim_count, JobStatus.SUCCEEDED, "succeeded")
    if isinstance(exc, TerminalError) and job_run(ctx).compensations and _compensable(exc):
        status, event, inc, delay, error, kind = await _compensate(job, ctx, exc, rng)
    else:
        # The clock is read only when a wait needs it (a no-op job never does).
        status, event, inc, delay, error, kind = classify(job, exc, rng, ctx.now() if isinstance(exc, Suspend) else None)
    run = job_run(ctx)
    redactor = run.redactor()  # an automation's error may quote what a provider echoed
    error = None if error is None else redactor.text(error)
    if status in _FAILED_FOR_GOOD and error is not None:
        await _start_error_automation(job, ctx, registry, error)
    trace = redactor.data(_trace(job, ctx, exc))
    return Outcome(job.id, job.claim_count, status, event, inc, delay, error, kind, trace, run.deferred_writes())


_FAILED_FOR_GOOD = frozenset({JobStatus.FAILED, JobStatus.DEAD, JobStatus.COMPENSATION_FAILED})
ERROR_AUTOMATION_KEY = "error-automation"


def failure_payload(job: ClaimedJob, ctx: Context, error: str) -> dict[str, Any]:
    """The payload of an error automation's job, shaped as n8n's Error Trigger item: ``execution``
    (``id``: the failed job, ``error.message``, ``lastNodeExecuted``: a scaffolded workflow's last
    recorded node, ``mode``: the job's) and ``workflow`` (``id`` and ``name``: the automation)."""
    nodes = list(ctx.trace.nodes)
    return {"execution": {"id": str(job.id), "url": None, "retryOf": None, "error": {"message": error},
                          "lastNodeExecuted": nodes[-1] if nodes else None, "mode": str(ctx.mode)},
            "workflow": {"id": job.automation, "name": job.automation}}


async def _start_error_automation(job: ClaimedJob, ctx: Context, registry: Registry, error: str) -> None:
    """Start the failed job's error automation once (a child keyed ``error-automation``: a rerun of
    this outcome finds the same child). A failure to start it is logged, never the job's outcome."""
    try:
        target = registry.get(job.automation).error_automation
    except QueueError:
        return
    if target is None:
        return
    try:
        await ctx.enqueue(target, failure_payload(job, ctx, error), key=ERROR_AUTOMATION_KEY)
    except LeaseLostError:
        raise
    except Exception as exc:  # the job failed either way; its outcome must still be written
        log.error("job %s: could not start its error automation %r: %s", job.id, target, type(exc).__name__)


def _compensable(exc: TerminalError) -> bool:
    return not isinstance(exc, WaitTimeoutError) or exc.compensate


async def _compensate(job: ClaimedJob, ctx: Context, cause: TerminalError, rng: random.Random) -> Classified:
    """Run the registered compensations in reverse, each a durable step; classify the result.

    A compensation that completed in an earlier attempt is not run again (its step is stored).
    """
    compensations = job_run(ctx).compensations
    names = [c.name for c in reversed(compensations)]
    await ctx.ledger("compensating", {"cause": _summary(cause), "compensations": names})
    for comp in reversed(compensations):
        try:
            await ctx.step(comp.name, comp.fn, *comp.args)
        except LeaseLostError:
            raise
        except TerminalError as exc:
            return (JobStatus.COMPENSATION_FAILED, "compensation_failed", 1, None,
                    f"{_summary(cause)}; compensation {comp.name} failed: {_summary(exc)}", ErrorKind.TERMINAL)
        except Exception as exc:  # retry the rollback later, from where it stopped
            return _retry_or_fail(job, exc, rng, retry_status=JobStatus.COMPENSATING,
                                  fail_status=JobStatus.COMPENSATION_FAILED,
                                  prefix=f"{_summary(cause)}; compensation {comp.name}: ")
    return (JobStatus.FAILED, "failed", 1, None,
            f"{_summary(cause)} (compensated: {', '.join(names)})", ErrorKind.TERMINAL)


def _trace(job: ClaimedJob, ctx: Context, exc: BaseException | None) -> dict[str, Any] | None:
    if ctx.mode == _LIVE:
        return None
    if isinstance(exc, Filtered):
        ctx.trace.status = "filtered"
        ctx.trace.error = exc.reason
    elif exc is not None and not isinstance(exc, Snooze | Suspend):
        ctx.trace.status = "failed"
        ctx.trace.error = _summary(exc)
        trace = ctx.trace.as_dict()
        trace["exception"] = "".join(traceback.format_exception(exc))[-4000:]
        return trace
    return ctx.trace.as_dict()

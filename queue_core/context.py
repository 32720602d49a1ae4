"""The Context an automation receives: the small surface automation authors write against.

The context is the one seam between automation code and the queue. A job's code runs from the top
on every attempt; what makes it durable is that each step, call, wait and compensation is
identified by (name, occurrence) at a position, stored when it completes, and handed back instead
of re-run on the next attempt. The machinery behind it (the positional sequence, the step store,
the gateway's call records) lives in the job handle, ``queue_core._job_run.JobRun``, which the
runtime's parts (children, pollers, waits, the executor) take instead of the whole Context.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from psycopg_pool import AsyncConnectionPool

from . import _children, _waits
from . import poller as poller_module
from ._job_run import Compensation, JobRun, Trace, jsonable
from .errors import Filtered, TerminalError
from .job import ChildOutcome, ClaimedJob
from .redaction import NO_SECRETS, Redactor
from .states import Mode

if TYPE_CHECKING:
    import httpx

    from .registry import Registry

_MODES = tuple(m.value for m in Mode)
# The step whose output is what a child returns to its waiting parent (``await ctx.step(RETURNED_STEP,
# lambda: value)``; children.sql reads it as ChildOutcome.returned).
RETURNED_STEP = "ctx:returned"
# The step a job's answer to its webhook caller is recorded under (ctx.respond; ingress.sql reads it).
RESPONSE_STEP = "ctx:response"

Clock = Callable[[], datetime]
Upcaster = Callable[[Any], Any]
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


def upcaster(step: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function migrating ``step``'s checkpoint from ``from_version`` to the next one."""
    def register(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(step, from_version)] = fn
        return fn
    return register


class Trigger(NamedTuple):
    """What started the job: the recorded or received delivery.

    Immutable; a NamedTuple like ClaimedJob, because one is made for every job run.
    """

    id: str | None
    received_at: str | None
    headers: dict[str, str]
    body: Any
    source: str | None
    # For a polled item (source "poll"): {"poller", "item", "at"}, the poll that found it, live
    # (ctx.start_new) and in a replay of a recorded polled item alike; None otherwise.
    poll: dict[str, Any] | None = None

    @classmethod
    def of(cls, job: ClaimedJob) -> Trigger:
        meta = job.trigger_meta
        if not meta:
            return cls(job.trigger_id or None, None, {}, job.payload, None)
        return cls(job.trigger_id or meta.get("id"), meta.get("received_at"), dict(meta.get("headers") or {}),
                   job.payload, meta.get("source"), _poll(meta))


def _poll(meta: dict[str, Any]) -> dict[str, Any] | None:
    if meta.get("source") != "poll":
        return None
    found = meta.get("poll")
    recorded: dict[str, Any] = found if isinstance(found, dict) else {}
    return {"poller": meta.get("poller", recorded.get("poller")), "item": meta.get("item_id", recorded.get("item")),
            "at": recorded.get("at") or meta.get("received_at")}


class Context:
    """Everything an automation may touch while its job runs: the authors' surface.

    What the job is: ``job_id``, ``automation``, ``mode`` (``live``, ``dry_run``, ``shadow``),
    ``attempt`` (1 on the first run), ``trigger`` (what started it; ``trigger_id`` its id),
    ``job`` (the claimed row), ``trace`` (the decision trace so far). What it may do, each
    durable across retries and reclaims:

    - ``call``: an outbound HTTP call through the provider gateway (budget, key, signing, modes);
      ``providers``: the providers it can call (name -> base URL);
    - ``step``: run a function once and memoise its output; ``checkpoint``/``last_checkpoint``
      keep a long step's progress;
    - ``decide``, ``filter``: a branch decision for the trace; stop the run as ``filtered``;
    - ``sleep``, ``sleep_until``, ``create_token``, ``wait_for_token``, ``wait_for``: wait
      without holding a worker, for a time, a person's decision or a SQL condition;
    - ``enqueue``, ``wait_for_children``: fan out child jobs and wait for them;
    - ``respond``: answer the webhook request that started the job (a source holding it);
    - ``poll_cursor``, ``start_new``: a polling trigger's cursor and its new items;
    - ``on_failure``: register a compensation; ``ledger``: append an event to the job's history;
    - ``now``, ``idempotency_key``: the job's clock (the trigger's time in a replay) and the key
      a step's call sends.

    Valid only during one claim of the job: every write it makes is fenced by the claim, and
    raises LeaseLostError, having written nothing, once the lease has ended or another worker has
    taken the job over. The runtime's own parts use the job handle behind it (``job_run(ctx)``).
    """

    def __init__(self, job: ClaimedJob, pool: AsyncConnectionPool, *, worker: str,
                 gateway: Any = None, clock: Clock = system_clock, registry: Registry | None = None) -> None:
        self.job = job
        self.job_id: uuid.UUID = job.id
        self.automation = job.automation
        mode = str(job.mode)  # a Mode is a StrEnum: str() is its value
        self.mode: str = mode if mode in _MODES else Mode(job.mode).value
        self.attempt = job.attempt + 1
        self.trigger = Trigger.of(job)
        self.trigger_id = self.trigger.id
        self._gateway = gateway
        self._children_waits = 0
        self._run = JobRun(job, pool, worker=worker, mode=self.mode, clock=clock, redactor=self._redactor,
                           registry=registry, trigger_id=self.trigger_id, received_at=self.trigger.received_at)
        if self.mode != Mode.LIVE.value:  # shadow/dry-run: note the fields each decision read
            body, headers = self._run.watch(self.trigger.body, self.trigger.headers)
            self.trigger = self.trigger._replace(body=body, headers=headers)

    @property
    def trace(self) -> Trace:
        """The decision trace of this run (status, path, decisions, calls, outputs, error)."""
        return self._run.trace

    def _redactor(self) -> Redactor:
        """The redaction of every secret the gateway knows (none without a gateway)."""
        found = getattr(self._gateway, "redactor", None)
        return found if isinstance(found, Redactor) else NO_SECRETS

    @property
    def providers(self) -> dict[str, str]:
        """Return {provider name: base_url} of the providers this worker calls (empty without a gateway)."""
        configured = getattr(self._gateway, "providers", None) or {}
        return {name: config.base_url for name, config in configured.items()}

    # -- time, keys, decisions -------------------------------------------------------------

    def now(self) -> datetime:
        """Return the current time: the real clock live, the trigger's time in a replay."""
        return self._run.now()

    def idempotency_key(self, step: str, occurrence: int = 0) -> str:
        """Return the child key of occurrence ``occurrence`` of ``step`` (see queue_core.keys).

        The same on every retry and reclaim: occurrence 0 in generation 0 is ``sha256(job_id:step)``.
        The job's key generation (raised by ``cutover jobs replay --new-keys``) is known from the
        job's first step, call or wait on; ``ctx.call`` always sends the key of its generation.
        """
        return self._run.key(step, occurrence)

    def decide(self, name: str, value: Any) -> None:
        """Record an explicit branch decision in the trace (last value wins for a repeated name).

        In shadow and dry-run mode the trace also keeps the trigger fields read before it
        (``trace.reads[name]``, see queue_core._reads): what a report shows as its cause.
        """
        self._run.decide(name, value)

    def filter(self, reason: str) -> None:
        """Stop the run here as ``filtered``, as a legacy filter step would."""
        raise Filtered(reason)

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        """Append an entry to this job's ledger (never put secrets in ``detail``).

        Fenced by the claim like every write of the job: raises LeaseLostError, having written
        nothing, once the lease has ended or another worker has taken the job over.
        """
        await self._run.ledger(kind, detail)

    # -- outbound calls --------------------------------------------------------------------

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        """Make an outbound call through the provider gateway; return the response.

        Keyword arguments: ``json`` or ``data`` (a form; with ``files``, a multipart form) or ``content`` (raw bytes),
        ``params``, ``headers``, ``scope_key`` (a key-scoped budget's tenant), ``anonymous`` (sent without the
        provider's secret: a session URL the provider handed out). The gateway spends the provider's rate budget, sends the
        step's idempotency key, signs, classifies the answer and acts by mode (queue_core.gateway);
        the call is stored with its ledger event in one statement, so a retry returns the stored
        response of a call that succeeded instead of calling again. Raises RetryableError,
        TerminalError, Snooze/RateLimited (no attempt used) as the answer says.
        """
        if self._gateway is None:
            raise TerminalError(
                f"step {step!r}: no provider gateway is configured for this worker "
                "([tool.cutover.providers] in pyproject.toml)"
            )
        occurrence, position, _ = await self._run.enter(step)
        record = await self._gateway.call(self._run.call_job(position), provider, method, url, step=step,
                                          occurrence=occurrence, **kwargs)
        return await self._run.settle_call(record, position)

    # -- memoised steps and checkpoints ----------------------------------------------------

    async def step(self, name: str, fn: Callable[..., Any], *args: Any, version: int = 1) -> Any:
        """Run ``fn(*args)`` once for this job and return its (JSON) output.

        A step identified by (name, occurrence) that completed in an earlier attempt returns its
        stored output without running; one that failed terminally raises the same typed error
        again. A different step name or version at a recorded position raises
        StepMismatchError. The attempt count is committed before ``fn`` runs.
        """
        return await self._run.step(name, fn, *args, version=version)

    async def checkpoint(self, data: Any, *, version: int = 1) -> None:
        """Persist progress of the running step (a cursor, the last row id) at ``version``."""
        if self._run.current is None:
            raise TerminalError("ctx.checkpoint() is only allowed inside a ctx.step() function")
        await self._run.store.checkpoint(*self._run.current, jsonable(data), version)

    def last_checkpoint(self, *, version: int = 1) -> Any:
        """Return the running step's last checkpoint from an earlier attempt (None if none),
        migrated to ``version`` through the registered upcasters."""
        run = self._run
        if run.current is None or run.steps is None:
            return None
        rec = run.steps.get(run.current)
        if rec is None or rec.checkpoint is None:
            return None
        data, at = rec.checkpoint, rec.checkpoint_version or 1
        while at < version:
            fn = _UPCASTERS.get((rec.name, at))
            if fn is None:
                raise TerminalError(f"step {rec.name!r}: no upcaster from checkpoint version {at} to {at + 1}")
            data, at = fn(data), at + 1
        return data

    # -- waits (queue_core._waits) ---------------------------------------------------------

    async def sleep(self, duration: timedelta | float) -> None:
        """Sleep durably: the job releases its worker and resumes after ``duration``."""
        seconds = duration.total_seconds() if isinstance(duration, timedelta) else float(duration)
        await _waits.sleep(self._run, "sleep", lambda: self.now() + timedelta(seconds=seconds))

    async def sleep_until(self, when: datetime) -> None:
        """Sleep durably until ``when`` (timezone-aware)."""
        await _waits.sleep(self._run, "sleep", lambda: when)

    async def create_token(self, name: str) -> _waits.WaitToken:
        """Return the token (and resume URL) that resolves wait ``name``; the same on every attempt."""
        return await _waits.token_of(self._run, name)

    async def wait_for_token(self, name: str, *, timeout: timedelta | None = None,
                             on_timeout: str = "fail") -> _waits.Resolution:
        """Wait (no worker held) until the token of ``name`` is resolved, then return the decision.

        A token resolved before the job gets here is not lost. On timeout the declared action
        runs: ``fail`` fails the job, ``compensate`` runs its compensations first.
        """
        return await _waits.wait_for_token(self._run, name, timeout, on_timeout)

    async def wait_for(self, predicate: str, params: dict[str, Any] | None = None, *, name: str = "condition",
                       timeout: timedelta | None = None, on_timeout: str = "fail") -> _waits.Resolution:
        """Wait until the SQL ``predicate`` (a query) returns a row; workers recheck it on
        NOTIFY ``cutover_waits`` and periodically."""
        return await _waits.wait_for(self._run, predicate, params or {}, name, timeout, on_timeout)

    # -- fan-out and polling (queue_core._children, queue_core.poller) ----------------------

    async def enqueue(self, automation: str, payload: Any = None, *, key: str) -> uuid.UUID:
        """Enqueue a child job of ``automation`` once per (this job, ``key``); return its id.

        A step at a position: a retry or reclaim returns the same child id and enqueues nothing.
        The child inherits this job's mode; live, it commits with the step row in one
        transaction fenced by this job's claim. See queue_core._children.
        """
        return await _children.enqueue(self._run, automation, {} if payload is None else payload, key)

    async def wait_for_children(self, *, policy: str = "fail",
                                timeout: timedelta | None = None) -> list[ChildOutcome]:
        """Wait (no worker held) until every child enqueued so far is finished; return their outcomes.

        ``fail``: a child that did not succeed fails this job terminally (ChildFailedError naming
        them); ``collect``: the outcomes are returned whatever they are.
        """
        self._children_waits += 1
        return await _children.wait_for_children(self._run, policy, timeout, self._children_waits - 1)

    async def respond(self, status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> None:
        """Answer the webhook request that started this job (a source with ``respond_timeout_s``
        holds it until this): ``status``, ``body`` (JSON, or text) and ``headers``. A memoised step
        (``ctx:response``): a retry does not answer twice, and only the first answer counts."""
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise TerminalError(f"ctx.respond: status must be an HTTP status 100-599, got {status!r}")
        answer = {"status": status, "headers": {str(k): str(v) for k, v in (headers or {}).items()}, "body": body}
        await self._run.step(RESPONSE_STEP, lambda: answer)

    async def poll_cursor(self, *, poller: str | None = None, default: Any = None) -> Any:
        """Return the poller's durable cursor (memoised: the same on every attempt of this job)."""
        return await poller_module.poll_cursor(self._run, poller or self.automation, default)

    async def start_new(self, target: str, items: list[Any], *, id_of: Callable[[Any], Any], cursor: Any,
                        poller: str | None = None, keep_last: int = 10_000,
                        keep_for: timedelta | None = None) -> list[str]:
        """Start one ``target`` job per item not seen before, advance the cursor; return the new ids.

        One transaction, exactly once per item id within the bounded seen-id record
        (``keep_last`` newest ids, and none older than ``keep_for``). See queue_core.poller.
        """
        return await poller_module.start_new(self._run, target, items, id_of=id_of, cursor=cursor,
                                             poller=poller or self.automation, keep_last=keep_last, keep_for=keep_for)

    # -- compensation ----------------------------------------------------------------------

    def on_failure(self, fn: Callable[..., Any], *args: Any) -> None:
        """Register ``fn(*args)`` to undo what follows, should a later step fail terminally.

        Compensations run in reverse order of registration, each as a durable step with its
        own idempotency key (``compensate:<name>:<n>``) and retries.
        """
        compensations = self._run.compensations
        compensations.append(Compensation(f"compensate:{getattr(fn, '__name__', 'fn')}:{len(compensations)}", fn, args))


def job_run(ctx: Context) -> JobRun:
    """Return the job handle behind ``ctx``: for the runtime (the executor, tests), not for authors."""
    return ctx._run

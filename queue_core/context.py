"""The Context an automation receives: its job, its trigger, memoised steps, waits, decisions, calls.

The context is the one seam between automation code and the queue. A job's code runs from the top
on every attempt; what makes it durable is that each step, call, wait and compensation is
identified by (name, occurrence) at a position, stored when it completes, and handed back instead
of re-run on the next attempt. The context also keeps the job's decision trace (status, path,
decisions, calls, outputs, error), which shadow and dry-run jobs store for the harness.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from psycopg_pool import AsyncConnectionPool

from . import _waits
from ._sql import q
from ._steps import StepRecord, StepStore
from .errors import Filtered, LeaseLostError, StepMismatchError, Suspend, TerminalError, WaitTimeoutError
from .job import ChildOutcome, ClaimedJob
from .keys import child_key
from .queue import ALL_MODES
from .redaction import NO_SECRETS, Redactor
from .states import Mode, StepStatus

if TYPE_CHECKING:
    import httpx

    from .registry import Registry

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


@dataclass
class Trace:
    """The decision trace of one run, as the harness compares it."""

    status: str = "succeeded"
    path: list[str] = field(default_factory=list)
    decisions: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status, "path": self.path, "decisions": self.decisions,
            "calls": self.calls, "outputs": self.outputs, "error": self.error,
        }


@dataclass(frozen=True)
class Compensation:
    """An undo action registered with ``ctx.on_failure``; run as a durable step when needed."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]


class Context:
    """Everything an automation may touch while its job runs.

    Valid only during one claim of the job: every write it makes (steps, checkpoints, waits,
    children, polls, ledger events, calls) is fenced by the claim, and raises LeaseLostError,
    having written nothing, once the lease has ended or another worker has taken the job over.
    """

    def __init__(self, job: ClaimedJob, pool: AsyncConnectionPool, *, worker: str,
                 gateway: Any = None, clock: Clock = system_clock, registry: Registry | None = None) -> None:
        self.job = job
        self.job_id: uuid.UUID = job.id
        self.automation = job.automation
        mode = str(job.mode)  # a Mode is a StrEnum: str() is its value
        self.mode: str = mode if mode in ALL_MODES else Mode(job.mode).value
        self.attempt = job.attempt + 1
        self.trigger = Trigger.of(job)
        self.trigger_id = self.trigger.id
        self.compensations: list[Compensation] = []
        self._pool = pool
        self._worker = worker
        self._gateway = gateway
        self._clock = clock
        self._steps: dict[tuple[str, int], StepRecord] | None = None
        self._occurrences: defaultdict[str, int] = defaultdict(int)
        self._position = 0
        self._current: tuple[str, int] | None = None
        self._call_positions: dict[tuple[str, int], int] = {}
        self._secret: str | None = None
        self._registry = registry  # validates child and polled jobs (their automation's version, key)
        self._children_waits = 0

    # The trace and the step store are made on first use: a job that takes no step and makes
    # no decision (most live runs of a simple automation) never pays for either.

    @cached_property
    def trace(self) -> Trace:
        """The decision trace of this run (status, path, decisions, calls, outputs, error)."""
        return Trace()

    @cached_property
    def _store(self) -> StepStore:
        return StepStore(self._pool, self.job_id, self.job.claim_count, deferred=self.mode != Mode.LIVE.value,
                         redactor=self.redactor)

    def redactor(self) -> Redactor:
        """Return the redaction of every secret the gateway knows (none without a gateway).

        Everything this job stores goes through it: its steps and ledger (the step store), its
        error and decision trace (the executor's outcome).
        """
        found = getattr(self._gateway, "redactor", None)
        return found if isinstance(found, Redactor) else NO_SECRETS

    # -- time, keys, decisions -------------------------------------------------------------

    def now(self) -> datetime:
        """Return the current time: the real clock live, the trigger's time in a replay."""
        return self._clock()

    def idempotency_key(self, step: str, occurrence: int = 0) -> str:
        """Return the child key of occurrence ``occurrence`` of ``step`` (see queue_core.keys).

        The same on every retry and reclaim: occurrence 0 in generation 0 is ``sha256(job_id:step)``.
        The job's key generation (raised by ``cutover jobs replay --new-keys``) is known from the
        job's first step, call or wait on; ``ctx.call`` always sends the key of its generation.
        """
        return child_key(self.job_id, step, occurrence, self._store.generation)

    def decide(self, name: str, value: Any) -> None:
        """Record an explicit branch decision in the trace (last value wins for a repeated name)."""
        self.trace.decisions[name] = value

    def filter(self, reason: str) -> None:
        """Stop the run here as ``filtered``, as a legacy filter step would."""
        raise Filtered(reason)

    def record_intent(self, intent: dict[str, Any]) -> None:
        """Append an outbound call (an intent in shadow/dry-run) to the decision trace."""
        self.trace.calls.append(intent)

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        """Append an entry to this job's ledger (never put secrets in ``detail``).

        Fenced by the claim like every write of the job: raises LeaseLostError, having written
        nothing, once the lease has ended or another worker has taken the job over.
        """
        await self._store.ledger(kind, self._worker, detail)

    def deferred_writes(self) -> dict[str, Any] | None:
        """The step rows and ledger events a shadow/dry-run job writes with its outcome."""
        return self._store.pending() if "_store" in self.__dict__ else None

    # -- the positional sequence -----------------------------------------------------------

    async def _enter(self, name: str, version: int = 1) -> tuple[int, int, StepRecord | None]:
        """Take the next position for (name, next occurrence); check it against what is stored.

        Raises StepMismatchError when an earlier attempt recorded another step at this position
        or this step at another version: the code changed under a running job.
        """
        if "\n" in name:
            raise TerminalError(f"step name {name!r} contains a line break (not allowed: see queue_core.keys)")
        occurrence = self._occurrences[name]
        self._occurrences[name] += 1
        position = self._position
        self._position += 1
        steps = await self._loaded()
        at_position = next((s for s in steps.values() if s.position == position), None)
        if at_position is not None and (at_position.name, at_position.occurrence) != (name, occurrence):
            raise StepMismatchError(position, at_position.name, name)
        stored = steps.get((name, occurrence))
        if stored is not None and stored.version != version:
            raise StepMismatchError(position, f"{name} v{stored.version}", f"{name} v{version}")
        self.trace.path.append(name)
        return occurrence, position, stored

    async def _loaded(self) -> dict[tuple[str, int], StepRecord]:
        if self._steps is None:
            fresh = self.job.attempt == 0 and self.job.claim_count == 1 and not self.job.reclaimed
            self._steps = {} if fresh else await self._store.load()
        return self._steps

    async def _record(self, name: str, occurrence: int, position: int, version: int,
                      status: StepStatus, output: Any = None) -> None:
        """Store a step's result in one go (begin + finish) and remember it for this attempt."""
        await self._store.begin(name, occurrence, position, version, None)
        await self._store.finish(name, occurrence, status, output)
        if self._steps is not None:
            self._steps[(name, occurrence)] = StepRecord(name, occurrence, position, version, status, 1, output, None)

    # -- outbound calls --------------------------------------------------------------------

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        """Make an outbound call through the provider gateway (rate budget, idempotency key,
        signing, failure classification, mode handling). See queue_core.gateway."""
        if self._gateway is None:
            raise TerminalError(
                f"step {step!r}: no provider gateway is configured for this worker "
                "([tool.cutover.providers] in pyproject.toml)"
            )
        occurrence, position, _ = await self._enter(step)
        self._call_positions[(step, occurrence)] = position
        response: httpx.Response = await self._gateway.call(self, provider, method, url, step=step,
                                                            occurrence=occurrence, **kwargs)
        return response

    async def load_call(self, step: str, occurrence: int = 0) -> Any:
        """Return the stored record of call (``step``, ``occurrence``) from an earlier attempt, else None.

        A call sent but never settled (the worker died waiting for the answer) returns its
        fingerprint-only record, so a changed request is still caught as a conflict.
        """
        rec = (await self._loaded()).get((step, occurrence))
        if rec is None or rec.status not in (StepStatus.DONE, StepStatus.RUNNING):
            return None
        return rec.output

    async def begin_call(self, step: str, occurrence: int, stored: Any) -> int:
        """Put a live call on record before it is sent: its fingerprint, attempt + 1 (fenced)."""
        position = self._call_positions.get((step, occurrence), -1)
        record = _jsonable(stored)
        attempt = await self._store.begin_call(step, occurrence, position, stored.idempotency_key, record)
        self._remember_call(step, occurrence, position, StepStatus.RUNNING, attempt, record)
        return attempt

    async def finish_call(self, step: str, occurrence: int, stored: Any, external_ref: str | None,
                          kind: str, detail: dict[str, Any]) -> int:
        """Store the call's outcome and its ``kind`` ledger event in one transaction (fenced)."""
        position = self._call_positions.get((step, occurrence), -1)
        record = _jsonable(stored)
        attempt = await self._store.settle_call(step, occurrence, position, stored.idempotency_key, record,
                                                external_ref, (kind, self._worker, detail))
        self._remember_call(step, occurrence, position, StepStatus.DONE, attempt, record)
        return attempt

    def _remember_call(self, step: str, occurrence: int, position: int, status: StepStatus, attempt: int,
                       record: Any) -> None:
        if self._steps is not None:
            self._steps[(step, occurrence)] = StepRecord(step, occurrence, position, 1, status, attempt, record, None)

    # -- memoised steps and checkpoints ----------------------------------------------------

    async def step(self, name: str, fn: Callable[..., Any], *args: Any, version: int = 1) -> Any:
        """Run ``fn(*args)`` once for this job and return its (JSON) output.

        A step identified by (name, occurrence) that completed in an earlier attempt returns its
        stored output without running; one that failed terminally raises the same typed error
        again. A different step name or version at a recorded position raises
        StepMismatchError. The attempt count is committed before ``fn`` runs.
        """
        occurrence, position, stored = await self._enter(name, version)
        if stored is not None and stored.status is StepStatus.DONE:
            return stored.output
        if stored is not None and stored.status is StepStatus.TERMINAL_FAILED:
            raise _retyped(stored)
        await self._store.begin(name, occurrence, position, version, _input_hash(args))
        self._current = (name, occurrence)
        try:
            result = fn(*args)
            if inspect.isawaitable(result):
                result = await result
        except LeaseLostError:
            raise  # the claim is gone: nothing more to record, and no write would land
        except TerminalError as exc:
            await self._store.finish(name, occurrence, StepStatus.TERMINAL_FAILED, None, str(exc), _type_path(exc))
            raise
        except Exception as exc:
            await self._store.finish(name, occurrence, StepStatus.RETRYABLE_FAILED, None, f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self._current = None
        output = _jsonable(result)
        await self._store.finish(name, occurrence, StepStatus.DONE, output)
        return output

    async def checkpoint(self, data: Any, *, version: int = 1) -> None:
        """Persist progress of the running step (a cursor, the last row id) at ``version``."""
        if self._current is None:
            raise TerminalError("ctx.checkpoint() is only allowed inside a ctx.step() function")
        await self._store.checkpoint(*self._current, _jsonable(data), version)

    def last_checkpoint(self, *, version: int = 1) -> Any:
        """Return the running step's last checkpoint from an earlier attempt (None if none),
        migrated to ``version`` through the registered upcasters."""
        if self._current is None or self._steps is None:
            return None
        rec = self._steps.get(self._current)
        if rec is None or rec.checkpoint is None:
            return None
        data, at = rec.checkpoint, rec.checkpoint_version or 1
        while at < version:
            fn = _UPCASTERS.get((rec.name, at))
            if fn is None:
                raise TerminalError(f"step {rec.name!r}: no upcaster from checkpoint version {at} to {at + 1}")
            data, at = fn(data), at + 1
        return data

    # -- waits -----------------------------------------------------------------------------

    async def sleep(self, duration: timedelta | float) -> None:
        """Sleep durably: the job releases its worker and resumes after ``duration``."""
        seconds = duration.total_seconds() if isinstance(duration, timedelta) else float(duration)
        await self._sleep("sleep", lambda: self.now() + timedelta(seconds=seconds))

    async def sleep_until(self, when: datetime) -> None:
        """Sleep durably until ``when`` (timezone-aware)."""
        await self._sleep("sleep", lambda: when)

    async def _sleep(self, name: str, wake: Callable[[], datetime]) -> None:
        occurrence, position, stored = await self._enter(name)
        if stored is not None and stored.status is StepStatus.DONE:
            return
        wake_at = datetime.fromisoformat(stored.output["wake_at"]) if stored and stored.output else wake()
        if self.now() >= wake_at:
            await self._record(name, occurrence, position, 1, StepStatus.DONE, {"wake_at": wake_at.isoformat()})
            return
        if stored is None:
            await self._record(name, occurrence, position, 1, StepStatus.WAITING, {"wake_at": wake_at.isoformat()})
        raise Suspend(f"timer until {wake_at.isoformat()}", wake_at)

    async def create_token(self, name: str) -> _waits.WaitToken:
        """Return the token (and resume URL) that resolves wait ``name``; the same on every attempt."""
        return _waits.make_token(await self._wait_secret(), self.job_id, name)

    async def wait_for_token(self, name: str, *, timeout: timedelta | None = None,
                             on_timeout: str = "fail") -> _waits.Resolution:
        """Wait (no worker held) until the token of ``name`` is resolved, then return the decision.

        A token resolved before the job gets here is not lost. On timeout the declared action
        runs: ``fail`` fails the job, ``compensate`` runs its compensations first.
        """
        if on_timeout not in ("fail", "compensate"):
            raise TerminalError(f"wait {name!r}: on_timeout must be 'fail' or 'compensate'")
        token = await self.create_token(name)
        wake_at = self.now() + timeout if timeout is not None else None
        res = await self._wait(f"token:{name}", name, "token", wake_at, on_timeout, None, None,
                               _waits.token_hash(token.token))
        return _waits.Resolution(res.name, res.decision, res.payload, token.token, token.resume_url)

    async def wait_for(self, predicate: str, params: dict[str, Any] | None = None, *, name: str = "condition",
                       timeout: timedelta | None = None, on_timeout: str = "fail") -> _waits.Resolution:
        """Wait until the SQL ``predicate`` (a query) returns a row; workers recheck it on
        NOTIFY ``cutover_waits`` and periodically."""
        async with self._pool.connection() as conn:
            holds = await (await conn.execute(predicate, params or {})).fetchone() is not None
        wake_at = self.now() + timeout if timeout is not None else None
        return await self._wait(f"event:{name}", name, "event", wake_at, on_timeout, predicate,
                                params or {}, None, holds_now=holds)

    async def _wait(self, step: str, name: str, kind: str, wake_at: datetime | None, on_timeout: str,
                    predicate: str | None, params: dict[str, Any] | None, token_hash: str | None,
                    holds_now: bool = False) -> _waits.Resolution:
        occurrence, position, stored = await self._enter(step)
        if stored is not None and stored.status is StepStatus.DONE:
            return _waits.Resolution(name, stored.output.get("decision"), stored.output.get("payload"))
        row = await self._register_wait(name, kind, token_hash, wake_at, on_timeout, predicate, params)
        resolved_at, decision, payload = row[3], row[4], row[5]
        if resolved_at is None and holds_now:
            resolved_at, decision = self.now(), "condition_met"
        if resolved_at is not None:
            await self._record(step, occurrence, position, 1, StepStatus.DONE, {"decision": decision, "payload": payload})
            return _waits.Resolution(name, decision, payload)
        deadline = row[1]
        if deadline is not None and self.now() >= deadline:
            raise WaitTimeoutError(name, compensate=row[2] == "compensate")
        raise Suspend(f"{kind} {name!r}", deadline)

    async def _register_wait(self, name: str, kind: str, token_hash: str | None, wake_at: datetime | None,
                             on_timeout: str, predicate: str | None, params: Any) -> tuple[Any, ...]:
        sql_params = {
            "job_id": self.job_id, "claim": self.job.claim_count, "name": name, "kind": kind,
            "token_hash": token_hash, "wake_at": wake_at, "on_timeout": on_timeout,
            "predicate": predicate, "params": json.dumps(params) if params is not None else None,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(q("steps", "register_wait"), sql_params)).fetchone()
        if row is None:
            raise LeaseLostError(self.job_id, self.job.claim_count)
        return tuple(row)

    async def _wait_secret(self) -> str:
        if self._secret is None:
            async with self._pool.connection() as conn:
                row = await (await conn.execute(q("steps", "wait_secret"))).fetchone()
            if row is None:
                raise TerminalError("no wait-token secret in cutover_secrets; run `cutover migrate`")
            self._secret = str(row[0])
        return self._secret

    # -- fan-out and polling (queue_core._children, queue_core.poller) ----------------------

    async def enqueue(self, automation: str, payload: Any = None, *, key: str) -> uuid.UUID:
        """Enqueue a child job of ``automation`` once per (this job, ``key``); return its id.

        A step at a position: a retry or reclaim returns the same child id and enqueues nothing.
        The child inherits this job's mode; live, it commits with the step row in one
        transaction fenced by this job's claim. See queue_core._children.
        """
        from . import _children

        return await _children.enqueue(self, automation, {} if payload is None else payload, key)

    async def wait_for_children(self, *, policy: str = "fail",
                                timeout: timedelta | None = None) -> list[ChildOutcome]:
        """Wait (no worker held) until every child enqueued so far is finished; return their outcomes.

        ``fail``: a child that did not succeed fails this job terminally (ChildFailedError naming
        them); ``collect``: the outcomes are returned whatever they are.
        """
        from . import _children

        self._children_waits += 1
        return await _children.wait_for_children(self, policy, timeout, self._children_waits - 1)

    async def poll_cursor(self, *, poller: str | None = None, default: Any = None) -> Any:
        """Return the poller's durable cursor (memoised: the same on every attempt of this job)."""
        from . import poller as _poller

        return await _poller.poll_cursor(self, poller or self.automation, default)

    async def start_new(self, target: str, items: list[Any], *, id_of: Callable[[Any], Any], cursor: Any,
                        poller: str | None = None, keep_last: int = 10_000,
                        keep_for: timedelta | None = None) -> list[str]:
        """Start one ``target`` job per item not seen before, advance the cursor; return the new ids.

        One transaction, exactly once per item id within the bounded seen-id record
        (``keep_last`` newest ids, and none older than ``keep_for``). See queue_core.poller.
        """
        from . import poller as _poller

        return await _poller.start_new(self, target, items, id_of=id_of, cursor=cursor,
                                       poller=poller or self.automation, keep_last=keep_last, keep_for=keep_for)

    # -- compensation ----------------------------------------------------------------------

    def on_failure(self, fn: Callable[..., Any], *args: Any) -> None:
        """Register ``fn(*args)`` to undo what follows, should a later step fail terminally.

        Compensations run in reverse order of registration, each as a durable step with its
        own idempotency key (``compensate:<name>:<n>``) and retries.
        """
        name = f"compensate:{getattr(fn, '__name__', 'fn')}:{len(self.compensations)}"
        self.compensations.append(Compensation(name, fn, args))


def _type_path(exc: BaseException) -> str:
    return f"{type(exc).__module__}:{type(exc).__qualname__}"


def _retyped(stored: StepRecord) -> TerminalError:
    """Rebuild the typed terminal error a step failed with (TerminalError when it can't be)."""
    message = stored.error or f"step {stored.name!r} failed terminally"
    if stored.error_type and ":" in stored.error_type:
        import importlib

        module, _, qual = stored.error_type.partition(":")
        try:
            cls: Any = importlib.import_module(module)
            for part in qual.split("."):
                cls = getattr(cls, part)
            if isinstance(cls, type) and issubclass(cls, TerminalError):
                err = cls.__new__(cls)
                TerminalError.__init__(err, message)
                return err
        except (ImportError, AttributeError):
            pass
    return TerminalError(message)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "as_json"):  # it knows its JSON form (StoredCall): no deep copy, no round trip
        return value.as_json()
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        value = dataclasses.asdict(value)
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise TerminalError(f"step output is not JSON-serialisable: {exc}") from None


def _input_hash(args: tuple[Any, ...]) -> str | None:
    if not args:
        return None
    try:
        text = json.dumps(args, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        text = repr(args)
    return hashlib.sha256(text.encode()).hexdigest()[:32]

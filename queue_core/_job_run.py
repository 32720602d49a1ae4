"""The job handle: one claim of one job as the runtime's parts see it (steps, calls, waits, children).

An automation sees a ``Context``; the parts behind it (children, pollers, waits, the gateway's
calls, the executor) get this narrower handle instead: the claimed job, its pool and store, and
the positional sequence that makes a job durable. Its code runs from the top on every attempt;
each step, call, wait and child is identified by (name, occurrence) at a position, stored when it
completes, and handed back instead of re-run on the next attempt (``enter``). Nothing here is
meant for automation authors, and nothing here imports the Context: the parts depend on the
handle, the Context on them.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from .errors import LeaseLostError, StepMismatchError, TerminalError
from .job import ClaimedJob
from ._reads import ReadLog, watch
from .keys import child_key
from .redaction import Redactor
from .states import Mode, StepStatus
from .store.steps import StepRecord, StepStore

if TYPE_CHECKING:
    import httpx

    from .budget import Checkout
    from .gateway.record import CallRecord, Spend
    from .gateway.request import StoredCall
    from .registry import Registry

Clock = Callable[[], datetime]


@dataclass
class Trace:
    """The decision trace of one run, as the harness compares it."""

    status: str = "succeeded"
    path: list[str] = field(default_factory=list)
    decisions: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    # A scaffolded workflow's node outputs (queue_core.compat.n8n.Flow): node -> one list of item
    # json per output index. Absent from as_dict() when empty, so other traces read as before.
    nodes: dict[str, Any] = field(default_factory=dict)
    # Per decision, the trigger fields the run had read when it decided (queue_core._reads):
    # decision -> {"body.issue.title": value}. Shadow and dry-run only; absent when empty.
    reads: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = {
            "status": self.status, "path": self.path, "decisions": self.decisions,
            "calls": self.calls, "outputs": self.outputs, "error": self.error,
        }
        if self.nodes:
            out["nodes"] = self.nodes
        if self.reads:
            out["reads"] = self.reads
        return out


@dataclass(frozen=True)
class Compensation:
    """An undo action registered with ``ctx.on_failure``; run as a durable step when needed."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]


class JobRun:
    """One claim of one job: its store, its positional sequence and its decision trace.

    Valid only during the claim: every write (steps, checkpoints, waits, children, polls, ledger
    events, calls) is fenced by it, and raises LeaseLostError, having written nothing, once the
    lease has ended or another worker has taken the job over.
    """

    def __init__(self, job: ClaimedJob, pool: AsyncConnectionPool, *, worker: str, mode: str, clock: Clock,
                 redactor: Callable[[], Redactor], registry: Registry | None, trigger_id: str | None,
                 received_at: str | None) -> None:
        self.job = job
        self.job_id: uuid.UUID = job.id
        self.automation = job.automation
        self.mode = mode
        self.pool = pool
        self.worker = worker
        self.clock = clock
        self.redactor = redactor
        self.registry = registry  # validates child and polled jobs (their automation's version, key)
        self.trigger_id = trigger_id
        self.received_at = received_at
        self.steps: dict[tuple[str, int], StepRecord] | None = None
        self.current: tuple[str, int] | None = None  # the step whose function runs now
        self.compensations: list[Compensation] = []  # ctx.on_failure's, run by the executor
        self.wait_secret: str | None = None  # the wait-token secret, read once (queue_core._waits)
        self._occurrences: defaultdict[str, int] = defaultdict(int)
        self._position = 0
        self.read_log: ReadLog | None = None  # the trigger fields read (shadow/dry-run; see watch)

    # The trace and the step store are made on first use: a job that takes no step and makes
    # no decision (most live runs of a simple automation) never pays for either.

    @cached_property
    def trace(self) -> Trace:
        return Trace()

    @cached_property
    def store(self) -> StepStore:
        return StepStore(self.pool, self.job_id, self.job.claim_count, deferred=self.mode != Mode.LIVE.value,
                         redactor=self.redactor)

    def now(self) -> datetime:
        return self.clock()

    # -- decisions and the trigger fields behind them ----------------------------------------

    def watch(self, body: Any, headers: dict[str, str]) -> tuple[Any, dict[str, str]]:
        """Return read-noting views of the trigger's body and headers (queue_core._reads), from
        which each later decision records the fields read before it; the Context uses it off live."""
        self.read_log = ReadLog()
        return watch(body, headers, self.read_log)

    def decide(self, name: str, value: Any) -> None:
        """Record a branch decision (last value wins) with the trigger fields read before it."""
        self.trace.decisions[name] = value
        if self.read_log is not None:
            self.trace.reads[name] = self.read_log.snapshot()

    def key(self, name: str, occurrence: int = 0) -> str:
        """Return the child key of (name, occurrence) in the job's key generation."""
        return child_key(self.job_id, name, occurrence, self.store.generation)

    def lease_lost(self) -> LeaseLostError:
        return LeaseLostError(self.job_id, self.job.claim_count)

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        await self.store.ledger(kind, self.worker, detail)

    def deferred_writes(self) -> dict[str, Any] | None:
        """The step rows and ledger events a shadow/dry-run job writes with its outcome."""
        return self.store.pending() if "store" in self.__dict__ else None

    # -- the positional sequence -----------------------------------------------------------

    async def enter(self, name: str, version: int = 1) -> tuple[int, int, StepRecord | None]:
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
        steps = await self.loaded()
        at_position = next((s for s in steps.values() if s.position == position), None)
        if at_position is not None and (at_position.name, at_position.occurrence) != (name, occurrence):
            raise StepMismatchError(position, at_position.name, name)
        stored = steps.get((name, occurrence))
        if stored is not None and stored.version != version:
            raise StepMismatchError(position, f"{name} v{stored.version}", f"{name} v{version}")
        self.trace.path.append(name)
        return occurrence, position, stored

    async def loaded(self) -> dict[tuple[str, int], StepRecord]:
        if self.steps is None:
            fresh = self.job.attempt == 0 and self.job.claim_count == 1 and not self.job.reclaimed
            self.steps = {} if fresh else await self.store.load()
        return self.steps

    async def record(self, name: str, occurrence: int, position: int, version: int,
                     status: StepStatus, output: Any = None) -> None:
        """Store a step's result in one go (begin + finish) and remember it for this attempt."""
        await self.store.begin(name, occurrence, position, version, None)
        await self.store.finish(name, occurrence, status, output)
        self.remember(name, occurrence, position, status, 1, output, version)

    def remember(self, name: str, occurrence: int, position: int, status: StepStatus, attempt: int,
                 output: Any, version: int = 1) -> None:
        """Keep what was just stored for the rest of this attempt (a later enter() sees it)."""
        if self.steps is not None:
            self.steps[(name, occurrence)] = StepRecord(name, occurrence, position, version, status, attempt,
                                                        output, None)

    async def step(self, name: str, fn: Callable[..., Any], *args: Any, version: int = 1) -> Any:
        """Run ``fn(*args)`` once for this job and return its (JSON) output (see Context.step)."""
        occurrence, position, stored = await self.enter(name, version)
        if stored is not None and stored.status is StepStatus.DONE:
            return stored.output
        if stored is not None and stored.status is StepStatus.TERMINAL_FAILED:
            raise _retyped(stored)
        await self.store.begin(name, occurrence, position, version, _input_hash(args))
        self.current = (name, occurrence)
        try:
            result = fn(*args)
            if inspect.isawaitable(result):
                result = await result
        except LeaseLostError:
            raise  # the claim is gone: nothing more to record, and no write would land
        except TerminalError as exc:
            await self.store.finish(name, occurrence, StepStatus.TERMINAL_FAILED, None, str(exc), _type_path(exc))
            raise
        except Exception as exc:
            await self.store.finish(name, occurrence, StepStatus.RETRYABLE_FAILED, None, f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self.current = None
        output = jsonable(result)
        await self.store.finish(name, occurrence, StepStatus.DONE, output)
        return output

    # -- outbound calls (queue_core.gateway) -----------------------------------------------

    def call_job(self, position: int) -> CallSlot:
        """The gateway's view of this job for the call entered at ``position``."""
        return CallSlot(self, position)

    async def settle_call(self, record: CallRecord, position: int) -> httpx.Response:
        """Store what the gateway returned, in one statement with its ledger event; answer with it.

        A shadow/dry-run intent goes to the trace and the ledger first; a replayed call writes
        only its ``call_replayed`` event. Returns the response, or raises the record's signal.
        """
        if record.intent is not None:
            self.trace.calls.append(record.intent)
            await self.ledger(record.intent_event or "call_intent", record.intent)
        if record.replayed:
            await self.ledger(record.event, dict(record.detail or {}))
        elif record.stored is not None:
            stored = record.stored.as_json()
            attempt = await self.store.settle_call(record.step, record.occurrence, position, record.key, stored,
                                                   record.external_ref,
                                                   (record.event, self.worker, dict(record.detail or {})),
                                                   record.answer)
            self.remember(record.step, record.occurrence, position, StepStatus.DONE, attempt, stored)
        return record.outcome()


class CallSlot:
    """What the gateway needs of the job for one call (``gateway.record.CallJob``): the call's
    position is known here, so no table of positions is kept for it."""

    def __init__(self, run: JobRun, position: int) -> None:
        self._run, self._position = run, position
        self.job_id, self.automation, self.mode, self.trigger_id = run.job_id, run.automation, run.mode, run.trigger_id

    def idempotency_key(self, step: str, occurrence: int = 0) -> str:
        return self._run.key(step, occurrence)

    async def load_call(self, step: str, occurrence: int = 0) -> Any:
        """The stored record of the call from an earlier attempt, else None (a call sent but
        never settled returns its fingerprint-only record, so a changed request is still caught)."""
        rec = (await self._run.loaded()).get((step, occurrence))
        if rec is None or rec.status not in (StepStatus.DONE, StepStatus.RUNNING):
            return None
        return rec.output

    async def begin_call(self, step: str, occurrence: int, stored: StoredCall, spend: Spend | None) -> Checkout | None:
        record = stored.as_json()
        attempt, checkout = await self._run.store.begin_call(step, occurrence, self._position, stored.idempotency_key,
                                                             record, spend)
        if attempt is not None:
            self._run.remember(step, occurrence, self._position, StepStatus.RUNNING, attempt, record)
        return checkout


def _type_path(exc: BaseException) -> str:
    return f"{type(exc).__module__}:{type(exc).__qualname__}"


def _retyped(stored: StepRecord) -> TerminalError:
    """Rebuild the typed terminal error a step failed with (TerminalError when it can't be)."""
    message = stored.error or f"step {stored.name!r} failed terminally"
    if stored.error_type and ":" in stored.error_type:
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


def jsonable(value: Any) -> Any:
    """Return ``value`` as JSON data (a copy); raise TerminalError when it is not JSON-serialisable."""
    if hasattr(value, "as_json"):  # it knows its JSON form (StoredCall): no deep copy, no round trip
        return value.as_json()
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        value = asdict(value)
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


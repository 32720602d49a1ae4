"""The Context an automation receives: its job, its trigger, memoised steps, decisions, calls.

The context is the one seam between automation code and the queue. It keeps the job's decision
trace (status, path, decisions, calls, outputs, error) which shadow and dry-run jobs store for
the harness to diff.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from ._sql import q
from .errors import Filtered, LeaseLostError, StepMismatchError, TerminalError
from .job import ClaimedJob
from .keys import child_key
from .states import Mode, StepStatus

if TYPE_CHECKING:
    import httpx

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Trigger:
    """What started the job: the recorded or received delivery."""

    id: str | None
    received_at: str | None
    headers: dict[str, str]
    body: Any
    source: str | None

    @classmethod
    def of(cls, job: ClaimedJob) -> Trigger:
        meta = job.trigger_meta or {}
        return cls(
            id=job.trigger_id or meta.get("id"),
            received_at=meta.get("received_at"),
            headers=dict(meta.get("headers") or {}),
            body=job.payload,
            source=meta.get("source"),
        )


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
class StepRecord:
    name: str
    occurrence: int
    position: int
    version: int
    status: StepStatus
    attempt: int
    output: Any
    error: str | None


class Context:
    """Everything an automation may touch while its job runs.

    Valid only during one claim of the job: every write it makes is fenced by the claim, and
    raises LeaseLostError once another worker has taken the job over.
    """

    def __init__(
        self,
        job: ClaimedJob,
        pool: AsyncConnectionPool,
        *,
        worker: str,
        gateway: Any = None,
        clock: Clock = system_clock,
    ) -> None:
        self.job = job
        self.job_id: uuid.UUID = job.id
        self.automation = job.automation
        self.mode: str = Mode(job.mode).value
        self.attempt = job.attempt + 1
        self.trigger = Trigger.of(job)
        self.trigger_id = self.trigger.id
        self.trace = Trace()
        self._pool = pool
        self._worker = worker
        self._gateway = gateway
        self._clock = clock
        self._steps: dict[tuple[str, int], StepRecord] | None = None
        self._occurrences: Counter[str] = Counter()
        self._position = 0

    # -- time, keys, decisions -------------------------------------------------------------

    def now(self) -> datetime:
        """Return the current time: the real clock live, the trigger's time in a replay."""
        return self._clock()

    def idempotency_key(self, step: str) -> str:
        """Return the child key ``sha256(job_id:step)``: the same on every retry and reclaim."""
        return child_key(self.job_id, step)

    def decide(self, name: str, value: Any) -> None:
        """Record an explicit branch decision in the trace (last value wins for a repeated name)."""
        self.trace.decisions[name] = value

    def filter(self, reason: str) -> None:
        """Stop the run here as ``filtered``, as a legacy filter step would."""
        raise Filtered(reason)

    def record_intent(self, intent: dict[str, Any]) -> None:
        """Append an outbound call (an intent in shadow/dry-run) to the decision trace."""
        self.trace.calls.append(intent)

    # -- outbound calls ------------------------------------------------------------------------

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        """Make an outbound call through the provider gateway (rate budget, idempotency key,
        signing, failure classification, mode handling). See queue_core.gateway."""
        if self._gateway is None:
            raise TerminalError(
                f"step {step!r}: no provider gateway is configured for this worker "
                "([tool.cutover.providers] in pyproject.toml)"
            )
        self._enter_path(step)
        response: httpx.Response = await self._gateway.call(self, provider, method, url, step=step, **kwargs)
        return response

    async def load_call(self, step: str) -> Any:
        """Return the stored result of call ``step`` when a previous attempt recorded it, else None."""
        rec = (await self._loaded()).get((step, 0))
        if rec is not None and rec.status is StepStatus.DONE:
            return rec.output
        return None

    async def save_call(self, step: str, stored: Any) -> None:
        """Persist the result of call ``step`` (fenced by this claim)."""
        output = _jsonable(stored)
        # Calls sit outside the positional step sequence (position -1): they are keyed by name.
        await self._begin(step, 0, -1, 1, None)
        await self._finish(step, 0, StepStatus.DONE, output, None)
        self._remember(step, 0, -1, 1, StepStatus.DONE, output, None)

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        """Append an entry to this job's ledger (never put secrets in ``detail``)."""
        async with self._pool.connection() as conn:
            await conn.execute(
                q("steps", "append_ledger"),
                {"job_id": self.job_id, "kind": kind, "actor": self._worker, "detail": json.dumps(detail)},
            )

    # -- memoised steps ------------------------------------------------------------------------

    async def step(self, name: str, fn: Callable[..., Any], *args: Any, version: int = 1) -> Any:
        """Run ``fn(*args)`` once for this job and return its (JSON) output.

        A step identified by (name, occurrence) that completed in an earlier attempt returns its
        stored output without running; one that failed terminally raises TerminalError again. A
        different step name or version at a recorded position raises StepMismatchError. The
        attempt count is committed before ``fn`` runs.
        """
        occurrence = self._occurrences[name]
        self._occurrences[name] += 1
        position = self._position
        self._position += 1
        stored = await self._stored_at(position, name, occurrence, version)
        self._enter_path(name)
        if stored is not None and stored.status is StepStatus.DONE:
            return stored.output
        if stored is not None and stored.status is StepStatus.TERMINAL_FAILED:
            raise TerminalError(stored.error or f"step {name!r} failed terminally")
        await self._begin(name, occurrence, position, version, _input_hash(args))
        try:
            result = fn(*args)
            if inspect.isawaitable(result):
                result = await result
        except TerminalError as exc:
            await self._finish(name, occurrence, StepStatus.TERMINAL_FAILED, None, str(exc))
            raise
        except Exception as exc:
            await self._finish(name, occurrence, StepStatus.RETRYABLE_FAILED, None, f"{type(exc).__name__}: {exc}")
            raise
        output = _jsonable(result)
        await self._finish(name, occurrence, StepStatus.DONE, output, None)
        return output

    async def _stored_at(self, position: int, name: str, occurrence: int, version: int) -> StepRecord | None:
        steps = await self._loaded()
        stored = steps.get((name, occurrence))
        by_pos = next((s for s in steps.values() if s.position == position >= 0), None)
        if by_pos is not None and (by_pos.name, by_pos.occurrence) != (name, occurrence):
            raise StepMismatchError(position, by_pos.name, name)
        if stored is not None and stored.version != version:
            raise StepMismatchError(position, f"{name} v{stored.version}", f"{name} v{version}")
        return stored

    def _enter_path(self, name: str) -> None:
        self.trace.path.append(name)

    async def _loaded(self) -> dict[tuple[str, int], StepRecord]:
        if self._steps is None:
            self._steps = {}
            if self.job.attempt > 0 or self.job.reclaimed or self.job.claim_count > 1:
                async with self._pool.connection() as conn:
                    cur = await conn.execute(q("steps", "load_steps"), {"job_id": self.job_id})
                    for name, occ, pos, ver, status, attempt, output, error, _c, _cv in await cur.fetchall():
                        self._steps[(name, occ)] = StepRecord(name, occ, pos, ver, StepStatus(status), attempt, output, error)
        return self._steps

    def _remember(self, name: str, occ: int, pos: int, ver: int, status: StepStatus, output: Any, error: str | None) -> None:
        if self._steps is not None:
            self._steps[(name, occ)] = StepRecord(name, occ, pos, ver, status, 0, output, error)

    async def _begin(self, name: str, occurrence: int, position: int, version: int, input_hash: str | None) -> int:
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence, "position": position,
            "version": version, "input_hash": input_hash, "key": self.idempotency_key(name),
            "claim": self.job.claim_count,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(q("steps", "begin_step"), params)).fetchone()
        if row is None:
            raise LeaseLostError(self.job_id, self.job.claim_count)
        return int(row[0])

    async def _finish(self, name: str, occurrence: int, status: StepStatus, output: Any, error: str | None) -> None:
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence, "status": status.value,
            "output": json.dumps(output) if output is not None else None, "error": error,
            "external_ref": None, "claim": self.job.claim_count,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(q("steps", "finish_step"), params)).fetchone()
        if row is None:
            raise LeaseLostError(self.job_id, self.job.claim_count)


def _jsonable(value: Any) -> Any:
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


StepFn = Callable[..., Awaitable[Any]]

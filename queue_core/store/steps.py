"""The step store: memoised step rows of one job, read once and written fenced by the claim."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q
from ..errors import LeaseLostError
from ..keys import child_key
from ..redaction import NO_SECRETS, Redactor
from ..states import StepStatus
from . import calls

if TYPE_CHECKING:
    from ..budget import Checkout
    from ..gateway.record import Answer, Spend


@dataclass(frozen=True)
class StepRecord:
    """A step as stored by an earlier attempt of the job."""

    name: str
    occurrence: int
    position: int
    version: int
    status: StepStatus
    attempt: int
    output: Any
    error: str | None
    error_type: str | None = None
    checkpoint: Any = None
    checkpoint_version: int | None = None


class StepStore:
    """Reads and writes the ``steps`` rows (and ledger events) of one claimed job.

    Every write is fenced by the claim: it lands only while the job runs under ``claim_count``
    and its lease has not ended (queries/steps.sql). A write refused by the fence raises
    LeaseLostError, having written nothing.

    A *deferred* store (shadow and dry-run jobs, which have no side effects to protect) keeps
    its writes and ledger events in memory; the worker writes them with the job's outcome in the
    completion statement, fenced like it. A crash loses them, and the job runs again from the
    start, which in those modes costs nothing but time. Live jobs write through at once.

    Every output, record, checkpoint, error and ledger detail is written through ``redactor()``
    (queue_core.redaction; asked at each write, as the secrets a gateway knows may grow): this
    is the one door to the ``steps`` rows and the ledger of a running job.
    """

    def __init__(self, pool: AsyncConnectionPool, job_id: uuid.UUID, claim_count: int, *, deferred: bool = False,
                 redactor: Callable[[], Redactor] = lambda: NO_SECRETS) -> None:
        self.pool = pool
        self.redactor = redactor
        self.job_id = job_id
        self.claim = claim_count
        self.deferred = deferred
        self.generation = 0  # the job's key generation, read by load() (0 for a job never loaded)
        self.rows: dict[tuple[str, int], dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []

    async def load(self) -> dict[tuple[str, int], StepRecord]:
        """Return the job's stored steps keyed by (name, occurrence); read its key generation."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(q("steps", "load_steps"), {"job_id": self.job_id})
            rows = await cur.fetchall()
        if rows:
            self.generation = int(rows[0][0])
        return {
            (r[1], r[2]): StepRecord(r[1], r[2], r[3], r[4], StepStatus(r[5]), r[6], r[7], r[8], r[9], r[10], r[11])
            for r in rows if r[1] is not None
        }

    def key(self, name: str, occurrence: int) -> str:
        """Return the child key of (name, occurrence) in this job's key generation."""
        return child_key(self.job_id, name, occurrence, self.generation)

    async def begin(self, name: str, occurrence: int, position: int, version: int, input_hash: str | None) -> int:
        """Record that the step starts (attempt + 1, committed); return its attempt number."""
        if self.deferred:
            row = self.rows.setdefault((name, occurrence), {"attempt": 0})
            row.update(step_name=name, occurrence=occurrence, position=position, step_version=version,
                       input_hash=input_hash, idempotency_key=self.key(name, occurrence),
                       status=StepStatus.RUNNING.value, attempt=row["attempt"] + 1)
            return int(row["attempt"])
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence, "position": position,
            "version": version, "input_hash": input_hash, "key": self.key(name, occurrence),
            "claim": self.claim,
        }
        return int(await self._fenced(q("steps", "begin_step"), params))

    async def finish(self, name: str, occurrence: int, status: StepStatus, output: Any = None,
                     error: str | None = None, error_type: str | None = None) -> None:
        """Record how the step ended."""
        redactor = self.redactor()
        output, error = redactor.data(output), None if error is None else redactor.text(error)
        if self.deferred:
            self.rows[(name, occurrence)].update(status=status.value, output=output, error=error, error_type=error_type)
            return
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence, "status": status.value,
            "output": json.dumps(output) if output is not None else None, "error": error,
            "error_type": error_type, "claim": self.claim,
        }
        await self._fenced(q("steps", "finish_step"), params)

    async def begin_call(self, name: str, occurrence: int, position: int, key: str, record: Any,
                         spend: Spend | None = None) -> tuple[int | None, Checkout | None]:
        """Put a live call on record before it is sent (attempt + 1, committed), spending ``spend``
        in the same statement; return (the attempt, the checkout).

        A refused checkout begins nothing (attempt None). Raises LeaseLostError when the claim is
        gone, having spent and written nothing.
        """
        record = self.redactor().data(record)
        if spend is not None and not self.deferred:
            row = {"job_id": self.job_id, "name": name, "occurrence": occurrence, "position": position,
                   "key": key, "output": record, "claim": self.claim}
            fenced, attempt, checkout = await calls.begin_budgeted(self.pool, row, spend)
            if not fenced:
                raise LeaseLostError(self.job_id, self.claim)
            return attempt, checkout
        if self.deferred:
            row = self.rows.setdefault((name, occurrence), {"attempt": 0})
            row.update(step_name=name, occurrence=occurrence, position=position, step_version=1,
                       idempotency_key=key, status=StepStatus.RUNNING.value, output=record,
                       attempt=row["attempt"] + 1)
            return int(row["attempt"]), None
        row = {"job_id": self.job_id, "name": name, "occurrence": occurrence, "position": position,
               "key": key, "output": record, "claim": self.claim}
        fenced, attempt = await calls.begin_unbudgeted(self.pool, row)
        if not fenced or attempt is None:
            raise LeaseLostError(self.job_id, self.claim)
        return attempt, None

    async def settle_call(self, name: str, occurrence: int, position: int, key: str, record: Any,
                          external_ref: str | None, event: tuple[str, str, dict[str, Any]],
                          answer: Answer | None = None) -> int:
        """Store a call's outcome and append its ledger event ``(kind, actor, detail)`` atomically,
        with the budget's ``answer`` to the call when there is one to write.

        Live: one fenced statement (raises LeaseLostError when the claim is gone), so the step
        row and the event commit together or not at all. Deferred: both go with the outcome.
        The event's detail gets the call's ``attempt``. Returns the attempt.
        """
        kind, actor, detail = event
        redactor = self.redactor()
        record, detail = redactor.data(record), redactor.data(detail)
        if self.deferred:
            row = self.rows.setdefault((name, occurrence), {"attempt": 0})
            attempt = row["attempt"] + (row.get("status") != StepStatus.RUNNING.value)
            row.update(step_name=name, occurrence=occurrence, position=position, step_version=1,
                       idempotency_key=key, status=StepStatus.DONE.value, output=record,
                       external_ref=external_ref, attempt=attempt, error=None, error_type=None)
            self.events.append({"kind": kind, "detail": {**detail, "attempt": attempt}})
            return int(attempt)
        params = {"job_id": self.job_id, "name": name, "occurrence": occurrence, "position": position,
                  "key": key, "output": json.dumps(record), "external_ref": external_ref,
                  "kind": kind, "actor": actor, "detail": json.dumps(detail), "claim": self.claim}
        attempt = await calls.settle(self.pool, params, answer)
        if attempt is None:
            raise LeaseLostError(self.job_id, self.claim)
        return attempt

    async def checkpoint(self, name: str, occurrence: int, data: Any, version: int) -> None:
        """Persist a running step's progress."""
        data = self.redactor().data(data)
        if self.deferred:
            self.rows[(name, occurrence)].update(checkpoint=data, checkpoint_version=version)
            return
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence,
            "checkpoint": json.dumps(data), "version": version, "claim": self.claim,
        }
        await self._fenced(q("steps", "save_checkpoint"), params)

    async def ledger(self, kind: str, actor: str, detail: dict[str, Any]) -> None:
        """Append a ledger event for the job (deferred: with its outcome), fenced by the claim."""
        detail = self.redactor().data(detail)
        if self.deferred:
            self.events.append({"kind": kind, "detail": detail})
            return
        params = {"job_id": self.job_id, "kind": kind, "actor": actor, "detail": json.dumps(detail),
                  "claim": self.claim}
        await self._fenced(q("steps", "append_job_event"), params)

    def pending(self) -> dict[str, Any] | None:
        """Return the deferred writes (steps and ledger events), or None when there are none."""
        if not self.deferred or not (self.rows or self.events):
            return None
        return {"steps": list(self.rows.values()), "events": self.events}

    async def _fenced(self, sql: str, params: dict[str, Any]) -> Any:
        async with self.pool.connection() as conn:
            row = await (await conn.execute(sql, params)).fetchone()
        if row is None:
            raise LeaseLostError(self.job_id, self.claim)
        return row[0]

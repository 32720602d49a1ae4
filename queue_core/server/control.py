"""The control plane's actions on jobs and pauses; each is one transaction and writes its audit.

Job actions (cancel, replay) are fenced on the job's status in the same UPDATE that changes it,
and append to the job's ledger with the acting token's name. Pauses write ``pauses`` and an
entry in ``control_events``. :func:`replay_job` is the one seam step-level replay plugs into.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q
from ..errors import JobNotFoundError
from ..queue import Queue
from .errors import JobStateError, UnknownStepError

CANCELABLE = ("pending", "waiting")
REPLAYABLE = ("succeeded", "failed", "dead", "canceled", "compensation_failed")


@dataclass(frozen=True)
class Transition:
    """A job action that took effect: the job, its automation and its new status."""

    job_id: uuid.UUID
    automation: str
    status: str


class Replayer(Protocol):
    """The shape of a replay implementation (see :func:`replay_job`)."""

    async def __call__(
        self, pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str, from_step: str | None
    ) -> Transition: ...


async def _transition(
    conn: AsyncConnection[Any], job_id: uuid.UUID, *, to_status: str, allowed: tuple[str, ...],
    action: str, event: str, actor: str, detail: dict[str, Any],
) -> Transition:
    params = {"id": job_id, "to_status": to_status, "allowed": list(allowed), "event": event,
              "actor": actor, "detail": json.dumps(detail)}
    row = await (await conn.execute(q("control", "job_transition"), params)).fetchone()
    if row is None:
        raise JobNotFoundError(job_id)
    automation, previous, changed = row
    if not changed:
        raise JobStateError(job_id, action, previous, allowed)
    return Transition(job_id, automation, to_status)


async def cancel_job(pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str | None) -> Transition:
    """Cancel a pending or waiting job; raise JobStateError (running or finished) or JobNotFoundError.

    A running job is refused rather than interrupted: its worker holds the lease, and the claim
    fence means the worker's outcome would be the one to land.
    """
    async with pool.connection() as conn:
        return await _transition(conn, job_id, to_status="canceled", allowed=CANCELABLE, action="cancel",
                                 event="canceled", actor=actor, detail={"reason": reason})


async def replay_job(
    pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str, from_step: str | None
) -> Transition:
    """Run a finished job again: back to pending, due now, attempts reset; record who and why.

    Applies to finished jobs (succeeded, failed, dead, canceled, compensation_failed); anything else (a running job above
    all) raises JobStateError. ``from_step`` must name a step the job has run (else
    UnknownStepError) and is recorded in the ledger; memoised steps are kept as they are, so this
    is a re-run of the job, not yet a re-run from that step (step-level replay replaces this
    function). Workers are woken with the queue's NOTIFY.
    """
    async with pool.connection() as conn:
        async with conn.transaction():
            if from_step is not None:
                found = await (await conn.execute(q("control", "job_has_step"), {"id": job_id, "step": from_step})).fetchone()
                if not (found and found[0]):
                    await _fetch_exists(conn, job_id)
                    raise UnknownStepError(job_id, from_step)
            done = await _transition(conn, job_id, to_status="pending", allowed=REPLAYABLE, action="replay",
                                     event="replay_requested", actor=actor,
                                     detail={"reason": reason, "from_step": from_step})
            await conn.execute(q("queue", "notify"), {"automation": done.automation})
    return done


async def _fetch_exists(conn: AsyncConnection[Any], job_id: uuid.UUID) -> None:
    row = await (await conn.execute(q("queue", "get_job"), {"id": job_id})).fetchone()
    if row is None:
        raise JobNotFoundError(job_id)


async def read_job(pool: AsyncConnectionPool, job_id: uuid.UUID) -> dict[str, Any]:
    """Return ``{"job", "steps", "ledger"}`` for one job; raise JobNotFoundError."""
    queue = Queue(pool)
    job = await queue.get(job_id)
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("control", "job_steps"), {"id": job_id})
        steps = await cur.fetchall()
    return {"job": job, "steps": steps, "ledger": await queue.ledger(job_id)}


@dataclass(frozen=True)
class Pause:
    """A paused automation or provider, who paused it and why."""

    kind: str
    name: str
    paused_at: datetime
    paused_by: str
    reason: str | None


async def pause(pool: AsyncConnectionPool, kind: str, name: str, *, actor: str, reason: str | None) -> tuple[Pause, bool]:
    """Pause ``kind`` ``name``; return the pause and whether it is new (an existing one is kept).

    A paused automation's jobs stay pending and are not claimed; running ones finish.
    """
    params = {"kind": kind, "name": name, "actor": actor, "reason": reason}
    async with pool.connection() as conn:
        row = await (await conn.execute(q("control", "pause"), params)).fetchone()
    assert row is not None  # either inserted or already there
    return Pause(*row[:5]), bool(row[5])


async def resume(pool: AsyncConnectionPool, kind: str, name: str, *, actor: str) -> Pause | None:
    """Remove the pause on ``kind`` ``name``; return it, or None when it was not paused."""
    async with pool.connection() as conn:
        row = await (await conn.execute(q("control", "resume"), {"kind": kind, "name": name, "actor": actor})).fetchone()
    return Pause(*row) if row else None


async def list_pauses(pool: AsyncConnectionPool) -> list[Pause]:
    """Return every current pause."""
    async with pool.connection() as conn:
        rows = await (await conn.execute(q("control", "list_pauses"))).fetchall()
    return [Pause(*row) for row in rows]


async def readiness(pool: AsyncConnectionPool, expected: int) -> str | None:
    """Return None when the database answers and has migration ``expected`` applied, else why not."""
    try:
        async with pool.connection(timeout=5) as conn:
            row = await (await conn.execute(q("control", "migration_level"))).fetchone()
    except Exception as exc:  # any failure to reach or query the database means "not ready"
        return f"database unavailable: {type(exc).__name__}"
    level = int(row[0]) if row else 0
    if level < expected:
        return f"migrations applied up to {level:04d}, this release needs {expected:04d}; run `cutover migrate`"
    return None

"""The control plane's actions on jobs and pauses; each is one transaction and writes its audit.

Job actions (cancel, replay) are fenced on the job's status in the same UPDATE that changes it,
and append to the job's ledger with the acting token's name. Pauses write ``pauses`` and an
entry in ``control_events``. :func:`replay_job` is the one seam step-level replay plugs into.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from psycopg_pool import AsyncConnectionPool

from ..queue import Queue
from .. import ops
from ..store import control as store



@dataclass(frozen=True)
class Transition:
    """A job action that took effect: the job, its automation and its new status."""

    job_id: uuid.UUID
    automation: str
    status: str


class JobReplayer(Protocol):
    """The shape of a replay implementation (see :func:`replay_job`)."""

    async def __call__(
        self, pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str, from_step: str | None
    ) -> Transition: ...


async def cancel_job(pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str | None) -> Transition:
    """Cancel a pending, waiting or compensating job (see :func:`queue_core.ops.cancel`).

    A running job is refused (JobBusyError, 409) rather than interrupted: its worker holds the
    lease, and the claim fence means the worker's outcome would be the one to land. A finished
    job raises NotCancelableError (409).
    """
    await ops.cancel(pool, job_id, actor=actor, reason=reason or "")
    job = await Queue(pool).get(job_id)
    return Transition(job_id, job["automation"], job["status"])


async def replay_job(
    pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str, from_step: str | None
) -> Transition:
    """Run a job again as a new attempt, from scratch or from ``from_step`` (earlier step outputs
    kept); who asked and why go to its ledger. See :func:`queue_core.ops.replay`.

    Raises JobNotFoundError, JobBusyError (running under a live lease: 409) or
    UnknownStepError (422).
    """
    await ops.replay(pool, job_id, actor=actor, reason=reason, from_step=from_step)
    job = await Queue(pool).get(job_id)
    return Transition(job_id, job["automation"], job["status"])


async def read_job(pool: AsyncConnectionPool, job_id: uuid.UUID) -> dict[str, Any]:
    """Return ``{"job", "steps", "ledger"}`` for one job; raise JobNotFoundError."""
    queue = Queue(pool)
    job = await queue.get(job_id)
    steps = await store.job_steps(pool, job_id)
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
    row = await store.pause(pool, kind, name, actor=actor, reason=reason)
    return Pause(*row[:5]), bool(row[5])


async def resume(pool: AsyncConnectionPool, kind: str, name: str, *, actor: str) -> Pause | None:
    """Remove the pause on ``kind`` ``name``; return it, or None when it was not paused."""
    row = await store.resume(pool, kind, name, actor=actor)
    return Pause(*row) if row else None


async def list_pauses(pool: AsyncConnectionPool) -> list[Pause]:
    """Return every current pause."""
    return [Pause(*row) for row in await store.pauses(pool)]


async def readiness(pool: AsyncConnectionPool, expected: int) -> str | None:
    """Return None when the database answers and has migration ``expected`` applied, else why not."""
    try:
        level = await store.migration_level(pool, timeout_s=5)
    except Exception as exc:  # any failure to reach or query the database means "not ready"
        return f"database unavailable: {type(exc).__name__}"
    if level < expected:
        return f"migrations applied up to {level:04d}, this release needs {expected:04d}; run `cutover migrate`"
    return None

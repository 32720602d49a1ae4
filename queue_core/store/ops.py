"""The statements of an operator's action on one job (queue_core.ops): lock it, forget its run
from a step, requeue it, cancel it, write its ledger event, read its steps and explain context.

Every write runs on the connection of the caller's transaction, which locks the job row first
(``lock_job``) so the action cannot race a worker's claim.
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from .._sql import q


async def lock_job(conn: AsyncConnection[Any], job_id: uuid.UUID) -> tuple[Any, ...] | None:
    """Lock the job's row for the transaction: (id, status, leased_until, lease_owner, automation,
    lease_live, attempt, last_error, claim_count, key_generation); None when there is no such job."""
    row = await (await conn.execute(q("ops", "lock_job"), {"id": job_id})).fetchone()
    return None if row is None else tuple(row)


async def step_position(conn: AsyncConnection[Any], job_id: uuid.UUID, step: str) -> int | None:
    """The position of the job's step named ``step``; None when the job has no such step."""
    found = await (await conn.execute(q("ops", "step_position"), {"id": job_id, "step": step})).fetchone()
    return None if found is None else int(found[0])


async def step_names(conn: AsyncConnection[Any], job_id: uuid.UUID) -> list[str]:
    """The names of the job's steps (for the error naming the ones a replay could start from)."""
    return [r[0] for r in await (await conn.execute(q("ops", "step_names"), {"id": job_id})).fetchall()]


async def requeue_for_replay(conn: AsyncConnection[Any], job_id: uuid.UUID, *, position: int, generation: int) -> None:
    """Forget the job's steps from ``position`` on, its waits and its trace, and make it pending
    again under key generation ``generation``."""
    await conn.execute(q("ops", "forget_steps_from"), {"id": job_id, "position": position})
    await conn.execute(q("ops", "forget_waits"), {"id": job_id})
    await conn.execute(q("ops", "forget_trace"), {"id": job_id})
    await conn.execute(q("ops", "requeue_for_replay"), {"id": job_id, "key_generation": generation})


async def cancel_job(conn: AsyncConnection[Any], job_id: uuid.UUID) -> bool:
    """Cancel the (locked, not running) job; False when its status cannot be canceled."""
    return await (await conn.execute(q("ops", "cancel_job"), {"id": job_id})).fetchone() is not None


async def ledger_event(conn: AsyncConnection[Any], job_id: uuid.UUID, kind: str, *, actor: str, detail: str) -> None:
    """Append the operator's event ``kind`` (``detail``: JSON text) to the job's ledger."""
    await conn.execute(q("ops", "ledger_event"), {"id": job_id, "kind": kind, "actor": actor, "detail": detail})


async def notify(conn: AsyncConnection[Any], automation: str) -> None:
    """Wake the workers listening for ``automation``'s jobs (sent when the transaction commits)."""
    await conn.execute(q("queue", "notify"), {"automation": automation})


async def job_steps(pool: AsyncConnectionPool, job_id: uuid.UUID) -> list[dict[str, Any]]:
    """The job's steps and calls in order: name, occurrence, status, attempt, key, external_ref."""
    async with pool.connection() as conn:
        cur = conn.cursor(row_factory=dict_row)
        await cur.execute(q("ops", "job_steps"), {"id": job_id})
        return await cur.fetchall()


async def explain_context(conn: AsyncConnection[Any], params: dict[str, Any]) -> dict[str, Any]:
    """What ``jobs explain`` says about a job besides its row: now, open waits, pause, verdict,
    queue position, last event (``params``: the job's id, automation, priority, created_at)."""
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(q("ops", "explain_context"), params)
    facts = await cur.fetchone()
    assert facts is not None
    return facts

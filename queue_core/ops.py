"""Operator actions on one job: replay (from scratch or from a step), cancel, explain.

Each action is one transaction that locks the job row first, so it cannot race a worker's claim
(a claim skips locked rows) and a running job with a live lease is refused rather than disturbed.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from . import schedule
from .errors import JobBusyError, JobNotFoundError, NotCancelableError, UnknownStepError
from .store import children
from .store import ops as store


async def replay(pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str,
                 from_step: str | None = None, new_keys: bool = False) -> None:
    """Run the job again as a new attempt: from scratch, or from ``from_step`` keeping earlier outputs.

    The run's calls keep their idempotency keys, so a provider that honours them answers each
    with its original result and applies nothing again. ``new_keys`` moves the job to its next
    key generation (see queue_core.keys): every call of the run, and each later retry of it,
    sends a new key, so the provider redoes the side effects. A job that never ran has sent no
    key, so it keeps generation 0. Recorded in the ledger as ``replay_requested`` with who
    asked, why and from where (and, with ``new_keys``, the new key generation). Raises
    JobNotFoundError, JobBusyError (running under a live lease) or UnknownStepError.
    """
    async with pool.connection() as conn, conn.transaction():
        row = await store.lock_job(conn, job_id)
        if row is None:
            raise JobNotFoundError(job_id)
        _, status, until, owner, automation, lease_live, attempt, last_error, claims, generation = row
        if status == "running" and lease_live:
            raise JobBusyError(job_id, owner, until)
        position = 0 if from_step is None else await _step_position(conn, job_id, from_step)
        if new_keys and claims > 0:
            generation += 1
        await store.requeue_for_replay(conn, job_id, position=position, generation=generation)
        detail = {"reason": reason, "from_step": from_step, "previous_status": status,
                  "previous_attempt": attempt, "previous_error": last_error}
        if new_keys:
            detail.update(new_keys=True, key_generation=generation)
        await store.ledger_event(conn, job_id, "replay_requested", actor=actor, detail=json.dumps(detail))
        await store.notify(conn, automation)


async def _step_position(conn: Any, job_id: uuid.UUID, step: str) -> int:
    found = await store.step_position(conn, job_id, step)
    if found is None:
        raise UnknownStepError(job_id, step, await store.step_names(conn, job_id))
    return found


async def job_steps(pool: AsyncConnectionPool, job_id: uuid.UUID) -> list[dict[str, Any]]:
    """Return the job's steps and calls in order: name, occurrence, status, attempt, key, external_ref."""
    return await store.job_steps(pool, job_id)


async def cancel(pool: AsyncConnectionPool, job_id: uuid.UUID, *, actor: str, reason: str) -> None:
    """Cancel a job that is not running (pending, waiting or between compensations).

    Raises JobNotFoundError, JobBusyError for a running job, NotCancelableError for a final one.
    """
    async with pool.connection() as conn, conn.transaction():
        row = await store.lock_job(conn, job_id)
        if row is None:
            raise JobNotFoundError(job_id)
        if row[1] == "running":
            raise JobBusyError(job_id, row[3], row[2])
        if not await store.cancel_job(conn, job_id):
            raise NotCancelableError(job_id, row[1])
        detail = json.dumps({"reason": reason, "previous_status": row[1]})
        await store.ledger_event(conn, job_id, "canceled", actor=actor, detail=detail)


async def explain(pool: AsyncConnectionPool, job: dict[str, Any]) -> list[str]:
    """Return sentences saying why the job is (not) running right now."""
    params = {"id": job["id"], "automation": job["automation"], "priority": job["priority"], "created_at": job["created_at"]}
    async with pool.connection() as conn:
        facts = await store.explain_context(conn, params)
        if job["status"] == "waiting":  # a parent waiting for its children (one index probe)
            facts["children"] = await children.children_of(conn, job["id"])
    return explain_lines(job, facts)


def explain_lines(job: dict[str, Any], facts: dict[str, Any]) -> list[str]:
    """Pure: turn a job row and its context (now, open waits, pause, queue position, last event)
    into sentences an operator can act on."""
    now, status = facts["now"], job["status"]
    last = facts.get("last_event") or {}
    lines: list[str] = [f"job {job['id']} ({job['automation']}, {job['mode']}) is {status}."]
    lines.extend(filter(None, [schedule.tick_of(job)]))  # a schedule's job names its tick
    if facts.get("pause"):
        p = facts["pause"]
        lines.append(f"automation {job['automation']!r} is paused by {p['paused_by']} since {p['paused_at']}"
                     + (f": {p['reason']}" if p.get("reason") else "") + "; its jobs are not claimed.")
    if job["mode"] == "live" and not facts.get("any_passing_verdict") and status in ("pending", "waiting"):
        lines.append("it is a live job and the automation has no passing go-live verdict: workers started "
                     "without --allow-ungated will not claim it.")
    status_lines = _explain_status(job, facts, now, last)
    lines.extend(status_lines)
    lines.extend(filter(None, [_last_error_line(job, status_lines)]))
    return lines


def _last_error_line(job: dict[str, Any], said: list[str]) -> str | None:
    """The job's last error with its kind and attempt count, unless the status lines said it.

    A snooze's reason is stored as last_error with no error kind: it is not an error, so only
    an error with a kind (retryable, terminal) is named.
    """
    error, kind = job.get("last_error"), job.get("error_kind")
    if not error or not kind or any(error in line for line in said):
        return None
    return f"its last error ({kind}, attempt {job['attempt']} of {job['max_attempts']}): {error}"


def _explain_status(job: dict[str, Any], facts: dict[str, Any], now: datetime, last: dict[str, Any]) -> list[str]:
    status = job["status"]
    if status == "running":
        if job["leased_until"] and job["leased_until"] <= now:
            return [f"its lease (held by {job['lease_owner']}) expired at {job['leased_until']}; "
                    "the next claim by any worker reclaims it."]
        return [f"leased by {job['lease_owner']} until {job['leased_until']} (last heartbeat {job['heartbeat_at']})."]
    if status == "waiting":
        waits = facts.get("open_waits") or []
        if facts.get("children") and not waits:
            return _children_lines(facts["children"], job["run_after"])
        if not waits:
            return [f"waiting on a durable timer until {job['run_after']}."]
        return [f"waiting on {w['kind']} {w['name']!r}" + (f" until {w['wake_at']} (then: {w['on_timeout'] or 'wake'})" if w.get("wake_at") else " with no timeout") + "."
                for w in waits]
    if status in ("pending", "compensating"):
        if job["run_after"] > now:
            why = {"snoozed": "snoozed", "budget_wait": "snoozed", "provider_paused": "snoozed",
                   "rate_limited": "put back after a 429",
                   "retry_scheduled": "retry scheduled",
                   "compensation_retry": "compensation retry scheduled"}.get(last.get("kind", ""), "scheduled")
            reason = (last.get("detail") or {}).get("error") or job.get("last_error")
            extra = f": {reason}" if reason else ""
            budget = " (waiting for a rate budget)" if last.get("kind") == "budget_wait" else ""
            return [f"{why} for {job['run_after']}{budget}{extra} (attempt {job['attempt']}/{job['max_attempts']})."]
        return [f"due now; {facts.get('ahead', 0)} due jobs are ahead of it by priority and age."]
    if status in ("dead", "failed", "compensation_failed"):
        kind = f" ({job['error_kind']})" if job.get("error_kind") else ""
        return [f"{status}{kind} because: {job.get('last_error')}"]
    if status == "canceled":
        return [f"canceled by {last.get('actor')}: {(last.get('detail') or {}).get('reason')}"] if last.get("kind") == "canceled" else ["canceled."]
    return [f"finished at {job.get('finished_at')}."]


_FINISHED = ("succeeded", "failed", "canceled", "dead", "compensation_failed")


def _children_lines(children: list[tuple[str, int, list[str]]], recheck_at: datetime) -> list[str]:
    """A waiting parent's children: how many in each status, and the unfinished ones' keys."""
    counts = ", ".join(f"{n} {status}" for status, n, _ in children)
    waiting_on = [k for status, _, keys in children if status not in _FINISHED for k in keys if k]
    more = f" ({', '.join(waiting_on[:10])}{', ...' if len(waiting_on) > 10 else ''})" if waiting_on else ""
    return [f"waiting for its children ({counts}){more}; it rechecks them at {recheck_at}."]

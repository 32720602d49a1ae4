"""Fan-out: child jobs a job enqueues with ``ctx.enqueue`` and waits for with ``ctx.wait_for_children``.

A child is enqueued exactly once per (parent, key): its dedupe key is ``child:<parent id>:<key>``,
enforced by the database, so a retry or reclaim of the parent that enqueues it again gets the
same child back. For a live parent the child, its parent link and the parent's step row (output:
the child's id) commit together, fenced by the parent's claim: one statement for a new child,
one transaction when the child exists already. A shadow or dry-run parent defers its step rows
(see ``_steps.StepStore``): its children are still enqueued at once, exactly once by the same
dedupe key, and a rerun of the parent finds them again.

Children inherit the parent's mode and recording; their trigger says where they came from
(``source = "child"``, the parent's id and the key). Waiting is durable: the parent is ``waiting``
(no worker held) on a timer and rechecks its children in one query each time it is woken.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from . import _spec
from .errors import ChildFailedError, ChildWaitTimeoutError, Suspend, TerminalError
from .job import ChildOutcome, JobSpec
from .queue import Queue
from .states import StepStatus
from .store import children

if TYPE_CHECKING:
    from ._job_run import JobRun

POLICIES = ("fail", "collect")
# A waiting parent rechecks its children after RECHECK_S, doubling each time up to RECHECK_CAP_S.
RECHECK_S = 0.25
RECHECK_CAP_S = 10.0


def child_spec(run: JobRun, automation: str, payload: Any, key: str) -> JobSpec:
    """The child's JobSpec: the parent's mode and recording, a dedupe key per (parent, key)."""
    parent = str(run.job_id)
    meta = {"source": "child", "parent_id": parent, "key": key, "id": f"{run.trigger_id or parent}/{key}",
            "received_at": run.received_at}
    return JobSpec(automation, payload, mode=run.mode, dedupe_key=f"child:{parent}:{key}",
                   trigger_id=f"{run.trigger_id}/{key}" if run.trigger_id else None,
                   recording=run.job.recording, trigger_meta=meta)


async def enqueue(run: JobRun, automation: str, payload: Any, key: str) -> uuid.UUID:
    """Enqueue child ``key`` of ``run``'s job once; return its id (the same on every attempt)."""
    if not isinstance(key, str) or not key:
        raise TerminalError(f"ctx.enqueue({automation!r}): key must be a non-empty string, got {key!r}")
    name = f"child:{key}"
    occurrence, position, stored = await run.enter(name)
    if stored is not None and stored.status is StepStatus.DONE:
        return uuid.UUID(stored.output["child"])
    deferred = run.store.deferred
    spec = child_spec(run, automation, payload, key)
    params = {
        "job_id": run.job_id, "claim": run.job.claim_count, "name": name, "occurrence": occurrence,
        "position": position, "key": run.store.key(name, occurrence), "record": not deferred,
        "actor": run.worker, "child_key": key, "automation": automation,
    }
    child_id = await _insert_new(run, spec, params) or await _link_existing(run, spec, params)
    output = {"child": str(child_id)}
    if deferred:
        await run.record(name, occurrence, position, 1, StepStatus.DONE, output)
        await run.ledger("child_enqueued", {"child": str(child_id), "key": key, "automation": automation})
    else:
        run.remember(name, occurrence, position, StepStatus.DONE, 1, output)
    return child_id


async def _insert_new(run: JobRun, spec: JobSpec, params: dict[str, Any]) -> uuid.UUID | None:
    """Insert a new child with its link, events and step row in one statement; return its id.

    None when the child already exists (its dedupe key is taken): the caller links it instead.
    Raises LeaseLostError, having written nothing, when the parent's claim has moved on.
    """
    child = _spec.jobs_json([_spec.validate(0, spec, run.registry)])  # enqueue_many's checks and messages
    fenced, child_id = await children.insert_child(run.pool, params, child)
    if not fenced:
        raise run.lease_lost()
    return child_id


async def _link_existing(run: JobRun, spec: JobSpec, params: dict[str, Any]) -> uuid.UUID:
    """Find (or, after a concurrent delete, enqueue) the child by its dedupe key and link it,
    with the parent's step row, in one transaction fenced by the parent's claim."""
    queue = Queue(run.pool, registry=run.registry)
    async with run.pool.connection() as conn, conn.transaction():
        (child_id,) = await queue.enqueue_in(conn, [spec], actor=run.worker)
        linked = {**params, "child_id": child_id, "output": json.dumps({"child": str(child_id)})}
        if not await children.link_child(conn, linked):
            raise run.lease_lost()  # rolls the enqueue back
    return child_id


async def wait_for_children(run: JobRun, policy: str, timeout: timedelta | None,
                            wait_number: int) -> list[ChildOutcome]:
    """Wait (no worker held) until every child of ``run``'s job is finished; apply ``policy``.

    A step at a position. While a child is unfinished the job suspends on a durable timer
    (``RECHECK_S`` doubling up to ``RECHECK_CAP_S``) and checks again in one query when woken;
    a timer cannot miss a child that finished just before the job suspended, as a wake-up sent
    to a job that is still running would. The outcomes are stored with the step once all are in.
    """
    if policy not in POLICIES:
        raise TerminalError(f"ctx.wait_for_children: policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    name = f"children:{wait_number}"
    occurrence, position, stored = await run.enter(name)
    if stored is not None and stored.status is StepStatus.DONE:
        raw = stored.output["children"]
    else:
        progress = stored.output if stored is not None and isinstance(stored.output, dict) else {}
        since = progress.get("since") or run.now().isoformat()
        settled = await _settled(run)
        if settled is None:
            checks = int(progress.get("checks", 0))
            if timeout is not None and run.now() - datetime.fromisoformat(since) >= timeout:
                raise ChildWaitTimeoutError(run.job_id, timeout)
            await run.record(name, occurrence, position, 1, StepStatus.WAITING, {"checks": checks + 1, "since": since})
            delay = min(RECHECK_CAP_S, RECHECK_S * 2 ** checks)
            raise Suspend(f"children of job {run.job_id}", run.now() + timedelta(seconds=delay))
        raw = settled
        await run.record(name, occurrence, position, 1, StepStatus.DONE, {"children": raw})
    outcomes = [ChildOutcome(**o) for o in raw]
    failed = [o for o in outcomes if not o.succeeded]
    if failed and policy == "fail":
        raise ChildFailedError(failed)
    return outcomes


async def _settled(run: JobRun) -> list[dict[str, Any]] | None:
    """Every child's outcome once all of ``run``'s children are finished; None while one is not.

    One query (``children_settled``): the check and the read were two round trips per wake-up.
    """
    rows = await children.children_settled(run.pool, run.job_id)
    if rows is None:
        return None
    return [asdict(ChildOutcome(str(r[0]), r[1], r[2], r[3], r[4], r[5], r[6])) for r in rows]

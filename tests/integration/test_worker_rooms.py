"""The worker's rooms under the races that used to hang it (issue 22, the reverted i22-sqlwhole).

A job task cancelled before its first step never runs its coroutine, so bookkeeping in the
coroutine's ``finally`` never ran: the job stayed "in flight" (heartbeated for ever) and its lane
full (never claiming again), and a draining worker never drained. Two things cancelled tasks that
early: the lease guard, when the claim turn that took the job outlasted the lease horizon, and a
heartbeat answered after the job it named had been completed and claimed again by the same
worker, which cancelled the new claim. And a wake-up during a turn (stop(), a job ending) was
cleared by the wait that followed it, so the worker slept a whole poll interval.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timezone

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.job import ClaimedJob
from queue_core.states import Mode
from queue_core.worker.heartbeat import Heartbeater

registry = Registry()


@automation("noop", registry=registry)
async def noop(ctx, trigger):
    return None


def _claimed(claim: int = 1) -> ClaimedJob:
    now = datetime.now(timezone.utc)
    return ClaimedJob(uuid.uuid4(), "noop", 1, Mode.LIVE, 0, {}, {}, 0, 3, claim, now, now, None, None, False)


def _short() -> WorkerConfig:
    return WorkerConfig(concurrency=1, lanes=1, lease_s=0.15, heartbeat_s=0.05)


async def test_a_job_cancelled_before_its_first_step_gives_its_slot_back(pool):
    worker = Worker(pool, registry, _short())
    producer = worker.producers[0]
    job = _claimed()
    worker.executor.start(job, 0.0, producer.completer)  # its lease started long ago: the guard's at once
    assert worker.executor.stop(job.id, job.claim_count)  # before the task ran a single step
    await asyncio.sleep(0.05)
    assert worker.executor.inflight == {} and producer.completer.held == 0
    assert worker._held() == [], "a job that never ran must not be heartbeated"


async def test_a_stale_heartbeat_leaves_the_jobs_next_claim_running(pool):
    worker = Worker(pool, registry, _short())
    producer = worker.producers[0]
    second = _claimed(claim=2)
    worker.executor.start(second, 1e12, producer.completer)
    beat: Heartbeater = worker.heartbeater
    beat._renewed([(second.id, 1)], kept=set(), started=0.0)  # claim 1 was completed meanwhile
    await asyncio.sleep(0.05)
    assert worker.stats["lost"] == 0 and producer.completer.unwritten == {second.id: second}


async def test_stop_during_a_turn_ends_the_worker_without_waiting_for_the_next_poll(pool):
    worker = Worker(pool, registry, WorkerConfig(concurrency=1, lanes=1, poll_s=30))
    claim = worker.queue.claim

    async def stopping_claim(*args, **kwargs):
        worker.stop()  # while the turn runs
        return await claim(*args, **kwargs)

    worker.queue.claim = stopping_claim  # type: ignore[method-assign]
    await asyncio.wait_for(worker.run(), 15)  # far inside the 30 s poll it used to sleep through


async def test_a_draining_worker_finishes_when_each_claim_outlasts_the_lease_horizon(pool):
    """The first claim turn takes longer than lease - margin, so the job is overdue the moment it
    is dispatched and the guard may cancel it before it starts; either way the worker must end
    with the job done (reclaimed once its lease ran out), not hold it for ever."""
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"))
    worker = Worker(pool, registry, WorkerConfig(concurrency=1, lanes=1, lease_s=0.2, heartbeat_s=0.05))
    claim, turns = worker.queue.claim, []

    async def slow_claim(*args, **kwargs):
        got = await claim(*args, **kwargs)
        turns.append(len(got))
        await asyncio.sleep(0.2 if len(turns) == 1 else 0)
        return got

    worker.queue.claim = slow_claim  # type: ignore[method-assign]
    await asyncio.wait_for(worker.run(drain=True), 10)
    assert turns[0] == 1 and (await queue.get(job_id))["status"] == "succeeded"


async def test_a_worker_freezes_the_heap_once_per_process_unless_told_not_to(pool, monkeypatch):
    import queue_core.worker as worker_module

    calls: list[int] = []
    monkeypatch.setattr(worker_module.gc, "freeze", lambda: calls.append(1))
    monkeypatch.setattr(worker_module, "_heap_frozen", False)
    config = dict(concurrency=1, lanes=1, poll_s=0.01)
    await Worker(pool, registry, WorkerConfig(**config, freeze_gc=False)).run(drain=True)
    assert calls == []
    await Worker(pool, registry, WorkerConfig(**config)).run(drain=True)
    await Worker(pool, registry, WorkerConfig(**config)).run(drain=True)
    assert calls == [1], "only the first worker of a process freezes what the process holds"

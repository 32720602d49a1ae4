"""Durable automations on real Postgres: steps, checkpoints, waits, compensation, replay.

Crash tests run the worker in a subprocess and SIGKILL it; in-process tests drive a Worker.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from queue_core import JobSpec, Queue, StepMismatchError, Worker, WorkerConfig, _waits, db
from queue_core.errors import JobBusyError, UnknownStepError, WaitTokenError
from queue_core.ops import explain, replay
from tests.support import durable
from tests.support.durable import registry
from tests.support.polling import sql, until_status


ROOT = Path(__file__).resolve().parents[2]
TABLES = """
CREATE TABLE IF NOT EXISTS effects (key text PRIMARY KEY, job_id uuid, name text, deliveries int, applied_at timestamptz);
CREATE TABLE IF NOT EXISTS progress (seq bigserial PRIMARY KEY, job_id uuid, what text, value int);
CREATE TABLE IF NOT EXISTS flags (name text PRIMARY KEY);
"""


@pytest.fixture
def durable_db(fresh_db_url, monkeypatch):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(TABLES)
    monkeypatch.setenv("WORKER_DB", fresh_db_url)
    return fresh_db_url


def wait_until(url: str, query: str, params: tuple = (), timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sql(url, query, params):
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {query}")


def spawn(url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, WORKER_DB=url, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tests.support.run_worker", "tests.support.durable"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kill(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


async def enqueue(url: str, spec: JobSpec):
    async with db.pool(url, max_size=2) as pool:
        return await Queue(pool, registry=registry).enqueue(spec)


def status(url: str, job_id) -> str:
    return sql(url, "SELECT status::text FROM jobs WHERE id = %s", (job_id,))[0][0]


def test_job_killed_between_two_steps_resumes_without_rerunning_the_first(durable_db):
    job_id = asyncio.run(enqueue(durable_db, JobSpec("two-steps", {"hang": True})))
    first = spawn(durable_db)
    try:
        wait_until(durable_db, "SELECT 1 FROM progress WHERE what = 'between'")
        kill(first)
        second = spawn(durable_db)
        wait_until(durable_db, "SELECT 1 FROM jobs WHERE status = 'succeeded'")
    finally:
        for p in (first, locals().get("second")):
            if p is not None and p.poll() is None:
                kill(p)
    effects = dict(sql(durable_db, "SELECT name, deliveries FROM effects"))
    assert effects == {"first": 1, "second": 1}
    kinds = [k for (k,) in sql(durable_db, "SELECT kind FROM ledger WHERE job_id = %s ORDER BY seq", (job_id,))]
    assert "reclaimed" in kinds


def test_checkpointed_step_killed_at_item_250_resumes_at_200_or_later(durable_db):
    asyncio.run(enqueue(durable_db, JobSpec("checkpointed", {"items": 1000})))
    first = spawn(durable_db)
    second = None
    try:
        wait_until(durable_db, "SELECT 1 FROM progress WHERE what = 'item' AND value = 250")
        kill(first)
        second = spawn(durable_db)
        wait_until(durable_db, "SELECT 1 FROM jobs WHERE status = 'succeeded'")
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                kill(p)
    starts = [v for (v,) in sql(durable_db, "SELECT value FROM progress WHERE what = 'start' ORDER BY seq")]
    assert starts[0] == 0 and len(starts) == 2
    assert 200 <= starts[1] <= 250
    done = {v for (v,) in sql(durable_db, "SELECT value FROM progress WHERE what = 'item'")}
    assert done == set(range(1000))


@pytest.mark.parametrize("crash", [False, True])
def test_failing_third_step_runs_both_compensations_in_reverse_exactly_once(durable_db, crash):
    job_id = asyncio.run(enqueue(durable_db, JobSpec("saga", {"crash_in_rollback": crash})))
    procs = [spawn(durable_db)]
    try:
        if crash:
            wait_until(durable_db, "SELECT 1 FROM progress WHERE what = 'undo-start:reserve'")
            kill(procs[0])
            procs.append(spawn(durable_db))
        wait_until(durable_db, "SELECT 1 FROM jobs WHERE status IN ('failed', 'compensation_failed')")
    finally:
        for p in procs:
            if p.poll() is None:
                kill(p)
    effects = sql(durable_db, "SELECT name, deliveries FROM effects ORDER BY applied_at")
    assert effects == [("reserve", 1), ("charge", 1), ("undo:charge", 1), ("undo:reserve", 1)]
    (row,) = sql(durable_db, "SELECT status::text, error_kind::text, last_error FROM jobs WHERE id = %s", (job_id,))
    assert row[0] == "failed" and row[1] == "terminal"
    assert "card declined" in row[2] and "compensated: compensate:undo:1, compensate:undo:0" in row[2]
    undo_charge_runs = sql(durable_db, "SELECT count(*) FROM progress WHERE what = 'undo-start:charge'")[0][0]
    assert undo_charge_runs == 1, "a completed compensation ran again after the crash"


def fast() -> WorkerConfig:
    return WorkerConfig(concurrency=4, lease_s=5, poll_s=0.05)


async def drain(pool) -> Worker:
    worker = Worker(pool, registry, fast())
    await asyncio.wait_for(worker.run(drain=True), 30)
    return worker


async def test_token_resolved_before_the_wait_starts_wakes_the_job(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("approval", mode="shadow"))
        secret = sql(durable_db, "SELECT value FROM cutover_secrets")[0][0]
        token = _waits.make_token(secret, job_id, "manager").token
        assert await queue.resolve_token(token, decision="approve", payload={"by": "ada"}, actor="test")
        assert not await queue.resolve_token(token, decision="reject", actor="test"), "second resolve must be a no-op"
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "succeeded"
        assert (await queue.trace(job_id))["decisions"] == {"approval": "approve"}


async def test_waiting_job_holds_no_worker_and_wakes_when_resolved(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("approval"))
        await drain(pool)
        job = await queue.get(job_id)
        assert (job["status"], job["lease_owner"], job["attempt"]) == ("waiting", None, 0)
        lines = await explain(pool, job)
        assert any("waiting on token 'manager' until" in line for line in lines), lines
        secret = sql(durable_db, "SELECT value FROM cutover_secrets")[0][0]
        forged = _waits.make_token("not-the-secret", job_id, "manager").token
        with pytest.raises(WaitTokenError):
            await queue.resolve_token(forged, decision="approve", actor="mallory")
        await queue.resolve_token(_waits.make_token(secret, job_id, "manager").token, decision="reject", actor="test")
        assert (await queue.get(job_id))["status"] == "pending"
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "succeeded"
        steps = sql(durable_db, "SELECT output FROM steps WHERE job_id = %s AND step_name = 'record'", (job_id,))
        assert steps == [({"decision": "reject", "payload": None},)]


@pytest.mark.parametrize(("on_timeout", "expected"), [("fail", "TerminalError"), ("compensate", "compensated")])
async def test_wait_timeout_runs_the_declared_action(durable_db, on_timeout, expected):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("short-approval", {"timeout": 0.3, "on_timeout": on_timeout}))
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "waiting"
        await asyncio.sleep(0.4)
        await drain(pool)
        job = await queue.get(job_id)
        assert job["status"] == "failed" and "timed out" in job["last_error"]
        assert ("compensated" in job["last_error"]) == (on_timeout == "compensate")


async def test_durable_sleep_releases_the_worker_and_resumes_after_the_timer(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("sleeper", {"seconds": 0.3}))
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "waiting"
        await asyncio.sleep(0.4)
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "succeeded"
        kinds = [e["kind"] for e in await queue.ledger(job_id)]
        assert kinds == ["enqueued", "claimed", "waiting", "woken", "claimed", "succeeded"]


async def test_wait_for_condition_wakes_on_notify(durable_db):
    async with db.pool(durable_db, max_size=6) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("flag-waiter", {"flag": "go"}, mode="shadow"))
        worker = Worker(pool, registry, WorkerConfig(concurrency=2, lease_s=5, poll_s=30), conninfo=durable_db)
        task = asyncio.create_task(worker.run())
        await until_status(queue, job_id, "waiting")
        sql(durable_db, "INSERT INTO flags VALUES ('go'); NOTIFY cutover_waits")
        await until_status(queue, job_id, "succeeded", tries=200)
        worker.stop()
        await asyncio.wait_for(task, 10)
        assert (await queue.trace(job_id))["decisions"] == {"flag": "condition_met"}


async def test_changed_step_name_under_a_running_job_fails_loudly(durable_db):
    from queue_core import Registry, automation

    v1, v2 = Registry(), Registry()

    @automation("evolving", registry=v1)
    async def old(ctx, trigger):
        await ctx.step("fetch-invoice", lambda: 1)
        await ctx.sleep(0.2)

    @automation("evolving", registry=v2)
    async def new(ctx, trigger):
        await ctx.step("load-invoice", lambda: 1)

    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=v1)
        job_id = await queue.enqueue(JobSpec("evolving"))
        await asyncio.wait_for(Worker(pool, v1, fast()).run(drain=True), 30)
        await asyncio.sleep(0.3)
        await asyncio.wait_for(Worker(pool, v2, fast()).run(drain=True), 30)
        job = await queue.get(job_id)
    assert job["status"] == "failed" and job["error_kind"] == "terminal"
    assert "'fetch-invoice'" in job["last_error"] and "'load-invoice'" in job["last_error"]
    assert StepMismatchError.__name__ in job["last_error"]


async def test_terminal_step_failure_reraises_the_same_typed_error_without_rerunning(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("typed-failure"))
        await drain(pool)
        sql(durable_db, "UPDATE jobs SET status = 'pending', run_after = now() WHERE id = %s", (job_id,))
        await drain(pool)
    caught = [w for (w,) in sql(durable_db, "SELECT what FROM progress ORDER BY seq")]
    assert caught == ["charge-ran", "caught:CardDeclined", "caught:CardDeclined"]


async def test_replay_from_a_step_keeps_earlier_outputs_and_records_who_asked(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("two-steps"))
        await drain(pool)
        with pytest.raises(UnknownStepError, match="its steps: first, second"):
            await replay(pool, job_id, actor="ops:ada", reason="x", from_step="thrid")
        await replay(pool, job_id, actor="ops:ada", reason="CRM outage", from_step="second")
        await drain(pool)
        effects = dict(sql(durable_db, "SELECT name, deliveries FROM effects"))
        assert effects == {"first": 1, "second": 2}
        await replay(pool, job_id, actor="ops:ada", reason="from scratch")
        await drain(pool)
        assert dict(sql(durable_db, "SELECT name, deliveries FROM effects")) == {"first": 2, "second": 3}
        entries = [e for e in await queue.ledger(job_id) if e["kind"] == "replay_requested"]
        assert [(e["actor"], e["detail"]["reason"], e["detail"]["from_step"]) for e in entries] == [
            ("ops:ada", "CRM outage", "second"), ("ops:ada", "from scratch", None)]


async def test_replay_of_a_running_job_under_a_live_lease_is_refused(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("two-steps"))
        await queue.claim("w1", 1, lease_s=60, automations=registry.names())
        with pytest.raises(JobBusyError, match="leased by w1"):
            await replay(pool, job_id, actor="ops", reason="x")


async def test_older_checkpoint_version_is_migrated_by_registered_upcasters(durable_db):
    from queue_core import upcaster

    @upcaster("import-rows", from_version=1)
    def cursor_to_next(cp):
        return {"next": cp["cursor"] + 1}

    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("upcasting", {"old_code": True}))
        await drain(pool)  # attempt 1 checkpoints v1 and fails retryably
        sql(durable_db, "UPDATE jobs SET run_after = now() WHERE id = %s", (job_id,))
        await drain(pool)
        (output,) = sql(durable_db, "SELECT output FROM steps WHERE job_id = %s", (job_id,))[0]
    assert output == {"next": 8}


async def test_a_wait_resolved_while_its_job_still_runs_wakes_the_job_when_it_suspends(durable_db):
    """resolve_wait can only record a resolution for a running job; the suspend must not lose it."""
    from queue_core.job import Outcome
    from queue_core.states import JobStatus

    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("approval"))
        (job,) = await queue.claim("test-worker", 1, lease_s=30, automations=["approval"])
        await queue.resolve_wait(job_id, "manager", decision="approve", actor="test")
        assert (await queue.get(job_id))["status"] == "running"  # nothing to wake yet
        suspended = Outcome(job.id, job.claim_count, JobStatus.WAITING, "waiting", 0, 172_800.0, "token 'manager'")
        assert await queue.complete([suspended], worker="test-worker") == {job_id}
        woken = await queue.get(job_id)
        assert woken["status"] == "pending", "a resolution that landed while the job ran was lost"
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "succeeded"
        steps = sql(durable_db, "SELECT output FROM steps WHERE job_id = %s AND step_name = 'record'", (job_id,))
        assert steps == [({"decision": "approve", "payload": None},)]


async def test_a_consumed_wait_does_not_wake_a_job_suspending_on_its_next_wait(durable_db):
    async with db.pool(durable_db, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("two-approvals"))
        await drain(pool)
        secret = sql(durable_db, "SELECT value FROM cutover_secrets")[0][0]
        await queue.resolve_token(_waits.make_token(secret, job_id, "manager").token, decision="approve", actor="t")
        await drain(pool)
        # the first wait is resolved and its step done: the job now waits on the second, asleep
        job = await queue.get(job_id)
        assert job["status"] == "waiting", "a consumed wait woke the job again"
        await queue.resolve_token(_waits.make_token(secret, job_id, "finance").token, decision="reject", actor="t")
        await drain(pool)
        assert (await queue.get(job_id))["status"] == "succeeded"

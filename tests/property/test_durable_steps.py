"""Property: for random step sequences, crashes and retries, each step's side effect (keyed by its
child idempotency key) is applied at most once, and the final outputs equal a crash-free run's.

A "crash" is the worker losing the job mid-flight: the automation raises LeaseLostError, so the
worker writes nothing, the lease runs out and another claim picks the job up (as after SIGKILL).
The crash runs the lease out itself (``leased_until`` set to the past as it raises) rather than
waiting for a short lease: a lease short enough to wait for is one a loaded machine's heartbeat
can miss, and a lease lost that way reruns a step no plan disrupted.
"""

from __future__ import annotations

import asyncio
import json

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from queue_core import JobSpec, LeaseLostError, Queue, Registry, RetryableError, Worker, WorkerConfig, automation, db

registry = Registry()
CRASH_KINDS = ("before", "after_effect", "between", "retry")
DB: dict[str, str] = {}


async def crash(ctx, conn=None):
    """Lose the job as a killed worker does: its lease runs out now, and this worker writes nothing."""
    if conn is None:
        async with await psycopg.AsyncConnection.connect(DB["url"], autocommit=True) as own:
            return await crash(ctx, own)
    await conn.execute("UPDATE jobs SET leased_until = now() - interval '1 second' WHERE id = %s", (ctx.job_id,))
    raise LeaseLostError(ctx.job_id, ctx.job.claim_count)


@automation("steps", registry=registry)
async def run_steps(ctx, trigger):
    plan = {(p["step"], p["execution"]): p["kind"] for p in trigger.body["plan"]}

    async def body(i: int, value: int) -> int:
        async with await psycopg.AsyncConnection.connect(DB["url"], autocommit=True) as conn:
            (n,) = await (await conn.execute(
                "INSERT INTO executions VALUES (%s, %s, 1) ON CONFLICT (job_id, step) DO UPDATE"
                " SET n = executions.n + 1 RETURNING n", (ctx.job_id, i))).fetchone()
            kind = plan.get((i, n))
            if kind == "before":
                await crash(ctx, conn)
            if kind == "retry":
                raise RetryableError("flaky", delay=0)
            await conn.execute("INSERT INTO effects VALUES (%s, %s, %s) ON CONFLICT (key) DO NOTHING",
                               (ctx.idempotency_key(f"s{i}"), ctx.job_id, f"s{i}"))
            if kind == "after_effect":
                await crash(ctx, conn)
        return value * 2 + i

    for i, value in enumerate(trigger.body["values"]):
        await ctx.step(f"s{i}", body, i, value)
        if plan.get((i, 0)) == "between" and ctx.job.claim_count == 1:
            await crash(ctx)


plans = st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 100), min_size=n, max_size=n),
    st.lists(st.fixed_dictionaries({"step": st.integers(0, n - 1), "execution": st.integers(1, 2),
                                    "kind": st.sampled_from(CRASH_KINDS)}), max_size=4),
))


async def run_to_the_end(url: str, values: list[int], plan: list[dict]) -> tuple[str, dict, list]:
    for p in plan:
        if p["kind"] == "between":
            p["execution"] = 0
    async with db.pool(url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("steps", {"values": values, "plan": plan}, max_claims=50))
        cfg = WorkerConfig(concurrency=1, lease_s=30, heartbeat_s=1, poll_s=0.02)
        for _ in range(60):
            await Worker(pool, registry, cfg).run(drain=True)
            if (await queue.get(job_id))["status"] in ("succeeded", "failed"):
                break
        async with pool.connection() as conn:
            outputs = dict(await (await conn.execute(
                "SELECT step_name, output FROM steps WHERE job_id = %s AND status = 'done'", (job_id,))).fetchall())
            effects = await (await conn.execute("SELECT key, name FROM effects WHERE job_id = %s", (job_id,))).fetchall()
            runs = dict(await (await conn.execute("SELECT step, n FROM executions WHERE job_id = %s", (job_id,))).fetchall())
        status = (await queue.get(job_id))["status"]
        return status, outputs, [(k, n, job_id) for k, n in effects], runs


@pytest.fixture
def property_db(db_url):
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS executions (job_id uuid, step int, n int, PRIMARY KEY (job_id, step))")
        conn.execute("CREATE TABLE IF NOT EXISTS effects (key text PRIMARY KEY, job_id uuid, name text)")
    DB["url"] = db_url
    return db_url


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plans)
def test_steps_apply_effects_at_most_once_and_match_a_crash_free_run(property_db, case):
    from queue_core import child_key

    values, plan = case
    plan = json.loads(json.dumps(plan))
    status, outputs, effects, runs = asyncio.run(run_to_the_end(property_db, values, plan))
    crash_free = {f"s{i}": v * 2 + i for i, v in enumerate(values)}
    assert status == "succeeded"
    assert outputs == crash_free
    names = [n for _, n, _ in effects]
    assert sorted(names) == sorted(crash_free), "each step's effect applied exactly once under its key"
    assert all(key == child_key(job_id, name) for key, name, job_id in effects)
    # A step runs again only after a disruption of its own; once done it is never re-run,
    # whatever crashes happen later (between steps, or in later steps).
    disrupted = {(p["step"], p["execution"]) for p in plan if p["kind"] != "between"}
    for i in range(len(values)):
        expected = 1
        while (i, expected) in disrupted:
            expected += 1
        assert runs[i] == expected, f"step s{i} ran {runs[i]} times, expected {expected}"

"""The worker and the provider gateway together: budget waits and provider pauses are snoozes."""

from __future__ import annotations

import asyncio

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.gateway import Gateway
from queue_core.ops import explain
from queue_core.provider import parse_providers
from tests.support.fake_provider import FakeProvider

registry = Registry()


@automation("notify", registry=registry)
async def notify(ctx, trigger):
    await ctx.call("crm", "POST", "/notes", json={"n": trigger.body["n"]}, step="note")


async def run(pool, gateway) -> None:
    cfg = WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05)
    await asyncio.wait_for(Worker(pool, registry, cfg, gateway=gateway).run(drain=True), 30)


async def test_spent_budget_snoozes_as_a_budget_wait_without_using_an_attempt(pool):
    with FakeProvider().running() as fake:
        providers = parse_providers({"crm": {"base_url": fake.url, "rate": "1/1m"}})
        async with Gateway(providers, pool) as gateway:
            queue = Queue(pool, registry=registry)
            first, second = await queue.enqueue_many([JobSpec("notify", {"n": 1}), JobSpec("notify", {"n": 2})])
            await run(pool, gateway)
            states = {j: (await queue.get(j))["status"] for j in (first, second)}
            assert sorted(states.values()) == ["pending", "succeeded"]
            waiting = first if states[first] == "pending" else second
            job = await queue.get(waiting)
            assert job["attempt"] == 0
            assert [e["kind"] for e in await queue.ledger(waiting)][-1] == "budget_wait"
            lines = await explain(pool, job)
            assert "(waiting for a rate budget)" in lines[-1] and "'crm'" in lines[-1]
        assert len(fake.effects) == 1


async def test_paused_provider_holds_its_calls_until_resumed(pool):
    with FakeProvider().running() as fake:
        providers = parse_providers({"crm": {"base_url": fake.url}})
        async with pool.connection() as conn:
            await conn.execute("INSERT INTO pauses (kind, name, paused_by, reason) VALUES ('provider', 'crm', 'ops', 'CRM migration')")
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("notify", {"n": 1}))
        async with Gateway(providers, pool) as gateway:
            await run(pool, gateway)
        job = await queue.get(job_id)
        assert (job["status"], job["attempt"]) == ("pending", 0) and "CRM migration" in job["last_error"]
        assert [e["kind"] for e in await queue.ledger(job_id)][-1] == "provider_paused"
        assert fake.requests == []
        async with pool.connection() as conn:
            await conn.execute("DELETE FROM pauses; UPDATE jobs SET run_after = now()")
        async with Gateway(providers, pool) as gateway:
            await run(pool, gateway)
        assert (await queue.get(job_id))["status"] == "succeeded"
        assert len(fake.effects) == 1


# -- a 429 is a put-back of its own: it uses no attempt, and a provider answering only 429 is stopped


async def run_until_done(pool, gateway, job_id, queue, timeout: float = 20.0) -> dict:
    """Run the worker (draining) until the job has finished; return the job."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        await run(pool, gateway)
        job = await queue.get(job_id)
        if job["status"] in ("succeeded", "failed") or asyncio.get_running_loop().time() > deadline:
            return job
        await asyncio.sleep(0.02)


async def test_a_429_puts_the_job_back_without_using_an_attempt(pool):
    with FakeProvider().running() as fake:
        fake.fail_next(2, 429)
        providers = parse_providers({"crm": {"base_url": fake.url, "rate": "100/100ms"}})
        async with Gateway(providers, pool) as gateway:
            queue = Queue(pool, registry=registry)
            job_id = await queue.enqueue(JobSpec("notify", {"n": 1}, max_attempts=1))
            job = await run_until_done(pool, gateway, job_id, queue)
            kinds = [e["kind"] for e in await queue.ledger(job_id)]
    # with max_attempts = 1, one attempt used by a 429 would have failed the job
    assert (job["status"], job["attempt"]) == ("succeeded", 1)
    assert kinds.count("rate_limited") == 2 and "retry_scheduled" not in kinds
    assert len(fake.requests) == 3 and len(fake.effects) == 1


async def test_a_provider_answering_only_429_fails_the_job_at_its_max_rate_limited(pool):
    with FakeProvider().running() as fake:
        fake.fail_next(50, 429)
        providers = parse_providers({"crm": {"base_url": fake.url, "rate": "100/100ms", "max_rate_limited": 4}})
        async with Gateway(providers, pool) as gateway:
            queue = Queue(pool, registry=registry)
            job_id = await queue.enqueue(JobSpec("notify", {"n": 1}, max_attempts=20))
            job = await run_until_done(pool, gateway, job_id, queue)
            kinds = [e["kind"] for e in await queue.ledger(job_id)]
    assert (job["status"], job["error_kind"]) == ("failed", "terminal")
    assert "provider 'crm' answered 429 Too Many Requests 4 times" in job["last_error"]
    assert "max_rate_limited = 4" in job["last_error"]
    assert kinds.count("rate_limited") == 3 and len(fake.requests) == 4 and fake.effects == []
    assert job["attempt"] == 1  # only the terminal failure used one


async def test_the_429_count_survives_a_new_worker_and_gateway(pool):
    with FakeProvider().running() as fake:
        fake.fail_next(50, 429)
        # after a bare 429 the window counts full: the next try waits 1.2 s, longer than a worker
        # waits in process, so the job snoozes and the draining worker stops
        providers = parse_providers({"crm": {"base_url": fake.url, "rate": "100/1200ms", "max_rate_limited": 3}})
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("notify", {"n": 1}))
        async with Gateway(providers, pool) as gateway:  # the first worker sees one 429
            await run(pool, gateway)
        assert len(fake.requests) == 1
        async with Gateway(providers, pool) as gateway:  # another worker, a fresh process's gateway
            job = await run_until_done(pool, gateway, job_id, queue)
    assert job["status"] == "failed" and len(fake.requests) == 3 and "3 times" in job["last_error"]


async def test_a_429_honours_retry_after_and_blocks_the_budget_meanwhile(pool):
    with FakeProvider(limit=1, window=1.0).running() as fake:  # stricter than configured
        providers = parse_providers({"crm": {"base_url": fake.url, "rate": "100/1s"}})
        async with Gateway(providers, pool) as gateway:
            queue = Queue(pool, registry=registry)
            first, second = await queue.enqueue_many([JobSpec("notify", {"n": 1}), JobSpec("notify", {"n": 2})])
            await run(pool, gateway)
            jobs = {j: await queue.get(j) for j in (first, second)}
            waiting = next(j for j, job in jobs.items() if job["status"] == "pending")
            events = await queue.ledger(waiting)
            [state] = [s for s in await gateway.budget.states("crm") if s.window_seconds == 1.0]  # type: ignore[union-attr]
    put_back = events[-1]
    assert put_back["kind"] == "rate_limited" and jobs[waiting]["attempt"] == 0
    assert (jobs[waiting]["run_after"] - put_back["at"]).total_seconds() >= 1.0  # Retry-After: 1
    assert state.blocked_until is not None and (state.blocked_until - put_back["at"]).total_seconds() > 0.5
    assert fake.throttled == 1 and len(fake.effects) == 1

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

"""Enqueue refuses, before writing anything, a job it cannot honour: a keyed automation's job
without its key (which would run outside the per-key limit) and a payload that is not a JSON
object — on every path that creates jobs (Queue, ctx.enqueue children, live pollers, schedules)."""

from __future__ import annotations

import asyncio
import random

import pytest

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.errors import ConfigError, EnqueueError
from queue_core.schedule import declared

keyed = Registry()


@automation("per-customer", concurrency_key="customer_id", registry=keyed)
async def per_customer(ctx, trigger):
    return None


@automation("per-order", concurrency_key="/order/id", concurrency_limit=2, registry=keyed)
async def per_order(ctx, trigger):
    return None


@automation("fan-out", registry=keyed)
async def fan_out(ctx, trigger):
    await ctx.enqueue(trigger.body["target"], trigger.body["child"], key="c1")


@automation("poll-customers", registry=keyed)
async def poll_customers(ctx, trigger):
    await ctx.start_new("per-customer", trigger.body["items"], id_of=lambda item: item["n"], cursor=None)


async def job_count(pool) -> int:
    async with pool.connection() as conn:
        return (await (await conn.execute("SELECT count(*) FROM jobs")).fetchone())[0]


async def drain(pool) -> None:
    cfg = WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05, shutdown_grace_s=1)
    await asyncio.wait_for(Worker(pool, keyed, cfg, rng=random.Random(1)).run(drain=True), 30)


@pytest.mark.parametrize("payload", [{"customer_id": None}, {}, {"customer_id": ""}, {"other": 1}])
async def test_a_keyed_job_whose_key_is_null_missing_or_empty_is_refused_naming_the_field(pool, payload):
    with pytest.raises(EnqueueError, match="customer_id") as caught:
        await Queue(pool, registry=keyed).enqueue(JobSpec("per-customer", payload))
    assert caught.value.field == "customer_id"
    assert "concurrency" in str(caught.value)
    assert await job_count(pool) == 0


async def test_a_keyed_job_whose_pointer_key_is_null_is_refused_and_its_batch_with_it(pool):
    good = JobSpec("per-order", {"order": {"id": 7}})
    bad = JobSpec("per-order", {"order": {"id": None}})
    with pytest.raises(EnqueueError, match="/order/id") as caught:
        await Queue(pool, registry=keyed).enqueue_many([good, bad])
    assert (caught.value.field, caught.value.index) == ("/order/id", 1)
    assert await job_count(pool) == 0


async def test_an_explicit_per_job_key_stands_in_for_the_payloads(pool):
    job_id = await Queue(pool, registry=keyed).enqueue(JobSpec("per-customer", {}, concurrency_key="acme"))
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT concurrency_key, concurrency_limit FROM jobs WHERE id = %s",
                                        (job_id,))).fetchone()
    assert row == ("acme", 1)


async def test_a_concurrency_limit_without_any_key_is_refused(pool):
    with pytest.raises(EnqueueError) as caught:
        await Queue(pool, registry=keyed).enqueue(JobSpec("fan-out", {}, concurrency_limit=3))
    assert caught.value.field == "concurrency_limit"


async def test_a_child_of_a_keyed_automation_without_its_key_fails_its_parent_naming_the_field(pool):
    queue = Queue(pool, registry=keyed)
    parent = await queue.enqueue(JobSpec("fan-out", {"target": "per-customer", "child": {"customer_id": None}}))
    await drain(pool)
    job = await queue.get(parent)
    assert (job["status"], job["error_kind"], job["attempt"]) == ("failed", "terminal", 1)
    assert "customer_id" in job["last_error"] and "concurrency" in job["last_error"]
    assert await job_count(pool) == 1, "no child was written"


async def test_a_live_poller_item_without_the_targets_key_fails_the_poll_naming_the_field(pool):
    queue = Queue(pool, registry=keyed)
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE poller_state, poller_seen")
    items = [{"n": 1, "customer_id": "a"}, {"n": 2, "customer_id": None}]
    poll = await queue.enqueue(JobSpec("poll-customers", {"items": items}))
    await drain(pool)
    job = await queue.get(poll)
    assert (job["status"], job["error_kind"]) == ("failed", "terminal")
    assert "customer_id" in job["last_error"]
    assert await job_count(pool) == 1, "neither item's job was written: the poll is one transaction"


def test_a_schedule_of_a_keyed_automation_whose_payload_lacks_the_key_is_a_config_error():
    with pytest.raises(ConfigError, match="customer_id"):
        @automation("tick-keyed", schedule="*/5 * * * *", concurrency_key="customer_id", registry=Registry())
        async def tick_keyed(ctx, trigger):
            return None

    config = {"schedules": {"nightly": {"automation": "per-customer", "cron": "0 3 * * *", "payload": {}}}}
    with pytest.raises(ConfigError, match=r"customer_id") as caught:
        declared(keyed.automations(), config)
    assert caught.value.field == "tool.cutover.schedules.nightly.payload"
    config["schedules"]["nightly"]["payload"] = {"customer_id": "acme"}
    assert [s.name for s in declared(keyed.automations(), config)] == ["nightly"]


@pytest.mark.parametrize("payload", [[], [{"customer_id": "a"}], "text", 3, 1.5, True, None])
async def test_a_payload_that_is_not_a_json_object_is_refused_before_anything_is_written(pool, payload):
    for queue in (Queue(pool), Queue(pool, registry=keyed)):
        with pytest.raises(EnqueueError, match="must be a JSON object") as caught:
            await queue.enqueue_many([JobSpec("fan-out", {}), JobSpec("fan-out", payload)])
        assert (caught.value.field, caught.value.index) == ("payload", 1)
    assert await job_count(pool) == 0


async def test_a_child_whose_payload_is_not_an_object_fails_its_parent_naming_the_payload(pool):
    queue = Queue(pool, registry=keyed)
    parent = await queue.enqueue(JobSpec("fan-out", {"target": "fan-out", "child": ["not", "an", "object"]}))
    await drain(pool)
    job = await queue.get(parent)
    assert (job["status"], job["error_kind"], job["attempt"]) == ("failed", "terminal", 1)
    assert "must be a JSON object" in job["last_error"]
    assert await job_count(pool) == 1

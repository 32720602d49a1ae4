"""``@automation(..., requires=(...))``: a job without a required payload field is refused at
enqueue, and a worker fails one that got in anyway once, terminally, naming the field, without
running the automation (a KeyError inside it would be retried max_attempts times)."""

from __future__ import annotations

import asyncio
import random

import pytest

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.errors import ConfigError, EnqueueError

needs = Registry()
ran: list[object] = []


@automation("ship-order", requires=("customer_id", "/order/id"), registry=needs)
async def ship_order(ctx, trigger):
    ran.append(trigger.body["order"]["id"])


async def drain(pool) -> None:
    cfg = WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05, shutdown_grace_s=1)
    await asyncio.wait_for(Worker(pool, needs, cfg, rng=random.Random(1)).run(drain=True), 30)


@pytest.mark.parametrize(("payload", "field"), [
    ({"order": {"id": 1}}, "customer_id"),
    ({"customer_id": None, "order": {"id": 1}}, "customer_id"),
    ({"customer_id": "c1"}, "/order/id"),
    ({"customer_id": "c1", "order": {"id": None}}, "/order/id"),
    ({"customer_id": "c1", "order": "not an object"}, "/order/id"),
])
async def test_enqueue_refuses_a_job_missing_a_required_field_naming_it(pool, payload, field):
    with pytest.raises(EnqueueError, match="requires") as caught:
        await Queue(pool, registry=needs).enqueue(JobSpec("ship-order", payload))
    assert caught.value.field == field
    assert await Queue(pool).counts() == {}


async def test_a_job_missing_a_required_field_fails_once_terminally_without_running(pool):
    ran.clear()
    unchecked = Queue(pool)  # no registry: enqueue cannot know what ship-order requires
    bad = await unchecked.enqueue(JobSpec("ship-order", {"customer_id": "c1", "order": {}}, max_attempts=20))
    good = await unchecked.enqueue(JobSpec("ship-order", {"customer_id": "c1", "order": {"id": 7}}))
    await drain(pool)
    job = await unchecked.get(bad)
    assert (job["status"], job["error_kind"], job["attempt"]) == ("failed", "terminal", 1)
    assert "'/order/id'" in job["last_error"] and "requires" in job["last_error"]
    assert "retry_scheduled" not in [e["kind"] for e in await unchecked.ledger(bad)]
    assert (await unchecked.get(good))["status"] == "succeeded"
    assert ran == [7], "the automation ran only for the job that has its fields"


@pytest.mark.parametrize("requires", ["customer_id", ("customer_id", ""), (3,), 5])
def test_requires_must_be_a_tuple_of_field_names_or_pointers(requires):
    with pytest.raises(ConfigError, match="requires must be a tuple"):
        automation("bad-requires", requires=requires, registry=Registry())

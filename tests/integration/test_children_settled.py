"""ctx.wait_for_children's one-query check: while a child is unfinished the parent suspends on
its timer and reads no outcome; once all are finished it gets every child's outcome in key
order; a parent without children settles at once. Driven through a claimed parent's Context."""

from __future__ import annotations

import json

import pytest

from queue_core import Context, JobSpec, Queue
from queue_core.errors import Suspend
from tests.support.fanout import registry


async def claimed(pool, mode: str = "live") -> Context:
    """Enqueue and claim a ``fan-out`` parent; return a Context on its claim."""
    queue = Queue(pool, registry=registry)
    await queue.enqueue(JobSpec("fan-out", {"n": 0}, mode=mode, trigger_id="run-1"))
    (job,) = await queue.claim("test-worker", 1, lease_s=30, automations=["fan-out"])
    return Context(job, pool, worker="test-worker", registry=registry)


async def finish(pool, child_id, status: str, error: str | None = None, outputs: dict | None = None) -> None:
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET status = %s, last_error = %s WHERE id = %s", (status, error, child_id))
        if outputs is not None:
            await conn.execute("INSERT INTO decisions (job_id, trace) VALUES (%s, %s::jsonb)",
                               (child_id, json.dumps({"outputs": outputs})))


async def test_a_parent_with_an_unfinished_child_suspends_on_its_timer(pool):
    ctx = await claimed(pool)
    done = await ctx.enqueue("child-work", {"i": 0}, key="a")
    await ctx.enqueue("child-work", {"i": 1}, key="b")
    await finish(pool, done, "succeeded")
    with pytest.raises(Suspend) as raised:
        await ctx.wait_for_children(policy="collect")
    assert raised.value.wake_at is not None


@pytest.mark.parametrize("mode", ["live", "shadow"])
async def test_once_every_child_is_finished_the_parent_gets_each_outcome_in_order(pool, mode):
    ctx = await claimed(pool, mode)
    ids = [await ctx.enqueue("child-work", {"i": i}, key=k) for i, k in enumerate(["a", "b", "c"])]
    await finish(pool, ids[0], "succeeded", outputs={"doubled": 0})
    await finish(pool, ids[1], "failed", error="item 1 is broken")
    await finish(pool, ids[2], "canceled")
    outcomes = await ctx.wait_for_children(policy="collect")
    assert [(o.id, o.key, o.automation, o.status, o.error, o.outputs) for o in outcomes] == [
        (str(ids[0]), "a", "child-work", "succeeded", None, {"doubled": 0}),
        (str(ids[1]), "b", "child-work", "failed", "item 1 is broken", None),
        (str(ids[2]), "c", "child-work", "canceled", None, None),
    ]


async def test_a_parent_without_children_settles_at_once_with_no_outcomes(pool):
    ctx = await claimed(pool)
    assert await ctx.wait_for_children(policy="fail") == []

"""ctx.enqueue's one-statement path: a new child, its parent link, its events and (live) the
parent's step row land together; an existing child is found by its dedupe key and linked; a
parent whose claim moved on writes nothing. The parent is claimed for real (Queue.claim) and
driven through its Context, without a worker."""

from __future__ import annotations

from collections import Counter

import pytest

from queue_core import Context, JobSpec, LeaseLostError, Queue
from queue_core._children import child_spec
from queue_core.context import job_run
from tests.support.fanout import registry


async def claimed(pool, mode: str) -> Context:
    """Enqueue and claim a ``fan-out`` parent in ``mode``; return a Context on its claim."""
    queue = Queue(pool, registry=registry)
    await queue.enqueue(JobSpec("fan-out", {"n": 0}, mode=mode, trigger_id="run-1"))
    (job,) = await queue.claim("test-worker", 1, lease_s=30, automations=["fan-out"])
    return Context(job, pool, worker="test-worker", registry=registry)


async def fetch(pool, query: str, params: tuple = ()) -> list[tuple]:
    async with pool.connection() as conn:
        return await (await conn.execute(query, params)).fetchall()


COLUMNS = ("automation, automation_version, mode::text, priority, payload, trigger_meta, max_attempts, "
           "max_claims, trigger_id, recording, concurrency_key, concurrency_limit, status::text, attempt")


@pytest.mark.parametrize("mode", ["live", "shadow"])
async def test_a_new_child_is_stored_with_the_columns_enqueue_many_writes_and_its_parent_link(pool, mode):
    ctx = await claimed(pool, mode)
    child_id = await ctx.enqueue("child-work", {"i": 7}, key="item-7")
    # The same spec through the general enqueue (another dedupe key): every other column agrees.
    spec = child_spec(job_run(ctx), "child-work", {"i": 7}, "item-7")
    twin = await Queue(pool, registry=registry).enqueue(
        JobSpec(spec.automation, spec.payload, mode=spec.mode, dedupe_key="twin", trigger_id=spec.trigger_id,
                recording=spec.recording, trigger_meta=spec.trigger_meta))
    (fast,) = await fetch(pool, f"SELECT {COLUMNS} FROM jobs WHERE id = %s", (child_id,))
    (general,) = await fetch(pool, f"SELECT {COLUMNS} FROM jobs WHERE id = %s", (twin,))
    assert fast == general
    assert await fetch(pool, "SELECT parent_id, dedupe_key FROM jobs WHERE id = %s", (child_id,)) == [
        (ctx.job_id, f"child:{ctx.job_id}:item-7")]
    assert await fetch(pool, "SELECT kind FROM ledger WHERE job_id = %s", (child_id,)) == [("enqueued",)]


async def test_a_live_parents_step_row_and_event_commit_with_the_child(pool):
    ctx = await claimed(pool, "live")
    child_id = await ctx.enqueue("child-work", {"i": 1}, key="item-1")
    steps = await fetch(pool, "SELECT step_name, status::text, output->>'child', position FROM steps WHERE job_id = %s",
                        (ctx.job_id,))
    assert steps == [("child:item-1", "done", str(child_id), 0)]
    events = await fetch(pool, "SELECT kind, detail->>'child', detail->>'key', detail->>'automation' FROM ledger"
                               " WHERE job_id = %s AND kind = 'child_enqueued'", (ctx.job_id,))
    assert events == [("child_enqueued", str(child_id), "item-1", "child-work")]


async def test_a_shadow_parent_defers_its_step_row_and_event_but_not_the_child(pool):
    ctx = await claimed(pool, "shadow")
    child_id = await ctx.enqueue("child-work", {"i": 1}, key="item-1")
    assert await fetch(pool, "SELECT count(*) FROM steps WHERE job_id = %s", (ctx.job_id,)) == [(0,)]
    assert await fetch(pool, "SELECT mode::text FROM jobs WHERE id = %s", (child_id,)) == [("shadow",)]
    pending = job_run(ctx).deferred_writes()
    assert pending is not None
    assert [(s["step_name"], s["output"]) for s in pending["steps"]] == [("child:item-1", {"child": str(child_id)})]
    assert [e["kind"] for e in pending["events"]] == ["child_enqueued"]


@pytest.mark.parametrize("mode", ["live", "shadow"])
async def test_a_retried_parent_gets_the_same_child_back_and_enqueues_no_second_one(pool, mode):
    ctx = await claimed(pool, mode)
    first = await ctx.enqueue("child-work", {"i": 2}, key="item-2")
    # Another attempt of the parent that has not seen its step row (shadow: deferred and lost;
    # live: a fresh Context that skips the load) enqueues the same key again.
    again = Context(ctx.job, pool, worker="test-worker", registry=registry)
    again._steps = {}
    assert await again.enqueue("child-work", {"i": 2}, key="item-2") == first
    assert await fetch(pool, "SELECT count(*) FROM jobs WHERE parent_id = %s", (ctx.job_id,)) == [(1,)]
    kinds = Counter(k for (k,) in await fetch(pool, "SELECT kind FROM ledger WHERE job_id = %s", (first,)))
    assert kinds["enqueued"] == 1


@pytest.mark.parametrize("mode", ["live", "shadow"])
async def test_a_parent_whose_claim_moved_on_enqueues_nothing_and_learns_it_lost_its_lease(pool, mode):
    ctx = await claimed(pool, mode)
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET claim_count = claim_count + 1 WHERE id = %s", (ctx.job_id,))
    with pytest.raises(LeaseLostError):
        await ctx.enqueue("child-work", {"i": 3}, key="item-3")
    assert await fetch(pool, "SELECT count(*) FROM jobs WHERE dedupe_key LIKE 'child:%%'") == [(0,)]
    assert await fetch(pool, "SELECT count(*) FROM steps WHERE job_id = %s", (ctx.job_id,)) == [(0,)]
    assert await fetch(pool, "SELECT count(*) FROM ledger WHERE kind = 'child_enqueued'") == [(0,)]

"""Every write of a job that lost its lease is refused: steps, checkpoints, waits, children, polls,
ledger events, calls, outcomes and heartbeats.

A job is claimed for real (Queue.claim) by ``old-worker`` and driven through its Context without a
worker. Between two of its writes its lease ends one of three ways, and the second write must
raise LeaseLostError and leave nothing behind:

- ``reclaimed``: the lease ran out and another worker claimed the job again (claim_count moved);
- ``slot_taken``: the lease ran out and another worker claimed a *different* job of the same
  concurrency key (limit 1) into the key's only slot; the job itself is still ``running`` under
  its old claim, so a fence on the claim alone lets its writes through;
- ``lapsed``: the lease ran out and nobody has taken anything yet.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta

import httpx
import pytest

from queue_core import Context, JobSpec, LeaseLostError, Outcome, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.budget import Budget
from queue_core.context import job_run
from queue_core.gateway import Gateway
from queue_core.provider import parse_provider
from queue_core.states import JobStatus
from tests.support.polling import until_status

registry = Registry()


@automation("keyed", registry=registry, concurrency_key="customer", concurrency_limit=1)
async def keyed(ctx, trigger):  # driven by the tests through its Context, never by a worker
    raise AssertionError("not run by a worker in these tests")


@automation("ticket", registry=registry)
async def ticket(ctx, trigger):
    raise AssertionError("not run by a worker in these tests")


NAMES = registry.names()


async def rows(pool, query: str, params: tuple = ()) -> list[tuple]:
    async with pool.connection() as conn:
        return await (await conn.execute(query, params)).fetchall()


@pytest.fixture
async def clean(pool):
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE poller_state, poller_seen, concurrency_slots")
    return pool


async def holder(pool, mode: str = "live", gateway: Gateway | None = None) -> Context:
    """Enqueue a ``keyed`` job of a customer of its own and claim it as ``old-worker``."""
    queue = Queue(pool, registry=registry)
    await queue.enqueue(JobSpec("keyed", {"customer": f"c-{uuid.uuid4().hex[:8]}"}, mode=mode))
    (job,) = await queue.claim("old-worker", 1, lease_s=30, automations=NAMES)
    return Context(job, pool, worker="old-worker", registry=registry, gateway=gateway)


async def _end_lease(pool, ctx: Context) -> None:
    """Make the job's lease (and its slot's copy of it) end now, as a frozen worker's would."""
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET leased_until = clock_timestamp() - interval '1 second' WHERE id = %s",
                           (ctx.job_id,))
        await conn.execute("UPDATE concurrency_slots SET until = clock_timestamp() - interval '1 second'"
                           " WHERE job_id = %s", (ctx.job_id,))


async def reclaimed(pool, ctx: Context) -> None:
    await _end_lease(pool, ctx)
    (job,) = await Queue(pool, registry=registry).claim("new-worker", 1, lease_s=30, automations=NAMES)
    assert (job.id, job.claim_count) == (ctx.job_id, ctx.job.claim_count + 1)


async def slot_taken(pool, ctx: Context) -> None:
    await _end_lease(pool, ctx)
    queue = Queue(pool, registry=registry)
    other = await queue.enqueue(JobSpec("keyed", ctx.job.payload, priority=9))
    (job,) = await queue.claim("new-worker", 1, lease_s=30, automations=NAMES)
    assert job.id == other
    (row,) = await rows(pool, "SELECT status::text, claim_count FROM jobs WHERE id = %s", (ctx.job_id,))
    assert row == ("running", ctx.job.claim_count)  # only the lease tells the old claim it is over


async def lapsed(pool, ctx: Context) -> None:
    await _end_lease(pool, ctx)


Takeover = Callable[[object, Context], Awaitable[None]]
TAKEOVERS = pytest.mark.parametrize("take_over", [reclaimed, slot_taken, lapsed])


async def _steps(pool, ctx: Context) -> list[tuple]:
    return await rows(pool, "SELECT step_name, status::text, output FROM steps WHERE job_id = %s ORDER BY position",
                      (ctx.job_id,))


# -- steps and checkpoints --------------------------------------------------------------------


@TAKEOVERS
async def test_a_step_begun_after_the_lease_ended_is_refused_and_its_code_not_run(clean, take_over):
    ctx = await holder(clean)
    ran: list[str] = []
    assert await ctx.step("one", lambda: ran.append("one") or 1) == 1
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.step("two", lambda: ran.append("two") or 2)
    assert ran == ["one"]
    assert await _steps(clean, ctx) == [("one", "done", 1)]


@TAKEOVERS
async def test_a_step_that_finishes_after_the_lease_ended_stores_no_output(clean, take_over):
    ctx = await holder(clean)

    async def long_step() -> str:
        await take_over(clean, ctx)  # the lease ends while the step's code runs
        return "late"

    with pytest.raises(LeaseLostError):
        await ctx.step("long", long_step)
    assert await _steps(clean, ctx) == [("long", "running", None)]


@TAKEOVERS
async def test_a_checkpoint_after_the_lease_ended_is_refused(clean, take_over):
    ctx = await holder(clean)

    async def import_rows() -> None:
        await ctx.checkpoint({"next": 1})
        await take_over(clean, ctx)
        await ctx.checkpoint({"next": 2})

    with pytest.raises(LeaseLostError):
        await ctx.step("import", import_rows)
    assert await rows(clean, "SELECT checkpoint, status::text FROM steps WHERE job_id = %s", (ctx.job_id,)) == [
        ({"next": 1}, "running")]


# -- waits ------------------------------------------------------------------------------------


@TAKEOVERS
async def test_a_sleep_after_the_lease_ended_is_refused_not_suspended(clean, take_over):
    ctx = await holder(clean)
    await ctx.step("one", lambda: 1)
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.sleep(timedelta(minutes=5))
    assert [s[0] for s in await _steps(clean, ctx)] == ["one"]


@TAKEOVERS
async def test_a_token_wait_after_the_lease_ended_registers_nothing(clean, take_over):
    ctx = await holder(clean)
    await ctx.step("one", lambda: 1)
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.wait_for_token("approval", timeout=timedelta(hours=1))
    assert await rows(clean, "SELECT name FROM waits WHERE job_id = %s", (ctx.job_id,)) == []
    assert [s[0] for s in await _steps(clean, ctx)] == ["one"]


@TAKEOVERS
async def test_an_event_wait_after_the_lease_ended_registers_nothing(clean, take_over):
    ctx = await holder(clean)
    await ctx.step("one", lambda: 1)
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.wait_for("SELECT 1 WHERE false", name="never")
    assert await rows(clean, "SELECT name FROM waits WHERE job_id = %s", (ctx.job_id,)) == []


# -- children and polls -----------------------------------------------------------------------


@TAKEOVERS
async def test_a_child_enqueued_after_the_lease_ended_is_not_created(clean, take_over):
    ctx = await holder(clean)
    first = await ctx.enqueue("ticket", {"i": 1}, key="a")
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.enqueue("ticket", {"i": 2}, key="b")
    assert await rows(clean, "SELECT id FROM jobs WHERE parent_id = %s", (ctx.job_id,)) == [(first,)]
    assert await rows(clean, "SELECT count(*) FROM jobs WHERE automation = 'ticket'") == [(1,)]
    assert [s[0] for s in await _steps(clean, ctx)] == ["child:a"]


@TAKEOVERS
async def test_a_child_that_exists_already_is_not_linked_after_the_lease_ended(clean, take_over):
    ctx = await holder(clean)
    await ctx.step("one", lambda: 1)
    spec = JobSpec("ticket", {"i": 3}, dedupe_key=f"child:{ctx.job_id}:c")  # enqueued by an earlier claim
    existing = await Queue(clean, registry=registry).enqueue(spec)
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.enqueue("ticket", {"i": 3}, key="c")
    assert await rows(clean, "SELECT parent_id FROM jobs WHERE id = %s", (existing,)) == [(None,)]
    assert [s[0] for s in await _steps(clean, ctx)] == ["one"]


@TAKEOVERS
async def test_a_poll_after_the_lease_ended_starts_nothing_and_keeps_the_cursor(clean, take_over):
    ctx = await holder(clean)
    assert await ctx.start_new("ticket", [{"id": 1}], id_of=lambda t: t["id"], cursor={"since": 1},
                               poller="feed") == ["1"]
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.start_new("ticket", [{"id": 2}], id_of=lambda t: t["id"], cursor={"since": 2}, poller="feed")
    assert await rows(clean, "SELECT cursor, polls FROM poller_state WHERE poller = 'feed'") == [({"since": 1}, 1)]
    assert await rows(clean, "SELECT item_id FROM poller_seen WHERE poller = 'feed'") == [("1",)]
    assert await rows(clean, "SELECT count(*) FROM jobs WHERE automation = 'ticket'") == [(1,)]


# -- ledger events and calls ------------------------------------------------------------------


@TAKEOVERS
async def test_a_ledger_event_after_the_lease_ended_is_refused(clean, take_over):
    ctx = await holder(clean)
    await ctx.ledger("note", {"n": 1})
    await take_over(clean, ctx)
    with pytest.raises(LeaseLostError):
        await ctx.ledger("note", {"n": 2})
    assert await rows(clean, "SELECT detail FROM ledger WHERE job_id = %s AND kind = 'note'", (ctx.job_id,)) == [
        ({"n": 1},)]


def _gateway(pool, handler) -> Gateway:
    """A gateway whose providers answer on loopback through ``handler`` (httpx.MockTransport)."""
    providers = {"pay": parse_provider("pay", {"base_url": "https://pay.test"}),
                 "rated": parse_provider("rated", {"base_url": "https://rated.test", "rate": "100/1s"})}
    return Gateway(providers, pool, transport=httpx.MockTransport(handler))


async def _spent(pool) -> int:
    """Calls the ``rated`` provider's window counts now."""
    return sum(state.spent for state in await Budget(pool).states("rated"))


@TAKEOVERS
async def test_a_call_settled_after_the_lease_ended_is_not_stored(clean, take_over):
    ctx: Context | None = None

    async def answer_after_the_takeover(request: httpx.Request) -> httpx.Response:
        assert ctx is not None
        await take_over(clean, ctx)
        return httpx.Response(200, json={"id": "ch_1"}, request=request)

    async with _gateway(clean, answer_after_the_takeover) as gw:
        ctx = await holder(clean, gateway=gw)
        with pytest.raises(LeaseLostError):
            await ctx.call("pay", "POST", "/charges", step="charge", json={"amount": 1})
    assert await rows(clean, "SELECT status::text, external_ref FROM steps WHERE job_id = %s", (ctx.job_id,)) == [
        ("running", None)]
    assert await rows(clean, "SELECT count(*) FROM ledger WHERE job_id = %s AND kind = 'call'",
                      (ctx.job_id,)) == [(0,)]


@TAKEOVERS
async def test_a_call_begun_after_the_lease_ended_is_not_put_on_record_nor_sent(clean, take_over):
    sent: list[httpx.Request] = []
    async with _gateway(clean, lambda request: sent.append(request) or httpx.Response(200)) as gw:
        ctx = await holder(clean, gateway=gw)
        await ctx.step("one", lambda: 1)
        await take_over(clean, ctx)
        with pytest.raises(LeaseLostError):
            await ctx.call("pay", "POST", "/charges", step="charge", json={"amount": 1})
    assert [s[0] for s in await _steps(clean, ctx)] == ["one"]
    assert sent == []


@TAKEOVERS
async def test_a_worker_whose_lease_is_lost_spends_no_rate_budget(clean, take_over):
    async with clean.connection() as conn:
        await conn.execute("DELETE FROM provider_budgets WHERE provider = 'rated'")
    sent: list[httpx.Request] = []
    async with _gateway(clean, lambda request: sent.append(request) or httpx.Response(200)) as gw:
        ctx = await holder(clean, gateway=gw)
        await ctx.call("rated", "POST", "/effects", step="first", json={})
        assert await _spent(clean) == 1  # a call of a live claim spends its token
        await take_over(clean, ctx)
        with pytest.raises(LeaseLostError):
            await ctx.call("rated", "POST", "/effects", step="second", json={})
    assert await _spent(clean) == 1
    assert len(sent) == 1
    assert [s[0] for s in await _steps(clean, ctx)] == ["first"]


# -- outcomes, decisions and heartbeats -------------------------------------------------------


@TAKEOVERS
async def test_an_outcome_after_the_lease_ended_changes_nothing(clean, take_over):
    ctx = await holder(clean)
    await take_over(clean, ctx)
    (before,) = await rows(clean, "SELECT status::text, claim_count, attempt FROM jobs WHERE id = %s", (ctx.job_id,))
    assert await Queue(clean, registry=registry).complete([Outcome.succeeded(ctx.job)], worker="old-worker") == set()
    assert await rows(clean, "SELECT status::text, claim_count, attempt FROM jobs WHERE id = %s",
                      (ctx.job_id,)) == [before]
    assert await rows(clean, "SELECT count(*) FROM ledger WHERE job_id = %s AND kind = 'succeeded'",
                      (ctx.job_id,)) == [(0,)]


@TAKEOVERS
async def test_a_shadow_jobs_decisions_and_deferred_steps_after_the_lease_ended_are_not_written(clean, take_over):
    ctx = await holder(clean, mode="shadow")
    await ctx.step("one", lambda: 1)
    ctx.decide("route", "vip")
    await ctx.ledger("note", {"n": 1})
    await take_over(clean, ctx)
    outcome = Outcome(ctx.job_id, ctx.job.claim_count, JobStatus.SUCCEEDED, "succeeded",
                      trace=ctx.trace.as_dict(), deferred=job_run(ctx).deferred_writes())
    assert await Queue(clean, registry=registry).complete([outcome], worker="old-worker") == set()
    assert await rows(clean, "SELECT count(*) FROM decisions WHERE job_id = %s", (ctx.job_id,)) == [(0,)]
    assert await _steps(clean, ctx) == []
    assert await rows(clean, "SELECT count(*) FROM ledger WHERE job_id = %s AND kind = 'note'", (ctx.job_id,)) == [
        (0,)]


@TAKEOVERS
async def test_a_heartbeat_does_not_revive_a_lease_that_ended(clean, take_over):
    ctx = await holder(clean)
    await take_over(clean, ctx)
    (before,) = await rows(clean, "SELECT leased_until, lease_owner FROM jobs WHERE id = %s", (ctx.job_id,))
    queue = Queue(clean, registry=registry)
    assert await queue.heartbeat([(ctx.job_id, ctx.job.claim_count)], lease_s=30) == set()
    assert await rows(clean, "SELECT leased_until, lease_owner FROM jobs WHERE id = %s", (ctx.job_id,)) == [before]



# -- the worker -------------------------------------------------------------------------------


def _worker(pool, reg: Registry, heartbeat_s: float) -> Worker:
    return Worker(pool, reg, WorkerConfig(concurrency=1, lease_s=30, heartbeat_s=heartbeat_s, poll_s=0.05,
                                          shutdown_grace_s=1))


async def _until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def test_a_job_whose_write_is_refused_stops_there_quietly_and_is_left_to_its_next_claim(clean, caplog):
    reg = Registry()
    go_on = asyncio.Event()
    reached: list[tuple[int, str]] = []

    @automation("two-steps", registry=reg)
    async def two_steps(ctx, trigger):
        await ctx.step("one", lambda: 1)
        reached.append((ctx.job.claim_count, "one"))
        await go_on.wait()
        await ctx.step("two", lambda: 2)
        reached.append((ctx.job.claim_count, "two"))

    queue = Queue(clean, registry=reg)
    job_id = await queue.enqueue(JobSpec("two-steps"))
    worker = _worker(clean, reg, heartbeat_s=9)  # no heartbeat before the refused write
    task = asyncio.create_task(worker.run())
    try:
        await _until(lambda: reached == [(1, "one")])
        await end_lease_of(clean, job_id)
        go_on.set()
        await _until(lambda: worker.stats["lost"] == 1)
        assert await until_status(queue, job_id, "succeeded") == "succeeded"  # the next claim finishes it
    finally:
        worker.stop()
        await asyncio.wait_for(task, 10)
    assert [r for r in reached if r[0] == 1] == [(1, "one")]  # claim 1 stopped at its refused write
    kinds = [k for (k,) in await rows(clean, "SELECT kind FROM ledger WHERE job_id = %s ORDER BY seq", (job_id,))]
    assert kinds == ["enqueued", "claimed", "reclaimed", "succeeded"]  # no outcome from claim 1
    assert any(f"job {job_id}: lease lost" in r.getMessage() for r in caplog.records)


async def test_a_job_whose_lease_ran_out_is_cancelled_at_the_next_heartbeat_though_nobody_took_it(clean):
    reg = Registry()
    started = asyncio.Event()
    finished: list[int] = []

    @automation("slow", registry=reg)
    async def run_slowly(ctx, trigger):
        started.set()
        await asyncio.sleep(5)
        finished.append(ctx.job.claim_count)

    job_id = await Queue(clean, registry=reg).enqueue(JobSpec("slow"))
    worker = _worker(clean, reg, heartbeat_s=0.1)
    task = asyncio.create_task(worker.run())
    try:
        await asyncio.wait_for(started.wait(), 10)
        await end_lease_of(clean, job_id)
        await _until(lambda: worker.stats["lost"] == 1, timeout=3)  # not revived by the heartbeat
    finally:
        worker.stop()
        await asyncio.wait_for(task, 10)
    assert 1 not in finished  # claim 1 was cancelled; a later claim (this worker's, again) may run it


async def end_lease_of(pool, job_id: uuid.UUID) -> None:
    """End a job's lease now without anyone taking it over."""
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET leased_until = clock_timestamp() - interval '1 second' WHERE id = %s",
                           (job_id,))

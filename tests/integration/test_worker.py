"""The worker end to end on a real Postgres: outcomes, traces, wake-up, shutdown, outages."""

from __future__ import annotations

import asyncio
import random

import psycopg

from queue_core import JobSpec, Queue, Worker, WorkerConfig
from tests.support.automations import registry
from tests.support.polling import until_status


def fast(**kw) -> WorkerConfig:
    base = dict(concurrency=4, lease_s=5, poll_s=0.05, shutdown_grace_s=1)
    base.update(kw)
    return WorkerConfig(**base)


async def drain(pool, cfg: WorkerConfig | None = None, **kw) -> Worker:
    worker = Worker(pool, registry, cfg or fast(), rng=random.Random(1), **kw)
    await asyncio.wait_for(worker.run(drain=True), 30)
    return worker


async def test_worker_drains_jobs_and_records_each_transition(pool):
    queue = Queue(pool, registry=registry)
    ids = await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(25)])
    worker = await drain(pool)
    assert await queue.counts() == {"succeeded": 25}
    assert worker.stats["completed"] == 25
    kinds = [e["kind"] for e in await queue.ledger(ids[0])]
    assert kinds == ["enqueued", "claimed", "succeeded"]
    assert all(e["actor"] == worker.id for e in (await queue.ledger(ids[0]))[1:])


async def test_terminal_error_fails_at_once_with_kind_and_summary(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("fail-terminal"))
    await drain(pool)
    job = await queue.get(job_id)
    assert (job["status"], job["attempt"], job["error_kind"]) == ("failed", 1, "terminal")
    assert job["last_error"] == "TerminalError: the account is closed"


async def test_unclassified_exception_is_retried_until_attempts_run_out(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("fail-retryable", {"delay": 0}, max_attempts=3))
    await drain(pool)
    job = await queue.get(job_id)
    assert (job["status"], job["attempt"], job["error_kind"]) == ("failed", 3, "retryable")
    assert job["last_error"].startswith("attempts exhausted (3/3)")
    kinds = [e["kind"] for e in await queue.ledger(job_id)]
    assert kinds.count("retry_scheduled") == 2 and kinds[-1] == "failed"


async def test_plain_exception_is_retryable_with_backoff(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("explode"))
    await drain(pool)
    job = await queue.get(job_id)
    assert (job["status"], job["attempt"], job["error_kind"]) == ("pending", 1, "retryable")
    assert "KeyError" in job["last_error"]
    async with pool.connection() as conn:
        (delay,) = await (await conn.execute("SELECT extract(epoch FROM run_after - now()) FROM jobs")).fetchone()
    assert 0 < delay <= 1.0


async def test_snooze_puts_the_job_back_without_using_an_attempt(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("snooze"))
    await drain(pool)
    job = await queue.get(job_id)
    assert (job["status"], job["attempt"], job["last_error"]) == ("pending", 0, "waiting for the CRM to catch up")


async def test_shadow_jobs_store_their_decision_trace(pool):
    queue = Queue(pool, registry=registry)
    big, free = await queue.enqueue_many([
        JobSpec("decider", {"employees": 5000}, mode="shadow"),
        JobSpec("decider", {"employees": 3, "free": True}, mode="dry_run"),
    ])
    live = await queue.enqueue(JobSpec("decider", {"employees": 5}))
    await drain(pool)
    assert (await queue.trace(big))["decisions"] == {"route": "enterprise"}
    assert (await queue.trace(free))["status"] == "filtered"
    assert await queue.trace(live) is None


async def test_worker_only_claims_the_modes_it_is_configured_for(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", mode="live"), JobSpec("noop", mode="shadow")])
    await drain(pool, fast(modes=("shadow",)))
    assert await queue.counts() == {"pending": 1, "succeeded": 1}


async def test_notify_wakes_an_idle_worker_before_its_poll_interval(pool, db_url):
    queue = Queue(pool, registry=registry)
    worker = Worker(pool, registry, fast(poll_s=60), conninfo=db_url)
    task = asyncio.create_task(worker.run())
    await asyncio.sleep(0.5)  # the worker is idle, waiting for its 60 s poll
    job_id = await queue.enqueue(JobSpec("noop"))
    await until_status(queue, job_id, "succeeded")
    worker.stop()
    await asyncio.wait_for(task, 10)
    assert (await queue.get(job_id))["status"] == "succeeded"


async def test_a_worker_built_without_conninfo_listens_through_its_pools_conninfo(pool, db_url):
    """A Worker built from Python with only a pool still LISTENs (on a connection of its own,
    opened from the pool's conninfo): a job enqueued while it idles starts long before its 30 s
    poll. Events with bounded waits, no millisecond timing."""
    queue = Queue(pool, registry=registry)
    worker = Worker(pool, registry, fast(poll_s=30))
    task = asyncio.create_task(worker.run())
    try:
        listening = False
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            for _ in range(100):  # up to 5 s for the notifier to connect and LISTEN
                row = await (await conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                    " AND datname = current_database() AND query LIKE 'LISTEN cutover_%%'",
                    [worker.config.application_name])).fetchone()
                if row[0]:
                    listening = True
                    break
                await asyncio.sleep(0.05)
        assert listening, "a worker built without conninfo= never LISTENs: it would only poll"
        job_id = await queue.enqueue(JobSpec("noop"))
        # Claimed (started) within 100 tries every 50 ms: 5 s, far inside the 30 s poll interval.
        kinds: list[str] = []
        for _ in range(100):
            kinds = [e["kind"] for e in await queue.ledger(job_id)]
            if "claimed" in kinds:
                break
            await asyncio.sleep(0.05)
        assert "claimed" in kinds, kinds
    finally:
        worker.stop()
        await asyncio.wait_for(task, 10)


async def test_graceful_stop_releases_unfinished_jobs_without_using_an_attempt(pool):
    from queue_core import automation, Registry

    slow = Registry()
    started = asyncio.Event()

    @automation("slow", registry=slow)
    async def run_slowly(ctx, trigger):
        started.set()
        await asyncio.sleep(60)

    queue = Queue(pool, registry=slow)
    job_id = await queue.enqueue(JobSpec("slow"))
    worker = Worker(pool, slow, fast(shutdown_grace_s=0.2))
    task = asyncio.create_task(worker.run())
    await asyncio.wait_for(started.wait(), 10)
    worker.stop()
    await asyncio.wait_for(task, 10)
    job = await queue.get(job_id)
    assert (job["status"], job["attempt"], job["lease_owner"]) == ("pending", 0, None)
    assert [e["kind"] for e in await queue.ledger(job_id)][-1] == "released"


async def test_job_whose_lease_was_taken_over_is_stopped_and_its_outcome_dropped(pool):
    from queue_core import automation, Registry

    reg = Registry()
    started = asyncio.Event()
    finished = []

    @automation("slow", registry=reg)
    async def run_slowly(ctx, trigger):
        started.set()
        await asyncio.sleep(3)
        finished.append(ctx.job_id)

    queue = Queue(pool, registry=reg)
    job_id = await queue.enqueue(JobSpec("slow"))
    worker = Worker(pool, reg, fast(lease_s=30, heartbeat_s=0.1))
    task = asyncio.create_task(worker.run())
    await asyncio.wait_for(started.wait(), 10)
    async with pool.connection() as conn:  # another worker takes the job over
        await conn.execute("UPDATE jobs SET claim_count = claim_count + 1, lease_owner = 'thief'")
    await asyncio.sleep(0.5)
    worker.stop()
    await asyncio.wait_for(task, 10)
    assert finished == [] and worker.stats["lost"] == 1
    job = await queue.get(job_id)
    assert (job["status"], job["lease_owner"]) == ("running", "thief")


async def test_a_lost_job_gives_its_slot_back(pool):
    """With room for one job, losing that job's lease must free the room for the next job."""
    from queue_core import automation, Registry

    reg = Registry()
    started = asyncio.Event()
    ran: list[str] = []

    @automation("slow", registry=reg)
    async def run_slowly(ctx, trigger):
        started.set()
        await asyncio.sleep(3)

    @automation("quick", registry=reg)
    async def run_quickly(ctx, trigger):
        ran.append("quick")

    queue = Queue(pool, registry=reg)
    await queue.enqueue(JobSpec("slow"))
    worker = Worker(pool, reg, fast(concurrency=1, lease_s=30, heartbeat_s=0.1))
    task = asyncio.create_task(worker.run())
    await asyncio.wait_for(started.wait(), 10)
    async with pool.connection() as conn:  # another worker takes the job over
        await conn.execute("UPDATE jobs SET claim_count = claim_count + 1, lease_owner = 'thief'")
    quick = await queue.enqueue(JobSpec("quick"))
    await until_status(queue, quick, "succeeded")
    worker.stop()
    await asyncio.wait_for(task, 10)
    assert worker.stats["lost"] == 1 and ran == ["quick"]
    assert (await queue.get(quick))["status"] == "succeeded"


async def test_worker_survives_the_database_dropping_its_connections(pool, db_url):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop") for _ in range(10)])
    worker = Worker(pool, registry, fast(poll_s=0.05), conninfo=db_url)
    task = asyncio.create_task(worker.run())
    await asyncio.sleep(0.3)
    dbname = psycopg.conninfo.conninfo_to_dict(db_url)["dbname"]
    with psycopg.connect(db_url, autocommit=True) as admin:  # the database "goes away" for everyone
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (dbname,),
        )
    await queue.enqueue_many([JobSpec("noop") for _ in range(10)])
    for _ in range(200):
        if (await queue.counts()).get("succeeded") == 20:
            break
        await asyncio.sleep(0.05)
    worker.stop()
    await asyncio.wait_for(task, 10)
    assert await queue.counts() == {"succeeded": 20}


async def test_slow_completer_holds_back_claiming_instead_of_overcommitting(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop") for _ in range(12)])
    worker = Worker(pool, registry, fast(concurrency=3, complete_batch=2))
    held = {"now": 0, "max": 0}
    claim, complete = worker.queue.claim, worker.queue.complete

    async def counting_claim(*args, **kw):
        got = await claim(*args, **kw)
        held["now"] += len(got)
        held["max"] = max(held["max"], held["now"])
        return got

    async def slow_complete(outcomes, **kw):
        await asyncio.sleep(0.2)
        applied = await complete(outcomes, **kw)
        held["now"] -= len(outcomes)
        return applied

    both = worker.queue.complete_and_claim

    async def slow_both(outcomes, *args, **kw):
        await asyncio.sleep(0.2)
        applied, got = await both(outcomes, *args, **kw)
        held["now"] += len(got) - len(outcomes)
        held["max"] = max(held["max"], held["now"])
        return applied, got

    worker.queue.claim, worker.queue.complete, worker.queue.complete_and_claim = counting_claim, slow_complete, slow_both
    await asyncio.wait_for(worker.run(drain=True), 30)
    assert await queue.counts() == {"succeeded": 12}
    assert held["max"] <= 3, f"held {held['max']} jobs with concurrency 3"


async def test_worker_whose_heartbeats_fail_stops_claiming(pool):
    from queue_core import Registry, automation

    reg = Registry()
    release = asyncio.Event()

    @automation("hold", registry=reg)
    async def hold(ctx, trigger):
        await release.wait()

    queue = Queue(pool, registry=reg)
    await queue.enqueue(JobSpec("hold"))
    worker = Worker(pool, reg, fast(concurrency=4, lease_s=30, heartbeat_s=0.05))

    async def failing_heartbeat(*args, **kw):
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    worker.queue.heartbeat = failing_heartbeat
    task = asyncio.create_task(worker.run())
    for _ in range(100):
        if worker.stats["claimed"] == 1 and not worker.heartbeater.claiming_ok:
            break
        await asyncio.sleep(0.02)
    await queue.enqueue_many([JobSpec("hold") for _ in range(3)])  # capacity is free, but…
    await asyncio.sleep(0.3)
    assert worker.stats["claimed"] == 1, "a worker that cannot heartbeat must not take more work"
    release.set()
    worker.stop()
    await asyncio.wait_for(task, 10)


async def test_worker_vacuums_the_jobs_table_after_every_n_outcomes(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(40)])
    worker = Worker(pool, registry, fast(vacuum_every=10, lanes=1, concurrency=2), rng=random.Random(1))
    calls: list[int] = []

    async def counting_vacuum() -> None:
        calls.append(worker.stats["completed"])

    worker.queue.vacuum = counting_vacuum  # type: ignore[method-assign]
    await asyncio.wait_for(worker.run(drain=True), 30)
    assert await queue.counts() == {"succeeded": 40}
    assert calls and all(c >= 10 for c in calls)  # never before ten outcomes were written
    assert len(calls) <= 4


async def test_vacuum_every_zero_leaves_the_table_to_autovacuum(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(10)])
    worker = Worker(pool, registry, fast(vacuum_every=0), rng=random.Random(1))

    async def forbidden() -> None:
        raise AssertionError("vacuumed although vacuum_every=0")

    worker.queue.vacuum = forbidden  # type: ignore[method-assign]
    await asyncio.wait_for(worker.run(drain=True), 30)
    assert await queue.counts() == {"succeeded": 10}


async def test_a_worker_given_its_own_pool_runs_on_it_and_leaves_it_open(pool, db_url):
    from psycopg_pool import AsyncConnectionPool

    queue = Queue(pool, registry=registry)
    async with AsyncConnectionPool(db_url, min_size=1, max_size=2, kwargs={"autocommit": True}) as own:
        for round_ in range(2):  # a second worker on the same pool: it was not closed by the first
            await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(5)])
            worker = Worker(pool, registry, fast(), rng=random.Random(round_), own_pool=own)
            await asyncio.wait_for(worker.run(drain=True), 30)
            assert not own.closed and own.get_stats()["requests_num"] > 0
        assert await queue.counts() == {"succeeded": 10}


async def test_each_lane_keeps_one_connection_for_its_turns(pool, db_url):
    from psycopg_pool import AsyncConnectionPool

    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(60)])
    async with AsyncConnectionPool(db_url, min_size=1, max_size=4, kwargs={"autocommit": True}) as own:
        worker = Worker(pool, registry, fast(concurrency=4, lanes=2, vacuum_every=0), rng=random.Random(1), own_pool=own)
        turns = 0
        claim = worker.queue.complete_and_claim

        async def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal turns
            turns += 1
            return await claim(*args, **kwargs)

        worker.queue.complete_and_claim = counted  # type: ignore[method-assign]
        await asyncio.wait_for(worker.run(drain=True), 30)
        checkouts = own.get_stats()["requests_num"]
    assert await queue.counts() == {"succeeded": 60}
    # Two lanes of two jobs each: at least 30 turns wrote and claimed; each lane checked a
    # connection out once, and the drain's last checks took a few more.
    assert turns >= 25
    assert checkouts <= 8, (checkouts, turns)


async def test_a_pool_without_autocommit_is_used_a_checkout_per_turn(pool, db_url):
    from psycopg_pool import AsyncConnectionPool

    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(20)])
    async with AsyncConnectionPool(db_url, min_size=1, max_size=4) as own:  # transactions, not autocommit
        worker = Worker(pool, registry, fast(vacuum_every=0), rng=random.Random(1), own_pool=own)
        await asyncio.wait_for(worker.run(drain=True), 30)
        assert own.get_stats()["requests_num"] > 10  # each turn checked a connection out (and committed)
    assert await queue.counts() == {"succeeded": 20}


async def _vacuum_count(url: str) -> int:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        row = await (await conn.execute("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'jobs'")).fetchone()
        return int(row[0]) if row else 0


async def test_queue_vacuum_vacuums_the_jobs_table(pool, db_url):
    queue = Queue(pool, registry=registry)
    before = await _vacuum_count(db_url)
    await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(30)])
    await drain(pool, fast(vacuum_every=0))
    await queue.vacuum()
    for _ in range(50):  # the statistics reach other sessions within a second or so
        if await _vacuum_count(db_url) > before:
            break
        await asyncio.sleep(0.1)
    assert await _vacuum_count(db_url) > before


# -- draining beside other workers -------------------------------------------------------------

def _counting_live_leases(worker: Worker, seen: asyncio.Event, times: int) -> None:
    """Set ``seen`` once ``worker`` has found another worker's live lease ``times`` times."""
    found = 0
    check = worker._leased_elsewhere

    async def counted(*args: float) -> int:
        nonlocal found
        n = await check(*args)
        found += n > 0
        if found >= times:
            seen.set()
        return n

    worker._leased_elsewhere = counted  # type: ignore[method-assign]


async def test_a_draining_worker_waits_for_a_job_another_worker_is_running(pool):
    from queue_core import Registry, automation

    reg = Registry()
    started, release = asyncio.Event(), asyncio.Event()

    @automation("slow", registry=reg)
    async def run_slowly(ctx, trigger):
        started.set()
        await release.wait()

    queue = Queue(pool, registry=reg)
    job_id = await queue.enqueue(JobSpec("slow"))
    other = Worker(pool, reg, fast())
    other_task = asyncio.create_task(other.run())
    await asyncio.wait_for(started.wait(), 10)
    drainer = Worker(pool, reg, fast())
    waited = asyncio.Event()
    _counting_live_leases(drainer, waited, times=3)
    draining = asyncio.create_task(drainer.run(drain=True))
    await asyncio.wait_for(waited.wait(), 10)
    assert not draining.done(), "--drain exited while another worker's job was running"
    release.set()
    await asyncio.wait_for(draining, 10)
    assert (await queue.get(job_id))["status"] == "succeeded"
    other.stop()
    await asyncio.wait_for(other_task, 10)


async def test_a_draining_worker_reclaims_a_dead_workers_job_once_its_lease_ends(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"))
    (claimed,) = await queue.claim("dead-worker", 1, lease_s=1.0, automations=["noop"])  # and never heartbeats
    assert claimed.id == job_id
    drainer = await drain(pool)
    job = await queue.get(job_id)
    assert (job["status"], job["claim_count"]) == ("succeeded", 2)
    ledger = await queue.ledger(job_id)
    assert [(e["kind"], e["actor"]) for e in ledger[1:]] == [
        ("claimed", "dead-worker"), ("reclaimed", drainer.id), ("succeeded", drainer.id)]


# -- connections apart from concurrency --------------------------------------------------------

async def _max_connections(url: str, application_name: str, stop: asyncio.Event) -> int:
    """Sample pg_stat_activity until ``stop``; return the most connections named so at once."""
    most = 0
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while not stop.is_set():
            cur = await conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                                     (application_name,))
            most = max(most, (await cur.fetchone())[0])
            await asyncio.sleep(0.01)
    return most


async def test_a_worker_runs_fifty_jobs_at_once_on_four_connections_and_opens_no_more(pool, db_url):
    from queue_core import Registry, automation, db
    from queue_core.cli import _run_worker

    reg = Registry()
    running = {"now": 0, "max": 0}

    @automation("stepper", registry=reg)
    async def stepper(ctx, trigger):
        running["now"] += 1
        running["max"] = max(running["max"], running["now"])
        await ctx.step("fetch", lambda: trigger.body["i"])  # a step: one of the jobs' connections
        await asyncio.sleep(0.05)
        running["now"] -= 1

    queue = Queue(pool, registry=reg)
    await queue.enqueue_many([JobSpec("stepper", {"i": i}, mode="shadow") for i in range(300)])
    cfg = fast(concurrency=50, vacuum_every=0)
    stop = asyncio.Event()
    sampler = asyncio.create_task(_max_connections(db_url, cfg.application_name, stop))
    plan = db.plan_connections(4, concurrency=50)
    await asyncio.wait_for(_run_worker(db_url, reg, cfg, True, (), plan), 60)
    stop.set()
    most = await sampler
    assert await queue.counts() == {"succeeded": 300}
    assert running["max"] > 4, "the jobs did not run more at once than there are connections"
    assert 2 <= most <= 4, most

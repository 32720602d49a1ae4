"""Schedules on a real Postgres: sync, tick production, exactly-once under racing producers, pauses."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta, timezone

import pytest

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core import _ticker, ops
from queue_core import schedule as sch

UTC = timezone.utc
T0 = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)

registry = Registry()


@automation("tick", registry=registry)
async def tick(ctx, trigger):
    return None


@automation("berlin", schedule="*/15 * * * *", timezone="Europe/Berlin", registry=registry)
async def berlin(ctx, trigger):
    return None


EVERY_MINUTE = sch.ScheduleSpec("every-minute", "tick", "* * * * *", payload={"from": "schedule"})


@pytest.fixture
async def clean(pool):
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE schedules")
    yield pool


async def _jobs(pool) -> list[dict]:
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT dedupe_key, trigger_meta, payload, status::text FROM jobs ORDER BY dedupe_key")
        return [dict(zip(("dedupe_key", "meta", "payload", "status"), r)) for r in await cur.fetchall()]


async def _schedule(pool, name: str) -> dict:
    rows = {r["name"]: r for r in await _ticker.list_schedules(pool)}
    return rows[name]


async def test_a_due_tick_is_enqueued_once_with_the_tick_as_received_at(clean):
    pool = clean
    await _ticker.sync(pool, [EVERY_MINUTE], automations=["tick"], now=T0)
    assert await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0) == 0
    assert await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(seconds=61)) == 1
    assert await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(seconds=62)) == 0
    jobs = await _jobs(pool)
    assert [j["dedupe_key"] for j in jobs] == ["schedule:every-minute:2024-06-01T12:01:00+00:00"]
    assert jobs[0]["meta"] == {"source": "schedule", "schedule": "every-minute",
                               "received_at": "2024-06-01T12:01:00+00:00", "tick": "2024-06-01T12:01:00+00:00"}
    assert jobs[0]["payload"] == {"from": "schedule"}
    row = await _schedule(pool, "every-minute")
    assert (row["last_tick"], row["next_tick"], row["producer"]) == (T0 + timedelta(minutes=1), T0 + timedelta(minutes=2), "w")


async def test_ticks_missed_while_nothing_ran_follow_the_catch_up_policy(clean):
    pool = clean
    specs = [sch.ScheduleSpec(f"s-{p}", "tick", "*/10 * * * *", catch_up=sch.CatchUp(p), catch_up_max=3)
             for p in ("latest", "all", "none")]
    await _ticker.sync(pool, specs, automations=["tick"], now=T0)
    await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(hours=1, minutes=5))
    keys = [j["dedupe_key"] for j in await _jobs(pool)]
    assert keys == ["schedule:s-all:2024-06-01T12:40:00+00:00", "schedule:s-all:2024-06-01T12:50:00+00:00",
                    "schedule:s-all:2024-06-01T13:00:00+00:00", "schedule:s-latest:2024-06-01T13:00:00+00:00"]


async def test_racing_producers_enqueue_each_tick_exactly_once(clean):
    pool = clean
    specs = [sch.ScheduleSpec(f"race-{i}", "tick", "* * * * *", catch_up=sch.CatchUp.ALL) for i in range(50)]
    await _ticker.sync(pool, specs, automations=["tick"], now=T0)
    for minute in range(1, 4):
        now = T0 + timedelta(minutes=minute, seconds=1)
        await asyncio.gather(*(_ticker.produce_due_ticks(pool, registry, worker=f"w{i}", now=now, limit=7)
                               for i in range(6)))
        while await _ticker.produce_due_ticks(pool, registry, worker="last", now=now):
            pass
    keys = [j["dedupe_key"] for j in await _jobs(pool)]
    assert len(keys) == len(set(keys)) == 50 * 3


async def test_a_stale_producer_cannot_enqueue_a_tick_twice(clean):
    """Two producers that both planned the same tick (one from an old snapshot): the dedupe key,
    unique in the database, keeps one job."""
    pool = clean
    queue = Queue(pool, registry=registry)
    spec = JobSpec("tick", dedupe_key=sch.dedupe_key("x", T0), trigger_meta=sch.tick_meta("x", T0))
    first, second = await asyncio.gather(queue.enqueue(spec), queue.enqueue(spec))
    assert first == second and len(await _jobs(pool)) == 1


async def test_a_paused_automation_produces_no_ticks_and_skips_them_on_resume(clean):
    pool = clean
    await _ticker.sync(pool, [EVERY_MINUTE], automations=["tick"], now=T0)
    async with pool.connection() as conn:
        await conn.execute("INSERT INTO pauses (kind, name, paused_by) VALUES ('automation', 'tick', 'test')")
    await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(minutes=5, seconds=1))
    assert await _jobs(pool) == []
    row = await _schedule(pool, "every-minute")
    assert row["automation_paused"] and row["next_tick"] == T0 + timedelta(minutes=6)
    async with pool.connection() as conn:
        await conn.execute("DELETE FROM pauses")
    await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(minutes=6, seconds=1))
    assert [j["dedupe_key"] for j in await _jobs(pool)] == ["schedule:every-minute:2024-06-01T12:06:00+00:00"]


async def test_a_schedule_paused_in_its_declaration_produces_nothing(clean):
    pool = clean
    paused = sch.ScheduleSpec("p", "tick", "* * * * *", paused=True)
    await _ticker.sync(pool, [paused], automations=["tick"], now=T0)
    await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(minutes=3))
    assert await _jobs(pool) == [] and (await _schedule(pool, "p"))["paused_in_config"]


async def test_resync_keeps_the_next_tick_unless_the_cron_changed_and_drops_undeclared(clean):
    pool = clean
    other = sch.ScheduleSpec("other", "tick", "@daily")
    await _ticker.sync(pool, [EVERY_MINUTE, other], automations=["tick"], now=T0)
    await _ticker.sync(pool, [EVERY_MINUTE], automations=["tick"], now=T0 + timedelta(hours=1))
    rows = {r["name"]: r for r in await _ticker.list_schedules(pool)}
    assert set(rows) == {"every-minute"} and rows["every-minute"]["next_tick"] == T0 + timedelta(minutes=1)
    changed = sch.ScheduleSpec("every-minute", "tick", "*/5 * * * *")
    await _ticker.sync(pool, [changed], automations=["tick"], now=T0 + timedelta(hours=1))
    assert (await _schedule(pool, "every-minute"))["next_tick"] == T0 + timedelta(hours=1, minutes=5)


async def test_jobs_explain_names_the_tick_of_a_schedule_job(clean):
    pool = clean
    await _ticker.sync(pool, [EVERY_MINUTE], automations=["tick"], now=T0)
    await _ticker.produce_due_ticks(pool, registry, worker="w", now=T0 + timedelta(minutes=1, seconds=1))
    async with pool.connection() as conn:
        (job_id,) = await (await conn.execute("SELECT id FROM jobs")).fetchone()
    job = await Queue(pool, registry=registry).get(job_id)
    lines = await ops.explain(pool, job)
    assert "enqueued by schedule 'every-minute' for its tick at 2024-06-01T12:01:00+00:00." in lines


async def test_a_running_worker_produces_its_decorated_schedules_ticks(clean):
    """The worker syncs the decorator's schedule at start and enqueues its due tick itself."""
    pool = clean
    specs = _ticker.declared_for(registry)
    assert [s.name for s in specs] == ["berlin"]
    # Synced an hour ago: the worker finds the schedule's missed ticks due and catches up once.
    await _ticker.sync(pool, specs, automations=registry.names(), now=datetime.now(UTC) - timedelta(hours=1))
    worker = Worker(pool, registry, WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05, shutdown_grace_s=1),
                    rng=random.Random(1))
    task = asyncio.create_task(worker.run())
    try:
        for _ in range(200):
            jobs = await _jobs(pool)
            if jobs and jobs[0]["status"] == "succeeded":
                break
            await asyncio.sleep(0.05)
    finally:
        worker.stop()
        await asyncio.wait_for(task, 10)
    assert len(jobs) == 1 and jobs[0]["status"] == "succeeded"
    assert jobs[0]["dedupe_key"].startswith("schedule:berlin:") and jobs[0]["meta"]["source"] == "schedule"


async def test_a_bad_configured_schedule_stops_only_the_ticker_and_says_why(clean, tmp_path, monkeypatch, caplog):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cutover.schedules.bad]\nautomation = "tick"\ncron = "every hour"\n')
    monkeypatch.chdir(tmp_path)
    await asyncio.wait_for(_ticker.run_ticker(clean, registry, worker="w"), 5)
    assert "schedules not produced" in caplog.text and "tool.cutover.schedules.bad.cron" in caplog.text

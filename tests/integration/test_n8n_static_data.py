"""n8n workflow static data ($getWorkflowStaticData) lives in Postgres: each run of an automation sees
what the runs before it left, a failing run still saves it (as n8n), a replayed (shadow) run keeps it
per recording set without touching the live row, and a write under a lost claim lands nowhere."""

from __future__ import annotations

import asyncio
import time
import uuid

import queue_core.registry as reg
from queue_core import JobSpec, Queue, Worker, WorkerConfig
from queue_core.compat import n8n
from queue_core.registry import Registry
from queue_core.store import static_data as store
from tests.support.scaffolded import worker_running

COUNT = """
const data = $getWorkflowStaticData('global');
data.seen = (data.seen || []).concat([$json.n]);
const mine = $getWorkflowStaticData('node');
mine.runs = (mine.runs || 0) + 1;
if ($json.fail) throw new Error('refused after writing');
return [{ json: { seen: data.seen, runs: mine.runs } }];
"""
READ_ONLY = "const d = $getWorkflowStaticData('global'); return [{ json: { seen: d.seen || null } }];"


def _registry() -> Registry:
    registry = Registry()

    @reg.automation("counter", registry=registry)
    async def counter(ctx, trigger):  # noqa: ANN001, ANN202
        flow = n8n.Flow(ctx)
        items = flow.emit("Webhook", [{"json": trigger.body}])
        out = await n8n.code_static(flow, "Count", COUNT, items)
        await n8n.code_static(flow, "Read", READ_ONLY, out)  # changes nothing: writes nothing

    @reg.automation("race", registry=registry)
    async def race(ctx, trigger):  # noqa: ANN001, ANN202
        flow = n8n.Flow(ctx)
        items = flow.emit("Webhook", [{"json": trigger.body}])
        await n8n.code_static(flow, "Read", READ_ONLY, items)  # the run reads version 1 here
        async with ctx._run.pool.connection() as conn:  # another job of the automation writes meanwhile
            await conn.execute("UPDATE static_data SET version = version + 1 WHERE automation = 'race'")
        await n8n.code_static(flow, "Count", COUNT, items)

    @reg.automation("taken-over", registry=registry)
    async def taken_over(ctx, trigger):  # noqa: ANN001, ANN202
        flow = n8n.Flow(ctx)
        items = flow.emit("Webhook", [{"json": trigger.body}])
        async with ctx._run.pool.connection() as conn:  # another worker claims the job meanwhile
            await conn.execute("UPDATE jobs SET claim_count = claim_count + 1 WHERE id = %s", (ctx.job_id,))
        await n8n.code_static(flow, "Count", COUNT, items)

    return registry


async def _run(pool, registry: Registry, *specs: JobSpec) -> list[str]:
    """Run ``specs`` one after the other (each once the one before ended); return their statuses."""
    queue = Queue(pool, registry=registry)
    statuses = []
    async with worker_running(pool, registry, concurrency=1):
        for spec in specs:
            job = await queue.enqueue(spec)
            deadline = time.monotonic() + 30
            while (status := (await queue.get(job))["status"]) not in ("succeeded", "failed", "dead"):
                assert time.monotonic() < deadline, status
                await asyncio.sleep(0.05)
            statuses.append(status)
    return statuses


async def _rows(pool, query: str) -> list[tuple]:
    async with pool.connection() as conn:
        cur = await conn.execute(query)
        return await cur.fetchall() if cur.description else []


async def test_each_live_run_sees_the_static_data_the_runs_before_it_left(pool) -> None:
    await _rows(pool, "TRUNCATE static_data, replay_static_data")
    statuses = await _run(pool, _registry(), *(JobSpec("counter", {"n": n}, max_attempts=1) for n in (1, 2, 3)))
    assert statuses == ["succeeded"] * 3
    [(data, version)] = await _rows(pool, "SELECT data, version FROM static_data WHERE automation = 'counter'")
    assert data == {"global": {"seen": [1, 2, 3]}, "node:Count": {"runs": 3}}
    assert version == 3, "one write per run: the read-only node wrote nothing"


async def test_a_run_that_fails_after_changing_static_data_still_saves_it_as_n8n_does(pool) -> None:
    await _rows(pool, "TRUNCATE static_data, replay_static_data")
    statuses = await _run(pool, _registry(), JobSpec("counter", {"n": 1}, max_attempts=1),
                          JobSpec("counter", {"n": 2, "fail": True}, max_attempts=1))
    assert statuses == ["succeeded", "failed"]
    [(data,)] = await _rows(pool, "SELECT data FROM static_data WHERE automation = 'counter'")
    assert data["global"] == {"seen": [1, 2]}


async def test_shadow_runs_keep_static_data_per_recording_and_never_touch_the_live_row(pool) -> None:
    await _rows(pool, "TRUNCATE static_data, replay_static_data")
    registry = _registry()
    await _run(pool, registry, JobSpec("counter", {"n": 100}))
    specs = [JobSpec("counter", {"n": n}, mode="shadow", recording=rec, trigger_id=f"t{n}")
             for n, rec in ((1, "2024-06"), (2, "2024-06"), (3, "2024-07"))]
    assert await _run(pool, registry, *specs) == ["succeeded"] * 3
    live = await _rows(pool, "SELECT data->'global' FROM static_data")
    assert live == [({"seen": [100]},)]
    replayed = await _rows(pool, "SELECT recording, data->'global' FROM replay_static_data ORDER BY recording")
    assert replayed == [("2024-06", {"seen": [1, 2]}), ("2024-07", {"seen": [3]})]
    nodes = await _rows(pool, "SELECT d.trace->'nodes'->'Count' FROM decisions d JOIN jobs j ON j.id = d.job_id"
                              " WHERE j.trigger_id = 't2'")
    assert nodes == [([[{"seen": [1, 2], "runs": 2}]],)], "the second replayed trigger saw the first's static data"


async def test_a_run_that_overwrites_a_concurrent_write_says_so_in_its_ledger(pool) -> None:
    await _rows(pool, "TRUNCATE static_data, replay_static_data")
    async with pool.connection() as conn:
        await conn.execute("INSERT INTO static_data (automation, data, job_id) VALUES ('race', %s, %s)",
                           ('{"global": {}}', uuid.uuid4()))
    assert await _run(pool, _registry(), JobSpec("race", {"n": 7}, max_attempts=1)) == ["succeeded"]
    [(data, version)] = await _rows(pool, "SELECT data, version FROM static_data WHERE automation = 'race'")
    assert data["global"] == {"seen": [7]} and version == 3, "last writer wins, as in n8n"
    events = await _rows(pool, "SELECT detail FROM ledger WHERE kind = 'static_data_overwritten'")
    assert events == [({"read_version": 1, "replaced_version": 2},)]


async def test_a_write_fenced_by_a_claim_that_is_not_running_writes_nothing(pool) -> None:
    await _rows(pool, "TRUNCATE static_data, replay_static_data")
    job = await Queue(pool, registry=_registry()).enqueue(JobSpec("counter", {"n": 1}))  # pending, not claimed
    saved = await store.save(pool, "counter", {"global": {"x": 1}}, job_id=job, claim=1)
    assert saved is None
    assert await _rows(pool, "SELECT * FROM static_data") == []
    assert (await store.read(pool, "counter")).version == 0


async def test_a_run_whose_claim_was_taken_over_writes_no_static_data_and_no_outcome(pool) -> None:
    await _rows(pool, "TRUNCATE static_data, replay_static_data")
    registry = _registry()
    queue = Queue(pool, registry=registry)
    job = await queue.enqueue(JobSpec("taken-over", {"n": 1}, max_attempts=1))
    worker = Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05))
    task = asyncio.create_task(worker.run())
    try:
        deadline = time.monotonic() + 30
        while worker.stats["lost"] == 0:  # the fenced write was refused: the run stopped as lease-lost
            assert time.monotonic() < deadline, worker.stats
            await asyncio.sleep(0.05)
    finally:
        worker.stop()
        await asyncio.wait_for(task, 15)
    assert await _rows(pool, "SELECT * FROM static_data") == []
    assert (await queue.get(job))["status"] == "running", "the lost claim wrote no outcome"

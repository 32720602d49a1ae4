"""Fan-out: ctx.enqueue starts each child once per (parent, key), across a SIGKILL of the worker;
ctx.wait_for_children waits with no worker held and applies its failure policy.

The automations are in tests/support/fanout.py; the crash test SIGKILLs a worker subprocess
from inside the parent job, right after it enqueued child ``kill_at``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from queue_core import JobSpec, Queue, Worker, WorkerConfig, db, ops
from tests.support.fanout import registry
from tests.support.polling import sql, wait_until

ROOT = Path(__file__).resolve().parents[2]


def spawn(url: str, marker: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, WORKER_DB=url, KILL_MARKER=str(marker), PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tests.support.fanout"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def run_until(pool, check, timeout: float = 30.0) -> None:
    """Run an in-process worker until ``await check()`` is true (or fail after ``timeout``)."""
    worker = Worker(pool, registry, WorkerConfig(concurrency=4, lease_s=5, poll_s=0.05))
    task = asyncio.create_task(worker.run())
    try:
        deadline = time.monotonic() + timeout
        while not await check():
            assert time.monotonic() < deadline, "timed out"
            assert not task.done(), "the worker stopped"
            await asyncio.sleep(0.05)
    finally:
        worker.stop()
        await asyncio.wait_for(task, 15)


async def status(pool, job_id) -> str:
    return (await Queue(pool).get(job_id))["status"]


async def rows(pool, query: str, params: tuple = ()) -> list[tuple]:
    async with pool.connection() as conn:
        return await (await conn.execute(query, params)).fetchall()


async def summary(pool, job_id) -> list[dict]:
    (out,) = (await rows(pool, "SELECT output FROM steps WHERE job_id = %s AND step_name = 'summary'", (job_id,)))[0]
    return out


@pytest.mark.slow
def test_a_parent_killed_midway_through_enqueueing_20_children_resumes_with_each_child_enqueued_once(
        fresh_db_url, tmp_path):
    async def enqueue():
        async with db.pool(fresh_db_url, max_size=2) as pool:
            return await Queue(pool, registry=registry).enqueue(JobSpec("fan-out", {"n": 20, "kill_at": 9}))

    parent = asyncio.run(enqueue())
    marker = tmp_path / "killed"
    proc = spawn(fresh_db_url, marker)
    try:
        wait_until(lambda: marker.exists() and proc.poll() is not None)
        at_kill = sql(fresh_db_url, "SELECT count(*) FROM jobs WHERE parent_id = %s", (parent,))[0][0]
        proc = spawn(fresh_db_url, marker)
        wait_until(lambda: sql(fresh_db_url, "SELECT 1 FROM jobs WHERE id = %s AND status = 'succeeded'", (parent,)))
    finally:
        proc.kill()
        proc.wait()
    assert at_kill == 10, "the kill landed right after child item-9 was enqueued"
    children = sql(fresh_db_url, "SELECT trigger_meta->>'key', dedupe_key, status::text FROM jobs"
                                 " WHERE parent_id = %s", (parent,))
    keys = Counter(k for k, _, _ in children)
    assert keys == Counter(f"item-{i}" for i in range(20)), "exactly 20 children, each once"
    assert {d for _, d, _ in children} == {f"child:{parent}:item-{i}" for i in range(20)}
    assert {s for _, _, s in children} == {"succeeded"}
    assert sql(fresh_db_url, "SELECT count(*) FROM jobs")[0][0] == 21
    kinds = Counter(k for (k,) in sql(fresh_db_url, "SELECT kind FROM ledger WHERE job_id = %s", (parent,)))
    assert kinds["reclaimed"] >= 1, "the parent was never reclaimed: the kill did not bite"
    assert kinds["child_enqueued"] == 20, "one child_enqueued event per child, none repeated"
    steps = sql(fresh_db_url, "SELECT step_name, output->>'child' FROM steps WHERE job_id = %s"
                              " AND step_name LIKE 'child:%%' ORDER BY position", (parent,))
    ids = dict(sql(fresh_db_url, "SELECT trigger_meta->>'key', id::text FROM jobs WHERE parent_id = %s", (parent,)))
    assert steps == [(f"child:item-{i}", ids[f"item-{i}"]) for i in range(20)]


@pytest.mark.parametrize("mode", ["shadow", "dry_run"])
async def test_children_inherit_the_parents_mode_and_their_trigger_names_the_parent(pool, mode):
    parent = await Queue(pool, registry=registry).enqueue(JobSpec("fan-out", {"n": 3}, mode=mode))

    async def done() -> bool:
        return await status(pool, parent) == "succeeded"

    await run_until(pool, done)
    children = await rows(pool, "SELECT mode::text, trigger_meta->>'source', trigger_meta->>'parent_id', dedupe_key"
                                " FROM jobs WHERE parent_id = %s ORDER BY trigger_meta->>'key'", (parent,))
    assert children == [(mode, "child", str(parent), f"child:{parent}:item-{i}") for i in range(3)]
    assert [c["outputs"] for c in await summary(pool, parent)] == [{"doubled": i * 2} for i in range(3)]
    # A rerun of the (deferred-writes) parent enqueues no second set: the dedupe key holds.
    await ops.replay(pool, parent, actor="test", reason="rerun")
    await run_until(pool, done)
    assert (await rows(pool, "SELECT count(*) FROM jobs WHERE parent_id = %s", (parent,)))[0][0] == 3


async def test_a_failed_child_under_the_fail_policy_fails_the_parent_naming_the_child(pool):
    parent = await Queue(pool, registry=registry).enqueue(JobSpec("fan-out", {"n": 3, "fail": [1]}))

    async def finished() -> bool:
        return await status(pool, parent) in ("failed", "succeeded")

    await run_until(pool, finished)
    job = await Queue(pool).get(parent)
    assert job["status"] == "failed" and job["error_kind"] == "terminal"
    assert "item-1 (failed: TerminalError: item 1 is broken)" in job["last_error"]
    assert "item-0" not in job["last_error"]


async def test_the_collect_policy_returns_every_childs_outcome_including_the_failed_one(pool):
    parent = await Queue(pool, registry=registry).enqueue(
        JobSpec("fan-out", {"n": 3, "fail": [2], "policy": "collect"}, mode="shadow"))

    async def done() -> bool:
        return await status(pool, parent) == "succeeded"

    await run_until(pool, done)
    got = [(c["key"], c["status"], c["error"]) for c in await summary(pool, parent)]
    assert got == [("item-0", "succeeded", None), ("item-1", "succeeded", None),
                   ("item-2", "failed", "TerminalError: item 2 is broken")]


async def test_a_parent_waiting_for_its_children_holds_no_worker_and_explain_names_the_unfinished(pool):
    queue = Queue(pool, registry=registry)
    parent = await queue.enqueue(JobSpec("fan-out", {"n": 2, "hold": True}))

    async def parent_waits() -> bool:
        return await status(pool, parent) == "waiting"

    await run_until(pool, parent_waits)
    job = await queue.get(parent)
    running = (await rows(pool, "SELECT count(*) FROM jobs WHERE status = 'running'"))[0][0]
    assert running == 0, "no worker holds the parent (or anything) while it waits"
    lines = " ".join(await ops.explain(pool, job))
    assert "waiting for its children (2 waiting) (item-0, item-1)" in lines
    for (child,) in await rows(pool, "SELECT id FROM jobs WHERE parent_id = %s", (parent,)):
        await queue.resolve_wait(child, "release", decision="go", actor="test")

    async def done() -> bool:
        return await status(pool, parent) == "succeeded"

    await run_until(pool, done)
    assert [c["status"] for c in await summary(pool, parent)] == ["succeeded", "succeeded"]


"""Polling triggers: ctx.start_new starts one job per new item, once, however pages overlap and
items come back, across a SIGKILL between the fetch and the enqueue; the seen-id record is bounded.

The poller (tests/support/fanout.py ``poll-items``) fetches feed pages through ctx.call; page p
holds ids 3p .. 3p+4 and id 0 again, so consecutive pages share two ids and id 0 always repeats.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from queue_core import JobSpec, Queue, Trigger, db
from tests.support.fanout import poll_times, registry
from tests.support.polling import sql, wait_until

ROOT = Path(__file__).resolve().parents[2]


async def rows(pool, query: str, params: tuple = ()) -> list[tuple]:
    async with pool.connection() as conn:
        return await (await conn.execute(query, params)).fetchall()


@pytest.fixture
async def clean(pool):
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE poller_state, poller_seen")
    return pool


async def test_a_poller_whose_pages_overlap_and_repeat_items_starts_each_item_once(clean):
    pool = clean
    await poll_times(pool, 4)
    started = await rows(pool, "SELECT trigger_meta->>'item_id', dedupe_key, trigger_meta->>'source' FROM jobs"
                               " WHERE automation = 'handle-item'")
    assert Counter(i for i, _, _ in started) == Counter(str(i) for i in range(14)), "ids 0..13, each once"
    assert {(d, s) for _, d, s in started} == {(f"poll:poll-items:{i}", "poll") for i in range(14)}
    state = await rows(pool, "SELECT target, cursor, items_started, polls, last_poll_at IS NOT NULL FROM poller_state")
    assert state == [("handle-item", {"page": 4}, 14, 4, True)]
    per_poll = await rows(pool, "SELECT output->'started' FROM steps WHERE step_name = 'start-new:poll-items'"
                                " ORDER BY finished_at")
    assert [len(s) for (s,) in per_poll] == [5, 3, 3, 3], "each poll started only its unseen ids"


async def test_a_polled_items_trigger_names_its_poller_its_item_and_the_polls_time(clean):
    before = datetime.now(UTC)
    await poll_times(clean, 1)
    (meta, trigger_id, payload), *_ = await rows(clean, "SELECT trigger_meta, trigger_id, payload FROM jobs"
                                                        " WHERE automation = 'handle-item' ORDER BY created_at")
    trigger = Trigger.of(SimpleNamespace(trigger_meta=meta, trigger_id=trigger_id, payload=payload))  # type: ignore[arg-type]
    assert trigger.source == "poll" and trigger.poll is not None
    assert (trigger.poll["poller"], trigger.poll["item"]) == ("poll-items", meta["item_id"])
    assert trigger.poll["at"] == trigger.received_at
    assert before - timedelta(seconds=1) <= datetime.fromisoformat(trigger.received_at) <= datetime.now(UTC)


async def test_the_seen_id_record_keeps_only_the_newest_ids_and_a_pruned_id_is_not_started_again(clean):
    pool = clean
    await poll_times(pool, 3, {"keep_last": 4})
    seen = await rows(pool, "SELECT item_id FROM poller_seen WHERE poller = 'poll-items' ORDER BY seq")
    assert [i for (i,) in seen] == ["7", "8", "9", "10"], "only the newest keep_last ids are kept"
    ids = Counter(i for (i,) in await rows(pool, "SELECT trigger_meta->>'item_id' FROM jobs WHERE automation = 'handle-item'"))
    assert ids == Counter(str(i) for i in range(11)), "id 0 came back on every page and started once"
    assert (await rows(pool, "SELECT items_started FROM poller_state"))[0][0] == 11


@pytest.mark.slow
def test_a_poller_killed_between_fetch_and_enqueue_resumes_with_the_same_page_and_starts_each_item_once(
        fresh_db_url, tmp_path):
    async def enqueue():
        async with db.pool(fresh_db_url, max_size=2) as pool:
            return await Queue(pool, registry=registry).enqueue(JobSpec("poll-items"))

    poll = asyncio.run(enqueue())
    marker = tmp_path / "killed"
    env = dict(os.environ, WORKER_DB=fresh_db_url, KILL_MARKER=str(marker), PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "tests.support.fanout"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: marker.exists() and proc.poll() is not None)
        fetched = sql(fresh_db_url, "SELECT status::text FROM steps WHERE job_id = %s AND step_name = 'fetch'", (poll,))
        before = sql(fresh_db_url, "SELECT count(*) FROM jobs WHERE automation = 'handle-item'")[0][0]
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: sql(fresh_db_url, "SELECT 1 FROM jobs WHERE id = %s AND status = 'succeeded'", (poll,)))
    finally:
        proc.kill()
        proc.wait()
    assert fetched == [("done",)] and before == 0, "killed after the fetch was recorded, before any enqueue"
    ids = Counter(i for (i,) in sql(fresh_db_url, "SELECT trigger_meta->>'item_id' FROM jobs WHERE automation = 'handle-item'"))
    assert ids == Counter(str(i) for i in range(5))
    kinds = Counter(k for (k,) in sql(fresh_db_url, "SELECT kind FROM ledger WHERE job_id = %s", (poll,)))
    assert kinds["reclaimed"] >= 1, "the poll was never reclaimed: the kill did not bite"
    assert kinds["call"] == 1, "the resumed poll used the memoised page: the feed was fetched once"
    assert sql(fresh_db_url, "SELECT cursor, items_started, polls FROM poller_state") == [({"page": 1}, 5, 1)]

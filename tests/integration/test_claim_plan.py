"""Pin the claim statement's plan: the locking subquery runs once, through the claim index."""

from __future__ import annotations

import json
import re

import psycopg
import pytest

from queue_core._sql import q


def _plan(conn: psycopg.Connection, analyze: bool) -> dict:
    params = {"now": None, "worker": "explain", "limit": 10, "lease_s": 30,
              "automations": ["noop"], "live_automations": ["noop"], "modes": ["live", "dry_run", "shadow"]}
    opts = "ANALYZE, FORMAT JSON" if analyze else "FORMAT JSON"
    row = conn.execute(f"EXPLAIN ({opts}) " + q("queue", "claim"), params).fetchone()
    return row[0][0]["Plan"]


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


async def _bulk_enqueue(url: str, n: int) -> None:
    from queue_core import JobSpec, Queue, db

    async with db.pool(url, max_size=2) as pool:
        queue = Queue(pool)
        for start in range(0, n, 5000):
            await queue.enqueue_many([JobSpec("noop", priority=i % 5) for i in range(start, min(n, start + 5000))])


@pytest.mark.parametrize("how", ["sql insert + analyze", "Queue.enqueue_many"])
def test_claim_locks_once_through_a_limited_subquery_and_updates_at_most_limit_rows(fresh_db_url, how):
    """With a fresh 10,000-job backlog the claim walks its index and locks exactly LIMIT rows.

    Statistics matter: with none, the planner would sort the whole backlog on every claim. A bulk
    enqueue through the queue refreshes them (ANALYZE), so the second case has no ANALYZE here.
    """
    import asyncio

    if how == "Queue.enqueue_many":
        asyncio.run(_bulk_enqueue(fresh_db_url, 10000))
    with psycopg.connect(fresh_db_url) as conn:
        if how != "Queue.enqueue_many":
            conn.execute(
                "INSERT INTO jobs (automation, priority) SELECT 'noop', g % 5 FROM generate_series(1, 10000) g"
            )
            conn.execute("ANALYZE jobs")
        plan = _plan(conn, analyze=True)
        conn.rollback()
    nodes = list(_nodes(plan))
    lock_rows = [n for n in nodes if n["Node Type"] == "LockRows"]
    assert len(lock_rows) == 1, json.dumps(plan, indent=1)
    assert lock_rows[0]["Actual Loops"] == 1, "the FOR UPDATE SKIP LOCKED subquery must run once"
    limits = [n for n in nodes if n["Node Type"] == "Limit"]
    assert limits and all(n["Actual Loops"] == 1 for n in limits)
    updates = [n for n in nodes if n["Node Type"] == "ModifyTable" and n.get("Operation") == "Update"]
    assert len(updates) == 1
    lock_rows_out = lock_rows[0]["Actual Rows"]
    assert lock_rows_out == 10, "exactly LIMIT rows are locked, no more"
    assert not [n for n in nodes if n["Node Type"] == "Sort"], "the claim sorted the backlog instead of walking its index"
    scans = [n for n in nodes if n.get("Relation Name") == "jobs" and "Index" in n["Node Type"]]
    assert any(n.get("Index Name") == "jobs_claimable" for n in scans), json.dumps(plan, indent=1)


def test_claim_statement_has_no_f_string_interpolation():
    sql = q("queue", "claim")
    assert "FOR UPDATE OF jobs SKIP LOCKED" in sql
    assert not re.search(r"\{[a-z_]+\}", sql)

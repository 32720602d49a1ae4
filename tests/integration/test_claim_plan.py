"""Pin the claim statement's plan: the locking subquery runs once, through the claim index."""

from __future__ import annotations

import json
import re

import psycopg
import pytest
from psycopg import sql

from queue_core._sql import q
from queue_core.queue import claim_sql

PARAMS = {"now": None, "worker": "explain", "lease_s": 30, "automations": ["noop"],
          "live_automations": ["noop"], "modes": ["live", "dry_run", "shadow"]}
# The parameters' SQL types, for a server-side PREPARE of the claim.
TYPES = {"now": "timestamptz", "worker": "text", "lease_s": "float8", "automations": "text[]",
         "live_automations": "text[]", "modes": "job_mode[]"}


def _plan(conn: psycopg.Connection, analyze: bool) -> dict:
    opts = "ANALYZE, FORMAT JSON" if analyze else "FORMAT JSON"
    row = conn.execute(f"EXPLAIN ({opts}) " + claim_sql(10), PARAMS).fetchone()
    return row[0][0]["Plan"]


def _generic_plan(conn: psycopg.Connection) -> dict:
    """EXPLAIN ANALYZE the claim as a prepared statement's generic plan (what a worker reuses)."""
    names: list[str] = []

    def placeholder(m: re.Match[str]) -> str:
        if m.group(1) not in names:
            names.append(m.group(1))
        return f"${names.index(m.group(1)) + 1}"

    text = re.sub(r"%\((\w+)\)s", placeholder, claim_sql(10)).replace("%%", "%")
    conn.execute(f"PREPARE claim_generic ({', '.join(TYPES[n] for n in names)}) AS {text}".replace("%", "%%"))
    conn.execute("SET plan_cache_mode = force_generic_plan")
    # EXPLAIN EXECUTE takes no bind parameters: the values go in as literals.
    args = sql.SQL(", ").join(sql.SQL("{}::" + TYPES[n]).format(sql.Literal(PARAMS[n])) for n in names)
    query = sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE claim_generic ({})").format(args)
    row = conn.execute(query).fetchone()
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


@pytest.mark.parametrize("how", ["sql insert + analyze", "Queue.enqueue_many", "generic plan"])
def test_claim_locks_once_through_a_limited_subquery_and_updates_at_most_limit_rows(fresh_db_url, how):
    """With a fresh 10,000-job backlog the claim walks its index and locks exactly LIMIT rows.

    Statistics matter: with none, the planner would sort the whole backlog on every claim. A bulk
    enqueue through the queue refreshes them (ANALYZE), so the second case has no ANALYZE here.
    The third case is the generic plan a worker's prepared claim settles on after a few turns:
    it must join the locked rows by primary key, never scan the table.
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
        plan = _generic_plan(conn) if how == "generic plan" else _plan(conn, analyze=True)
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
    seq_scans = [n for n in nodes if n["Node Type"] == "Seq Scan" and n.get("Relation Name") == "jobs"]
    assert not seq_scans, json.dumps(plan, indent=1)


def test_claim_statement_has_no_f_string_interpolation():
    sql = q("queue", "claim")
    assert "FOR UPDATE OF jobs SKIP LOCKED" in sql
    assert not re.search(r"\{[a-z_]+\}", sql)


def test_claim_limit_is_written_in_as_an_integer_only():
    assert "LIMIT 25\n" in claim_sql(25)
    assert "%(limit)s" not in claim_sql(25)
    with pytest.raises(ValueError):
        claim_sql("1; DROP TABLE jobs")  # type: ignore[arg-type]

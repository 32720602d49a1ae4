"""Pin the claim statement's plan: the locking subquery runs once, through the claim index."""

from __future__ import annotations

import json
import re

import psycopg

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


def test_claim_locks_once_through_a_limited_subquery_and_updates_at_most_limit_rows(db_url):
    with psycopg.connect(db_url) as conn:
        conn.execute(
            "INSERT INTO jobs (automation, priority) SELECT 'noop', g % 5 FROM generate_series(1, 5000) g"
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
    scans = [n for n in nodes if n.get("Relation Name") == "jobs" and "Index" in n["Node Type"]]
    assert any(n.get("Index Name") == "jobs_claimable" for n in scans), json.dumps(plan, indent=1)


def test_claim_statement_has_no_f_string_interpolation():
    sql = q("queue", "claim")
    assert "FOR UPDATE OF jobs SKIP LOCKED" in sql
    assert not re.search(r"\{[a-z_]+\}", sql)

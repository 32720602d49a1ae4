"""Pin the claim statement's plan: the locking subquery runs once, through the claim index."""

from __future__ import annotations

import json
import re

import psycopg
import pytest
from psycopg import sql

from queue_core._sql import q

PARAMS = {"now": None, "worker": "explain", "lease_s": 30, "limit": 10, "automations": ["noop"],
          "live_automations": ["noop"], "modes": ["live", "dry_run", "shadow"]}
# The parameters' SQL types, for a server-side PREPARE of the claim.
TYPES = {"now": "timestamptz", "worker": "text", "lease_s": "float8", "automations": "text[]",
         "live_automations": "text[]", "modes": "job_mode[]", "outcomes": "jsonb", "limit": "int8"}


def _plan(conn: psycopg.Connection, analyze: bool) -> dict:
    opts = "ANALYZE, FORMAT JSON" if analyze else "FORMAT JSON"
    row = conn.execute(f"EXPLAIN ({opts}) " + q("queue", "claim"), PARAMS).fetchone()
    return row[0][0]["Plan"]


def _generic_plan(conn: psycopg.Connection, statement: str | None = None, params: dict | None = None) -> dict:
    """EXPLAIN ANALYZE a statement (the claim by default) as a prepared statement's generic plan
    (what a worker reuses)."""
    statement = q("queue", "claim") if statement is None else statement
    params = PARAMS if params is None else params
    names: list[str] = []

    def placeholder(m: re.Match[str]) -> str:
        if m.group(1) not in names:
            names.append(m.group(1))
        return f"${names.index(m.group(1)) + 1}"

    text = re.sub(r"%\((\w+)\)s", placeholder, statement).replace("%%", "%")
    conn.execute(f"PREPARE generic ({', '.join(TYPES[n] for n in names)}) AS {text}".replace("%", "%%"))
    conn.execute("SET plan_cache_mode = force_generic_plan")
    # EXPLAIN EXECUTE takes no bind parameters: the values go in as literals.
    args = sql.SQL(", ").join(sql.SQL("{}::" + TYPES[n]).format(sql.Literal(params[n])) for n in names)
    query = sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE generic ({})").format(args)
    row = conn.execute(query).fetchone()
    return row[0][0]["Plan"]


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _locks_on(nodes: list[dict], relation: str) -> list[dict]:
    """The LockRows nodes that lock rows of ``relation`` (a scan of it sits below them).

    The claim locks twice: the candidate jobs, and the free concurrency slots of the keyed ones
    among them (an empty lookup when none has a key).
    """
    scans = lambda n, rel: any(d.get("Relation Name") == rel for d in _nodes(n))  # noqa: E731
    if relation == "jobs":
        return [n for n in nodes if n["Node Type"] == "LockRows" and scans(n, "jobs")]
    # The jobs lock's filter looks slots up too: the slot lock is the one that reads no jobs.
    return [n for n in nodes if n["Node Type"] == "LockRows" and scans(n, relation) and not scans(n, "jobs")]


def _updates_of(nodes: list[dict], relation: str) -> list[dict]:
    return [n for n in nodes if n["Node Type"] == "ModifyTable" and n.get("Operation") == "Update"
            and n.get("Relation Name") == relation]


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
    lock_rows = _locks_on(nodes, "jobs")
    assert len(lock_rows) == 1, json.dumps(plan, indent=1)
    assert lock_rows[0]["Actual Loops"] == 1, "the FOR UPDATE SKIP LOCKED subquery must run once"
    slot_locks = _locks_on(nodes, "concurrency_slots")
    assert len(slot_locks) == 1 and slot_locks[0]["Actual Rows"] == 0, "no key: no slot is locked"
    limits = [n for n in nodes if n["Node Type"] == "Limit"]
    assert limits and all(n["Actual Loops"] == 1 for n in limits)
    assert len(_updates_of(nodes, "jobs")) == 1
    lock_rows_out = lock_rows[0]["Actual Rows"]
    assert lock_rows_out == 10, "exactly LIMIT rows are locked, no more"
    # The per-key pairing sorts the LIMIT candidates and their slots (window functions over CTE
    # scans); no sort may read the jobs table itself.
    backlog_sorts = [n for n in nodes if n["Node Type"] == "Sort" and any(d.get("Relation Name") == "jobs" for d in _nodes(n))]
    assert not backlog_sorts, "the claim sorted the backlog instead of walking its index"
    scans = [n for n in nodes if n.get("Relation Name") == "jobs" and "Index" in n["Node Type"]]
    assert any(n.get("Index Name") == "jobs_claimable" for n in scans), json.dumps(plan, indent=1)
    seq_scans = [n for n in nodes if n["Node Type"] == "Seq Scan" and n.get("Relation Name") == "jobs"]
    assert not seq_scans, json.dumps(plan, indent=1)


def test_claim_statement_has_no_f_string_interpolation():
    sql = q("queue", "claim")
    assert "FOR UPDATE OF jobs SKIP LOCKED" in sql
    assert not re.search(r"\{[a-z_]+\}", sql)


@pytest.mark.parametrize("kind", ["plain", "full"])
def test_a_turn_is_its_completion_then_the_claim(kind):
    """turn_<kind> is written out whole in queue.sql; it must stay complete_<kind>'s CTEs, then
    the claim's (renamed where they would clash, skipping the jobs being completed), then both
    results. Composed here from the parts, compared with blanks collapsed."""
    complete, claim = q("queue", f"complete_{kind}"), q("queue", "claim")
    done_ctes, tail = complete.rsplit("SELECT id FROM done", 1)
    head, rest = claim.split("\n", 1)
    assert not tail.strip() and head.startswith("WITH t AS MATERIALIZED")
    order = "ORDER BY jobs.priority DESC, jobs.created_at"
    assert rest.count(order) == 1 and rest.count("logged AS (") == 1
    rest = rest.replace("logged AS (", "claim_logged AS (").replace(
        order, "AND jobs.id NOT IN (SELECT id FROM o) " + order)
    ctes, select = rest.rsplit("\nSELECT ", 1)
    width = _columns(select.split("\nFROM claimed", 1)[0])
    want = (f"{done_ctes.rstrip()},\n{ctes}\nSELECT NULL::bigint, {select}\n"
            f"UNION ALL\nSELECT count(*){', NULL' * width} FROM done")
    blanks = lambda text: re.sub(r"\s+", " ", text)  # noqa: E731
    assert blanks(q("queue", f"turn_{kind}")) == blanks(want)


def _columns(select_list: str) -> int:
    """Count a select list's columns: its commas outside parentheses and literals, plus one."""
    depth, count = 0, 1
    for i, part in enumerate(select_list.split("'")):
        for char in part if i % 2 == 0 else "":
            depth += (char == "(") - (char == ")")
            count += char == "," and depth == 0
    return count


def test_the_claims_limit_is_a_parameter_of_one_statement():
    for name in ("claim", "turn_plain", "turn_full"):
        assert q("queue", name).count("LIMIT %(limit)s\n") == 1, name


def test_a_workers_turn_finds_its_outcomes_by_primary_key_and_claims_once(fresh_db_url):
    """The turn (outcomes written and the next jobs claimed in one statement), as a generic plan.

    The completion looks its jobs up in jobs_pkey with an id array built from the outcomes; the
    claim part keeps the claim's shape (one LockRows, one Limit, the claim index) and skips the
    jobs being completed. No part scans the jobs table.
    """
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("INSERT INTO jobs (automation, priority) SELECT 'noop', g % 5 FROM generate_series(1, 10000) g")
        conn.execute("ANALYZE jobs")
        held = conn.execute(q("queue", "claim"), PARAMS).fetchall()
        assert len(held) == 10
        outcomes = json.dumps([{"id": str(r[0]), "claim_count": r[9], "status": "succeeded", "attempt_inc": 1,
                                "event": "succeeded"} for r in held])
        plan = _generic_plan(conn, q("queue", "turn_plain"), {**PARAMS, "outcomes": outcomes})
        conn.rollback()
    nodes = list(_nodes(plan))
    updates = _updates_of(nodes, "jobs")
    assert len(updates) == 2, json.dumps(plan, indent=1)
    assert sorted(n["Actual Rows"] for n in updates) == [10, 10], "10 outcomes written, 10 jobs claimed"
    scans = [n for n in nodes if n.get("Relation Name") == "jobs"]
    assert not [n for n in scans if n["Node Type"] == "Seq Scan"], json.dumps(plan, indent=1)
    # An index scan or a bitmap index scan (which names no relation) on the primary key.
    by_key = [n for n in nodes if n.get("Index Name") == "jobs_pkey" and "ANY" in n.get("Index Cond", "")]
    assert by_key, "the completion must look its jobs up by primary key: " + json.dumps(plan, indent=1)
    claim_scans = [n for n in scans if n.get("Index Name") == "jobs_claimable"]
    assert claim_scans, json.dumps(plan, indent=1)
    # The jobs being completed are skipped by one hash probe per row walked, not by comparing each
    # row with every outcome (id <> ALL(array) cost 88 ms of a 1,280-outcome turn).
    assert all("NOT (hashed SubPlan" in n.get("Filter", "") for n in claim_scans), json.dumps(plan, indent=1)
    lock_rows = _locks_on(nodes, "jobs")
    assert len(lock_rows) == 1 and lock_rows[0]["Actual Loops"] == 1 and lock_rows[0]["Actual Rows"] == 10

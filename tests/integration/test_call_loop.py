"""Calls in a loop: each occurrence of a step name is its own call with its own stable key, and a
call's step row and its ledger event commit together.

The provider is a FakeProvider on loopback (it honours idempotency keys: a repeated key gets
the stored response and applies nothing); the crash test SIGKILLs a worker subprocess.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from queue_core import Context, JobSpec, Queue, Worker, WorkerConfig, child_key, db
from tests.support.call_loop import gateway, registry
from tests.support.fake_provider import FakeProvider
from tests.support.polling import sql

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 50


def spawn(url: str, provider_url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, WORKER_DB=url, PROVIDER_URL=provider_url, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tests.support.call_loop"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(check, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


async def enqueue(url: str, spec: JobSpec):
    async with db.pool(url, max_size=2) as pool:
        return await Queue(pool, registry=registry).enqueue(spec)


async def drain(pool, gw) -> None:
    cfg = WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05)
    await asyncio.wait_for(Worker(pool, registry, cfg, gateway=gw).run(drain=True), 30)


@pytest.mark.slow
def test_a_loop_of_50_calls_killed_midway_resumes_with_each_side_effect_applied_exactly_once(fresh_db_url):
    with FakeProvider(latency=0.02).running() as fake:
        job_id = asyncio.run(enqueue(fresh_db_url, JobSpec("add-rows", {"n": ITEMS}, max_claims=20)))
        proc = spawn(fresh_db_url, fake.url)
        try:
            wait_for(lambda: len(fake.effects) >= ITEMS // 3)
            # Kill while a call is in flight: its effect applied, its answer held back 3 s.
            fake.stall_next(1, 3.0)
            wait_for(lambda: not fake.state.stall_next)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            at_kill = len(fake.effects)
            in_flight = fake.effects[-1]["key"]
            proc = spawn(fresh_db_url, fake.url)
            wait_for(lambda: sql(fresh_db_url, "SELECT 1 FROM jobs WHERE status = 'succeeded'"))
        finally:
            proc.kill()
            proc.wait()
        effects = fake.effects
        requests = fake.requests
    assert at_kill < ITEMS, "the loop finished before the kill"
    expected = [child_key(job_id, "add-row", n) for n in range(ITEMS)]
    assert [e["body"]["row"] for e in effects] == list(range(ITEMS))
    assert [e["key"] for e in effects] == expected, "each occurrence sends its own key, once applied"
    assert len(set(expected)) == ITEMS and expected[0] == child_key(job_id, "add-row")
    sent = [r.headers["idempotency-key"] for r in requests]
    assert sent.count(in_flight) == 2, "the call in flight at the kill was resent with its key"
    steps = sql(fresh_db_url, "SELECT occurrence, idempotency_key, status::text, external_ref FROM steps"
                              " WHERE job_id = %s ORDER BY occurrence", (job_id,))
    assert steps == [(n, expected[n], "done", str(n + 1)) for n in range(ITEMS)]
    kinds = Counter(k for (k,) in sql(fresh_db_url, "SELECT kind FROM ledger WHERE job_id = %s", (job_id,)))
    assert kinds["reclaimed"] >= 1, "the job was never reclaimed: the kill did not bite"
    settled = Counter(o for (o,) in sql(fresh_db_url, "SELECT (detail->>'occurrence')::int FROM ledger"
                                                      " WHERE job_id = %s AND kind = 'call'", (job_id,)))
    assert settled == Counter(range(ITEMS)), "one call event per occurrence"


async def test_calls_at_one_step_name_get_successive_occurrences_and_their_own_keys(pool):
    with FakeProvider().running() as fake:
        async with gateway(pool, fake.url) as gw:
            job_id = await Queue(pool, registry=registry).enqueue(JobSpec("add-rows", {"n": 3}))
            await drain(pool, gw)
        async with pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT occurrence, position, attempt, idempotency_key FROM steps WHERE job_id = %s"
                " ORDER BY position", (job_id,))).fetchall()
        assert (await Queue(pool).get(job_id))["status"] == "succeeded"
        assert rows == [(n, n, 1, child_key(job_id, "add-row", n)) for n in range(3)]
        assert [r.headers["idempotency-key"] for r in fake.requests] == [k for *_, k in rows]


async def test_a_single_call_counts_attempt_1_and_commits_with_its_call_event(pool):
    with FakeProvider().running() as fake:
        async with gateway(pool, fake.url) as gw:
            job_id = await Queue(pool, registry=registry).enqueue(JobSpec("create-contact"))
            await drain(pool, gw)
    async with pool.connection() as conn:
        step = await (await conn.execute(
            "SELECT attempt, xmin::text FROM steps WHERE job_id = %s", (job_id,))).fetchone()
        events = await (await conn.execute(
            "SELECT xmin::text, detail->>'attempt' FROM ledger WHERE job_id = %s AND kind = 'call'",
            (job_id,))).fetchall()
    assert step[0] == 1
    # xmin is the id of the transaction that wrote the row version: one transaction wrote both.
    assert events == [(step[1], "1")]


async def test_a_failure_writing_the_call_event_leaves_no_settled_call_without_one(pool):
    """The kill window, made deterministic: the ledger insert of the ``call`` event fails."""
    async with pool.connection() as conn:
        await conn.execute("""
            CREATE OR REPLACE FUNCTION pg_temp_refuse_call_event() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN IF NEW.kind = 'call' THEN RAISE EXCEPTION 'injected: call event lost'; END IF;
                     RETURN NEW; END $$""")
        await conn.execute("CREATE TRIGGER refuse_call_event BEFORE INSERT ON ledger FOR EACH ROW"
                           " EXECUTE FUNCTION pg_temp_refuse_call_event()")
    try:
        with FakeProvider().running() as fake:
            async with gateway(pool, fake.url) as gw:
                queue = Queue(pool, registry=registry)
                job_id = await queue.enqueue(JobSpec("create-contact"))
                [job] = await queue.claim("w1", 1, lease_s=30, automations=registry.names())
                ctx = Context(job, pool, worker="w1", gateway=gw)
                with pytest.raises(psycopg.Error, match="injected"):
                    await ctx.call("sheet", "POST", "/contacts", json={"email": "a@x.test"}, step="create")
            assert len(fake.effects) == 1
    finally:
        async with pool.connection() as conn:
            await conn.execute("DROP TRIGGER refuse_call_event ON ledger")
            await conn.execute("DROP FUNCTION pg_temp_refuse_call_event()")
    async with pool.connection() as conn:
        rows = await (await conn.execute(
            "SELECT status::text, attempt, output->>'status', external_ref FROM steps WHERE job_id = %s",
            (job_id,))).fetchall()
    # Sent and on record, not settled: the next attempt resends the same key and settles then.
    assert rows == [("running", 1, None, None)]


async def test_a_shadow_loop_of_calls_writes_its_occurrences_with_the_outcome_and_sends_nothing(pool):
    with FakeProvider().running() as fake:
        async with gateway(pool, fake.url) as gw:
            job_id = await Queue(pool, registry=registry).enqueue(JobSpec("add-rows", {"n": 3}, mode="shadow"))
            await drain(pool, gw)
        assert fake.requests == []
    async with pool.connection() as conn:
        rows = await (await conn.execute(
            "SELECT occurrence, attempt, idempotency_key FROM steps WHERE job_id = %s ORDER BY position",
            (job_id,))).fetchall()
        intents = await (await conn.execute(
            "SELECT (detail->>'occurrence')::int FROM ledger WHERE job_id = %s AND kind = 'call_intent'"
            " ORDER BY seq", (job_id,))).fetchall()
    assert (await Queue(pool).get(job_id))["status"] == "succeeded"
    assert rows == [(n, 1, child_key(job_id, "add-row", n)) for n in range(3)]
    assert [o for (o,) in intents] == [0, 1, 2]

"""`cutover jobs replay` and idempotency keys: kept by default (the provider answers with the
original results, no effect applied again), renewed with --new-keys (the effects are redone,
the new generation is in the ledger and later retries keep using it)."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
from click.testing import CliRunner

from queue_core import JobSpec, Queue, Worker, WorkerConfig, child_key, db
from queue_core.cli import cli
from tests.support.call_loop import gateway, registry
from tests.support.fake_provider import FakeProvider

ROWS = 3


async def _drain_until_done(url: str, provider_url: str, job_id: uuid.UUID | None = None) -> uuid.UUID:
    """Run the job (enqueued when ``job_id`` is None) to an end; scheduled retries are made due."""
    async with db.pool(url, max_size=4) as pool, gateway(pool, provider_url) as gw:
        queue = Queue(pool, registry=registry)
        if job_id is None:
            job_id = await queue.enqueue(JobSpec("add-rows", {"n": ROWS}))
        cfg = WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05)
        for _ in range(5):
            await asyncio.wait_for(Worker(pool, registry, cfg, gateway=gw).run(drain=True), 30)
            if (await queue.get(job_id))["status"] == "succeeded":
                return job_id
            async with pool.connection() as conn:
                await conn.execute("UPDATE jobs SET run_after = now() WHERE id = %s AND status = 'pending'", (job_id,))
    raise AssertionError(f"job {job_id} did not succeed")


def _cli(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"DATABASE_URL": url}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _sql(url: str, query: str, params: tuple) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()


def test_a_replay_keeps_the_keys_and_new_keys_redoes_the_effects_recorded_in_the_ledger(fresh_db_url):
    with FakeProvider().running() as fake:
        job_id = asyncio.run(_drain_until_done(fresh_db_url, fake.url))
        original = [child_key(job_id, "add-row", n) for n in range(ROWS)]
        assert [e["key"] for e in fake.effects] == original

        assert "from scratch" in _cli(fresh_db_url, "jobs", "replay", str(job_id), "--reason", "check")
        asyncio.run(_drain_until_done(fresh_db_url, fake.url, job_id))
        assert [e["key"] for e in fake.effects] == original, "same keys: the provider applied nothing again"
        assert [r.headers["idempotency-key"] for r in fake.requests[ROWS:]] == original

        fake.fail_next(1, 503)  # the first call of the new generation is retried
        out = _cli(fresh_db_url, "jobs", "replay", str(job_id), "--reason", "redo the rows", "--new-keys")
        assert "with new idempotency keys" in out
        asyncio.run(_drain_until_done(fresh_db_url, fake.url, job_id))
        renewed = [child_key(job_id, "add-row", n, 1) for n in range(ROWS)]
        assert [e["key"] for e in fake.effects] == original + renewed
        assert set(renewed).isdisjoint(original)
        sent = [r.headers["idempotency-key"] for r in fake.requests[2 * ROWS:]]
        assert sent == [renewed[0], *renewed], "the retry after the 503 kept the new key"

    steps = _sql(fresh_db_url, "SELECT idempotency_key FROM steps WHERE job_id = %s ORDER BY occurrence", (job_id,))
    assert [k for (k,) in steps] == renewed
    replays = _sql(fresh_db_url, "SELECT detail FROM ledger WHERE job_id = %s AND kind = 'replay_requested'"
                                 " ORDER BY seq", (job_id,))
    assert [(d["reason"], d.get("new_keys"), d.get("key_generation")) for (d,) in replays] == [
        ("check", None, None), ("redo the rows", True, 1)]
    shown = _cli(fresh_db_url, "jobs", "show", str(job_id))
    assert all(key in shown for key in renewed)


def test_new_keys_on_a_job_that_never_ran_keeps_generation_0(fresh_db_url):
    async def enqueue() -> uuid.UUID:
        async with db.pool(fresh_db_url, max_size=2) as pool:
            return await Queue(pool, registry=registry).enqueue(JobSpec("add-rows", {"n": 1}))

    job_id = asyncio.run(enqueue())
    _cli(fresh_db_url, "jobs", "replay", str(job_id), "--reason", "nothing sent yet", "--new-keys")
    with FakeProvider().running() as fake:
        asyncio.run(_drain_until_done(fresh_db_url, fake.url, job_id))
        assert [e["key"] for e in fake.effects] == [child_key(job_id, "add-row")]
    [(detail,)] = _sql(fresh_db_url, "SELECT detail FROM ledger WHERE job_id = %s AND kind = 'replay_requested'",
                       (job_id,))
    assert detail["new_keys"] is True and detail["key_generation"] == 0

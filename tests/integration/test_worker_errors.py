"""A database error that is not an outage never ends a worker (issue 22, part 4).

A worker used to survive only ``psycopg.OperationalError``: any other error of a claim (a
``DuplicatePreparedStatement`` when a session's prepared statements and psycopg's disagree, as
PgBouncer in transaction mode causes; an error a trigger raises) left the producer's loop and
ended ``Worker.run`` with it, and the waker and notifier died silently. Each error here is raised
by the real server, on the worker's real statements: a statement prepared behind psycopg's back,
or a trigger that refuses the first few writes.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
from psycopg_pool import AsyncConnectionPool

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation, db

registry = Registry()


@automation("noop", registry=registry)
async def noop(ctx, trigger):
    return None


@automation("slow", registry=registry)
async def slow(ctx, trigger):
    await asyncio.sleep(trigger.body["s"])
    return None


@automation("bad_sql", registry=registry)
async def bad_sql(ctx, trigger):
    async with await psycopg.AsyncConnection.connect(trigger.body["url"]) as conn:
        await conn.execute("SELECT 1 / 0")  # the job's own error: the server raises DivisionByZero
    return None


def _config(**kwargs) -> WorkerConfig:
    base = {"concurrency": 8, "lanes": 1, "poll_s": 0.1, "lease_s": 30, "vacuum_every": 0}
    return WorkerConfig(**{**base, **kwargs})


async def _statuses(queue: Queue, ids) -> list[str]:
    return [(await queue.get(i))["status"] for i in ids]


def _messages(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "cutover.worker")


def _refuse(url: str, name: str, event: str, condition: str, times: int, raise_: str) -> None:
    """Install a trigger ``name`` (``BEFORE <event>``) that raises ``raise_`` (P0001) for the first
    ``times`` rows matching ``condition``: the server refusing a statement, not an outage."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SEQUENCE {name}_count")
        conn.execute(f"""
            CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF {condition} AND nextval('{name}_count') <= {times} THEN
                    RAISE EXCEPTION {raise_};
                END IF;
                RETURN NEW;
            END $$""")
        conn.execute(f"CREATE TRIGGER {name} BEFORE {event} FOR EACH ROW EXECUTE FUNCTION {name}()")


async def test_a_duplicate_prepared_statement_on_the_workers_connections_is_retried(fresh_db_url, caplog):
    """Every connection of the worker's own pool holds a prepared statement named as psycopg's
    first one will be, and psycopg prepares every statement (threshold 0): the first statement
    on each connection fails with DuplicatePreparedStatement (42P05)."""
    caplog.set_level(logging.WARNING, logger="cutover.worker")

    async def collide(conn: psycopg.AsyncConnection) -> None:
        await conn.execute("PREPARE _pg3_0 AS SELECT 1", prepare=False)

    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        ids = await queue.enqueue_many([JobSpec("noop", payload={"n": i}) for i in range(12)])
        own = AsyncConnectionPool(fresh_db_url, min_size=1, max_size=4, open=False, configure=collide,
                                  kwargs={"autocommit": True, "prepare_threshold": 0})
        async with own:
            worker = Worker(pool, registry, _config(), own_pool=own)
            await asyncio.wait_for(worker.run(drain=True), 30)
        assert await _statuses(queue, ids) == ["succeeded"] * 12
    assert "DuplicatePreparedStatement [42P05]" in _messages(caplog)


async def test_an_error_raised_by_the_server_in_the_claim_is_retried_not_fatal(fresh_db_url, caplog):
    """A trigger refuses the claim's first three ledger writes with RAISE EXCEPTION (P0001, an
    InternalError, not an OperationalError); its DETAIL stands for data that must not be logged."""
    caplog.set_level(logging.WARNING, logger="cutover.worker")
    _refuse(fresh_db_url, "refuse_claims", "INSERT ON ledger", "NEW.kind = 'claimed'", 3,
            "'injected claim failure' USING DETAIL = 'payload-detail-7f3a'")
    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        ids = await queue.enqueue_many([JobSpec("noop", payload={"n": i}) for i in range(5)])
        worker = Worker(pool, registry, _config())
        await asyncio.wait_for(worker.run(drain=True), 30)
        assert await _statuses(queue, ids) == ["succeeded"] * 5
        assert [(await queue.get(i))["claim_count"] for i in ids] == [1] * 5, "no claim was lost to the failures"
    logged = _messages(caplog)
    assert "RaiseException [P0001]: injected claim failure" in logged
    assert "payload-detail-7f3a" not in logged


async def test_a_failed_heartbeat_keeps_the_worker_and_its_job(fresh_db_url, caplog):
    """The first heartbeat is refused by a trigger (P0001); the next one renews the lease, and
    the job ends under its first claim."""
    caplog.set_level(logging.WARNING, logger="cutover.worker")
    _refuse(fresh_db_url, "refuse_beats", "UPDATE ON jobs",
            "OLD.status = 'running' AND NEW.status = 'running' AND NEW.lease_owner = OLD.lease_owner "
            "AND NEW.claim_count = OLD.claim_count", 1, "'injected heartbeat failure'")
    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("slow", payload={"s": 2.5}))
        worker = Worker(pool, registry, _config(lease_s=4, heartbeat_s=0.6))
        await asyncio.wait_for(worker.run(drain=True), 30)
        row = await queue.get(job_id)
        assert (row["status"], row["claim_count"]) == ("succeeded", 1), (row, await queue.ledger(job_id))
    assert "injected heartbeat failure" in _messages(caplog)


async def test_a_jobs_own_database_error_is_the_jobs_failure(fresh_db_url):
    """An error of the job's own statement fails that job (its outcome, written as any other);
    the worker runs the next job."""
    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        bad = await queue.enqueue(JobSpec("bad_sql", payload={"url": fresh_db_url}, max_attempts=1))
        good = await queue.enqueue(JobSpec("noop"))
        worker = Worker(pool, registry, _config(concurrency=1))
        await asyncio.wait_for(worker.run(drain=True), 30)
        row = await queue.get(bad)
        assert row["status"] == "failed" and "division by zero" in row["last_error"]
        assert (await queue.get(good))["status"] == "succeeded"


async def test_an_outcome_the_server_refuses_is_dropped_and_its_job_reclaimed(fresh_db_url, caplog):
    """A trigger refuses the first outcome's ledger event (P0001, not an outage nor a session
    error): the batch is dropped, logged without its DETAIL, and the job is reclaimed once its
    lease ends and runs to its end under its second claim."""
    caplog.set_level(logging.WARNING, logger="cutover.worker")
    _refuse(fresh_db_url, "refuse_outcomes", "INSERT ON ledger", "NEW.kind = 'succeeded'", 1,
            "'injected outcome failure' USING DETAIL = 'payload-detail-91c2'")
    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("noop"))
        worker = Worker(pool, registry, _config(lease_s=1.0, heartbeat_s=0.3))
        await asyncio.wait_for(worker.run(drain=True), 30)
        row = await queue.get(job_id)
        assert (row["status"], row["claim_count"]) == ("succeeded", 2)
    logged = _messages(caplog)
    assert "writing 1 outcomes failed" in logged and "injected outcome failure" in logged
    assert "payload-detail-91c2" not in logged

"""The four systems the throughput benchmark drains, behind one small interface.

Each system prepares its own fresh database (``prepare``), enqueues N no-op jobs (``enqueue``),
drains them in a worker process (``drain``) and counts what it finished (``count_done``). The
orchestrator in ``queue_throughput.py`` times ``enqueue`` on its own and runs ``drain`` in child
processes, so a stuck peer can be killed without taking the run down with it.

Every system runs the same job: an async no-op that only notes it ran. Configurations are
chosen from each project's own documentation and benchmark tooling; README.md states them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import psycopg

ENQUEUE_CHUNK = 5_000


@dataclass(frozen=True)
class Settings:
    """One system's settings for a drain.

    ``concurrency`` jobs in flight per process; ``batch`` cutover's claim batch (0: a lane's
    share); ``db_connections`` cutover's ``--db-connections``, set apart from the concurrency
    (0: the worker's default, ``db.default_connections``); ``raw_batch``
    the raw-SQL loop's claim batch per loop (0: its share of the concurrency).
    """

    concurrency: int
    batch: int
    pgq_managers: int
    pgq_batch: int
    pgq_cap: bool
    pgq_driver: str
    raw_loops: int
    db_connections: int = 0
    raw_batch: int = 0
    procrastinate_pool: int = 0
    lanes: int = 0  # cutover's producer lanes (0: db.plan_connections' default, 2)

    def knobs(self, system: str) -> str:
        """Return the settings that matter to ``system``, as the tables print them (the claim
        batch, each system's throughput knob, first)."""
        if system in ("cutover", "cutover_main"):
            from queue_core import db

            total = self.db_connections or db.default_connections(self.concurrency)
            lanes = db.plan_connections(total, concurrency=self.concurrency, lanes=self.lanes or 2).lanes
            share = self.concurrency // lanes
            batch = min(self.batch or share, share)
            return f"claim batch {batch} x {lanes} lanes, concurrency {self.concurrency}, {total} connections"
        if system == "pgqueuer":
            cap = f"capped at {self.concurrency}" if self.pgq_cap else "uncapped"
            return f"batch {self.pgq_batch} x {self.pgq_managers} managers, {cap}"
        if system == "procrastinate":
            return f"concurrency {self.concurrency} (one job per fetch), pool {self.procrastinate_pool or self.concurrency + 4}"
        return f"claim batch {self.raw_batch or max(1, self.concurrency // self.raw_loops)} x {self.raw_loops} loops"


@dataclass
class Tally:
    """What a drain saw: when the first job ran, how many ran."""

    first: float | None = None
    ran: int = 0

    def hit(self) -> None:
        if self.first is None:
            self.first = time.time()
        self.ran += 1


# -- cutover ---------------------------------------------------------------------------------


def _cutover_registry() -> Any:
    from queue_core import Registry, automation

    reg = Registry()
    tally = Tally()

    @automation("noop", registry=reg)
    async def noop(ctx: Any, trigger: Any) -> None:
        tally.hit()

    return reg, tally


async def cutover_prepare(url: str) -> None:
    """Nothing to do: provision.fresh_database() is already migrated."""


async def cutover_enqueue(url: str, n: int) -> None:
    from queue_core import JobSpec, Queue, db

    reg, _ = _cutover_registry()
    async with db.pool(url, max_size=4) as pool:
        q = Queue(pool, registry=reg)
        for start in range(0, n, ENQUEUE_CHUNK):
            await q.enqueue_many([JobSpec("noop", {"i": i}) for i in range(start, min(n, start + ENQUEUE_CHUNK))])


async def cutover_drain(url: str, s: Settings, ready: Callable[[], Awaitable[None]]) -> Tally:
    """Drain as ``cutover worker --concurrency C --db-connections N`` spends its connections
    (``db.plan_connections``: lanes and heartbeats on the worker's own pool, the rest for jobs)."""
    from queue_core import Worker, WorkerConfig, db

    reg, tally = _cutover_registry()
    plan = db.plan_connections(s.db_connections or db.default_connections(s.concurrency), concurrency=s.concurrency,
                               lanes=s.lanes or 2)
    cfg = WorkerConfig(concurrency=s.concurrency, lease_s=30, poll_s=0.05, batch_size=s.batch or None,
                       lanes=plan.lanes)
    async with db.pool(url, min_size=plan.jobs, max_size=plan.jobs) as pool, \
            db.worker_pool(url, max_size=plan.own, timeout_s=cfg.timing.renew_timeout_s) as own:
        await pool.wait()
        worker = Worker(pool, reg, cfg, own_pool=own)  # no LISTEN: every system polls (0.05 s)
        await ready()
        await worker.run(drain=True)
    return tally


async def cutover_count(url: str) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cur = await conn.execute("SELECT count(*) FROM jobs WHERE status = 'succeeded'")
        row = await cur.fetchone()
        return int(row[0]) if row else 0


# -- pgqueuer --------------------------------------------------------------------------------


async def _pgq_queries(url: str) -> Any:
    from pgqueuer import PsycopgDriver, Queries

    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    return conn, Queries(PsycopgDriver(conn))


async def pgqueuer_prepare(url: str) -> None:
    conn, queries = await _pgq_queries(url)
    async with conn:
        await queries.install()


async def pgqueuer_enqueue(url: str, n: int) -> None:
    conn, queries = await _pgq_queries(url)
    async with conn:
        for start in range(0, n, ENQUEUE_CHUNK):
            k = min(n, start + ENQUEUE_CHUNK) - start
            payloads = [json.dumps({"i": i}).encode() for i in range(start, start + k)]
            await queries.enqueue(["noop"] * k, payloads, [0] * k)


async def _pgq_driver(url: str, kind: str) -> tuple[Any, Callable[[], Awaitable[None]]]:
    """Return (driver, close) for one QueueManager: asyncpg, pgqueuer's own default, or psycopg."""
    if kind == "asyncpg":
        import asyncpg
        from pgqueuer import AsyncpgDriver

        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(url)  # provision hands out key=value conninfo; asyncpg wants keywords
        conn = await asyncpg.connect(
            host=info.get("host"), port=int(info.get("port") or 5432), user=info.get("user"),
            password=info.get("password"), database=info.get("dbname"),
        )
        return AsyncpgDriver(conn), conn.close
    from pgqueuer import PsycopgDriver

    pconn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    return PsycopgDriver(pconn), pconn.close


async def pgqueuer_drain(url: str, s: Settings, ready: Callable[[], Awaitable[None]]) -> Tally:
    from datetime import timedelta

    from pgqueuer import Queries, QueueManager
    from pgqueuer.types import QueueExecutionMode

    tally = Tally()
    drivers = [await _pgq_driver(url, s.pgq_driver) for _ in range(s.pgq_managers)]
    managers = []
    for driver, _ in drivers:
        qm = QueueManager(Queries(driver))

        @qm.entrypoint("noop")
        async def noop(job: Any) -> None:
            tally.hit()

        managers.append(qm)
    # The in-flight cap is split across the managers; pgqueuer requires cap >= 2 * batch.
    cap = max(s.concurrency // s.pgq_managers, 2 * s.pgq_batch) if s.pgq_cap else None
    await ready()
    try:
        await asyncio.gather(*(
            qm.run(
                batch_size=s.pgq_batch,
                mode=QueueExecutionMode.drain,
                max_concurrent_tasks=cap,
                dequeue_timeout=timedelta(seconds=0.05),
                heartbeat_timeout=timedelta(seconds=30),
                log_aggregation_interval=timedelta(0),
            )
            for qm in managers
        ))
    finally:
        for _, close in drivers:
            await close()
    return tally


async def pgqueuer_count(url: str) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        # A finished job leaves the queue table and is written to the log table.
        cur = await conn.execute(
            "SELECT count(DISTINCT job_id) FROM pgqueuer_log WHERE status = 'successful'"
        )
        row = await cur.fetchone()
        return int(row[0]) if row else 0


# -- procrastinate ---------------------------------------------------------------------------


def _procrastinate_app(url: str, pool_size: int) -> tuple[Any, Any, Tally]:
    import procrastinate

    tally = Tally()
    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=url, min_size=pool_size, max_size=pool_size)
    )

    @app.task(name="noop")
    async def noop(i: int) -> None:
        tally.hit()

    return app, noop, tally


async def procrastinate_prepare(url: str) -> None:
    app, _, _ = _procrastinate_app(url, 2)
    async with app.open_async():
        await app.schema_manager.apply_schema_async()


async def procrastinate_enqueue(url: str, n: int) -> None:
    app, noop, _ = _procrastinate_app(url, 2)
    async with app.open_async():
        for start in range(0, n, ENQUEUE_CHUNK):
            await noop.batch_defer_async(*({"i": i} for i in range(start, min(n, start + ENQUEUE_CHUNK))))


async def procrastinate_drain(url: str, s: Settings, ready: Callable[[], Awaitable[None]]) -> Tally:
    logging.getLogger("procrastinate").setLevel(logging.WARNING)
    # concurrency tasks each finish jobs on their own connection; + listener, heartbeat, fetch.
    app, _, tally = _procrastinate_app(url, s.procrastinate_pool or s.concurrency + 4)
    async with app.open_async():
        await ready()
        await app.run_worker_async(
            concurrency=s.concurrency,
            wait=False,  # stop once the queues are caught up: a drain
            listen_notify=False,  # nothing is enqueued during the drain
            install_signal_handlers=False,
            delete_jobs="never",  # keep finished rows, as cutover and the raw loop do
        )
    return tally


async def procrastinate_count(url: str) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cur = await conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE status = 'succeeded'")
        row = await cur.fetchone()
        return int(row[0]) if row else 0


# -- raw SQL ---------------------------------------------------------------------------------

RAW_SCHEMA = """
CREATE TABLE raw_jobs (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    status       text        NOT NULL DEFAULT 'pending',
    priority     integer     NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    payload      jsonb       NOT NULL,
    leased_until timestamptz,
    claim_count  integer     NOT NULL DEFAULT 0
);
-- The claim walks pending rows in priority order, like every queue here.
CREATE INDEX raw_jobs_claimable ON raw_jobs (priority DESC, created_at) WHERE status = 'pending';
"""

RAW_ENQUEUE = "INSERT INTO raw_jobs (payload) SELECT unnest(%(payloads)s::jsonb[])"

# One statement claims a batch: the subquery locks up to LIMIT pending rows, skipping rows
# another loop has locked, and the UPDATE leases them.
RAW_CLAIM = """
UPDATE raw_jobs j
SET status = 'running', leased_until = now() + interval '30 seconds', claim_count = j.claim_count + 1
FROM (
    SELECT id FROM raw_jobs
    WHERE status = 'pending'
    ORDER BY priority DESC, created_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
) c
WHERE j.id = c.id
RETURNING j.id, j.payload, j.claim_count
"""

# One statement completes a batch, fenced by claim_count like a real queue's.
RAW_COMPLETE = """
UPDATE raw_jobs j SET status = 'done', leased_until = NULL
FROM unnest(%(ids)s::bigint[], %(claims)s::int[]) AS d(id, claim_count)
WHERE j.id = d.id AND j.claim_count = d.claim_count AND j.status = 'running'
"""


async def raw_prepare(url: str) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(RAW_SCHEMA)


async def raw_enqueue(url: str, n: int) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        for start in range(0, n, ENQUEUE_CHUNK):
            payloads = [json.dumps({"i": i}) for i in range(start, min(n, start + ENQUEUE_CHUNK))]
            await conn.execute(RAW_ENQUEUE, {"payloads": payloads})


async def raw_drain(url: str, s: Settings, ready: Callable[[], Awaitable[None]]) -> Tally:
    tally = Tally()

    async def noop(payload: Any) -> None:
        tally.hit()

    # raw_loops loops, each with its own connection, share the concurrency: each holds at most
    # batch = concurrency / raw_loops jobs at once, unless raw_batch sets the claim batch.
    batch = s.raw_batch or max(1, s.concurrency // s.raw_loops)

    async def loop(conn: psycopg.AsyncConnection[Any]) -> None:
        while True:
            cur = await conn.execute(RAW_CLAIM, {"limit": batch}, prepare=True)
            rows = await cur.fetchall()
            if not rows:
                return
            await asyncio.gather(*(noop(r[1]) for r in rows))
            await conn.execute(
                RAW_COMPLETE, {"ids": [r[0] for r in rows], "claims": [r[2] for r in rows]}, prepare=True
            )

    conns = [await psycopg.AsyncConnection.connect(url, autocommit=True) for _ in range(s.raw_loops)]
    await ready()
    try:
        await asyncio.gather(*(loop(c) for c in conns))
    finally:
        for c in conns:
            await c.close()
    return tally


async def raw_count(url: str) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cur = await conn.execute("SELECT count(*) FROM raw_jobs WHERE status = 'done'")
        row = await cur.fetchone()
        return int(row[0]) if row else 0


Ladder = Callable[[int, Settings], "dict[str, Any] | None"]
"""Return the changes to ``base`` of a ladder's k-th point (k = 0, 1, …), or None when the
ladder ends (a limit of the server, such as max_connections). ``base`` is the equal settings
for a system's first ladder, and its best point so far for the second."""


@dataclass(frozen=True)
class System:
    """A system, and the ladders of its knobs: the first doubles its throughput knob, the second
    (when it has one) its parallelism at the first's best point; the sweep climbs each until the
    rate stops improving (``queue_throughput.best_table``)."""

    name: str
    prepare: Callable[[str], Awaitable[None]]
    enqueue: Callable[[str, int], Awaitable[None]]
    drain: Callable[[str, Settings, Callable[[], Awaitable[None]]], Awaitable[Tally]]
    count_done: Callable[[str], Awaitable[int]]
    ladders: tuple[Ladder, ...]


def _cutover_climb(k: int, base: Settings) -> dict[str, Any] | None:
    # WorkerConfig(concurrency=...) with the claim batch a lane's share, so each point doubles
    # the claim batch; past the default point the worker gets 20 connections (--db-connections).
    return {"concurrency": 40 << k, "db_connections": 0 if k == 0 else 20, "batch": 0}


def _pgqueuer_climb(k: int, base: Settings) -> dict[str, Any] | None:
    # QueueManager.run(batch_size=...), uncapped (max_concurrent_tasks=None, pgqueuer's default).
    return {"pgq_batch": 10 << k, "pgq_cap": False}


# procrastinate holds a pooled connection per running job: its ladder stops below a stock
# server's max_connections (100), with room for the orchestrator and the others' tools.
PROCRASTINATE_MAX_POOL = 90


def _procrastinate_climb(k: int, base: Settings) -> dict[str, Any] | None:
    # run_worker_async(concurrency=...): procrastinate's documented knob for async tasks.
    concurrency = 10 << k
    pool = concurrency + 4
    return {"concurrency": concurrency, "procrastinate_pool": pool} if pool <= PROCRASTINATE_MAX_POOL else None


def _raw_climb(k: int, base: Settings) -> dict[str, Any] | None:
    return {"raw_batch": 20 << k}  # the claim batch per loop


# The parallelism ladders: 4, 8, then 16 lanes, managers or loops (each holds a connection of
# its own; the orchestrator runs one system at a time, so 16 stay far below max_connections).
MAX_PARALLEL = 16


def _cutover_lanes(k: int, base: Settings) -> dict[str, Any] | None:
    # WorkerConfig(lanes=...) through db.plan_connections(..., lanes=...), at the best
    # concurrency: each lane claims its share of it, in its own transactions.
    # Connections for the lanes, their heartbeats and the listener, and as many for the jobs.
    lanes = 4 << k
    connections = max(base.db_connections or 20, 2 * lanes + 4)
    return {"lanes": lanes, "db_connections": connections} if lanes <= MAX_PARALLEL else None


def _pgqueuer_managers(k: int, base: Settings) -> dict[str, Any] | None:
    managers = 4 << k  # QueueManagers, one connection each, at the best batch size
    return {"pgq_managers": managers} if managers <= MAX_PARALLEL else None


def _raw_loops(k: int, base: Settings) -> dict[str, Any] | None:
    loops = 4 << k  # loops, one connection each, at the best claim batch per loop
    return {"raw_loops": loops, "raw_batch": base.raw_batch or max(1, base.concurrency // base.raw_loops)} \
        if loops <= MAX_PARALLEL else None


SYSTEMS: dict[str, System] = {
    "cutover": System("cutover", cutover_prepare, cutover_enqueue, cutover_drain, cutover_count,
                      (_cutover_climb, _cutover_lanes)),
    # The same, with the worker process importing another checkout's queue_core (--main-tree).
    "cutover_main": System("cutover_main", cutover_prepare, cutover_enqueue, cutover_drain, cutover_count,
                           (_cutover_climb, _cutover_lanes)),
    "pgqueuer": System("pgqueuer", pgqueuer_prepare, pgqueuer_enqueue, pgqueuer_drain, pgqueuer_count,
                       (_pgqueuer_climb, _pgqueuer_managers)),
    # procrastinate's parallelism is its concurrency (a connection per running job): one ladder.
    "procrastinate": System("procrastinate", procrastinate_prepare, procrastinate_enqueue, procrastinate_drain,
                            procrastinate_count, (_procrastinate_climb,)),
    "raw_sql": System("raw_sql", raw_prepare, raw_enqueue, raw_drain, raw_count, (_raw_climb, _raw_loops)),
}

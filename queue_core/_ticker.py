"""The tick producer: workers enqueue their schedules' ticks themselves, no extra daemon.

Every worker runs :func:`run_ticker` beside its claim loop. A pass (:func:`produce_due_ticks`)
is one transaction: lock the due schedule rows (FOR UPDATE SKIP LOCKED: the row lock is the
right to produce them), plan each one's ticks with the pure ``schedule.plan_ticks``, enqueue the
tick jobs and move next_tick on, then commit. Each tick's job carries the dedupe key
``schedule:<name>:<tick instant UTC>``, unique in the jobs table, so a tick is enqueued exactly
once even if two producers raced past the lock; a producer killed mid-pass rolls back whole.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from . import schedule as sch
from .errors import ConfigError
from .job import JobSpec
from .queue import Queue
from .registry import Registry
from .store import schedules as store

log = logging.getLogger("cutover.schedule")
# Schedules one pass produces at most; a larger backlog is taken by the next passes at once.
PASS_LIMIT = 200
# Passes run this long after each whole interval of the wall clock: cron ticks fall on whole
# minutes, so a tick is produced within tens of milliseconds instead of up to an interval late.
BEAT_OFFSET_S = 0.02


def until_next_beat(now_s: float, interval_s: float) -> float:
    """Seconds from ``now_s`` (epoch seconds) to the next pass: BEAT_OFFSET_S past a multiple of
    ``interval_s``."""
    return interval_s - (now_s - BEAT_OFFSET_S) % interval_s


async def sync(pool: AsyncConnectionPool, specs: Sequence[sch.ScheduleSpec], *, automations: Sequence[str],
               now: datetime | None = None) -> None:
    """Upsert ``specs`` into the schedules table and drop this worker's undeclared ones.

    A new schedule (or one whose cron or timezone changed) starts at its first tick after now;
    an unchanged one keeps its next tick, so ticks missed while no worker ran are caught up.
    """
    async with pool.connection() as conn, conn.transaction():
        if now is None:
            now = await store.db_now(conn)
        rows = [{
            "name": s.name, "automation": s.automation, "cron": s.cron, "timezone": s.timezone,
            "catch_up": str(s.catch_up), "catch_up_max": s.catch_up_max, "payload": s.payload,
            "paused": s.paused, "source": s.source,
            "next_tick": sch.first_tick_after(s.cron, s.timezone, now).isoformat(),
        } for s in specs]
        if rows:
            await store.sync_schedules(conn, rows)
        await store.drop_undeclared(conn, automations=list(automations), names=[s.name for s in specs])


async def produce_due_ticks(pool: AsyncConnectionPool, registry: Registry, *, worker: str,
                            now: datetime | None = None, limit: int = PASS_LIMIT) -> int:
    """Enqueue the due ticks of up to ``limit`` schedules in one transaction; return how many
    schedules it advanced (``limit`` means more may be due).

    ``now`` None means the database clock. Tick jobs are live jobs with trigger_meta
    ``{"source": "schedule", "received_at": <tick>, ...}``; their payload is the schedule's.
    """
    queue = Queue(pool, registry=registry)
    async with pool.connection() as conn, conn.transaction():
        due = await store.claim_due(conn, now=now, automations=registry.names(), limit=limit)
        if not due:
            return 0
        specs: list[JobSpec] = []
        advanced: list[dict[str, Any]] = []
        for row in due:
            plan = sch.plan_ticks(row["cron"], row["timezone"], row["next_tick"], row["now"], row["catch_up"],
                                  row["catch_up_max"], paused=row["paused"])
            specs.extend(_tick_job(row, tick) for tick in plan.ticks)
            last = plan.ticks[-1].isoformat() if plan.ticks else None
            advanced.append({"name": row["name"], "next_tick": plan.next_tick.isoformat(), "last_tick": last})
        await queue.enqueue_in(conn, specs, actor=f"schedule:{worker}", now=now)
        await store.advance(conn, advanced, worker=worker)
    return len(due)


def _tick_job(row: dict[str, Any], tick: datetime) -> JobSpec:
    name = row["name"]
    return JobSpec(row["automation"], payload=row["payload"], dedupe_key=sch.dedupe_key(name, tick),
                   trigger_id=sch.dedupe_key(name, tick), trigger_meta=sch.tick_meta(name, tick))


async def run_ticker(pool: AsyncConnectionPool, registry: Registry, *, worker: str,
                     specs: Sequence[sch.ScheduleSpec] | None = None, interval_s: float = 1.0) -> None:
    """Sync the declared schedules, then produce due ticks every ``interval_s`` until cancelled.

    ``specs`` None: the registry's decorators and ``[tool.cutover.schedules]`` of the nearest
    pyproject.toml. A failing pass is logged and retried on the next one; it never ends the
    worker. Runs only while the worker runs: a deployment is still "run workers".
    """
    if specs is None:
        try:
            specs = declared_for(registry)
        except ConfigError as exc:  # `cutover worker` refuses to start on this; a library caller gets it logged
            log.error("schedules not produced: %s", exc)
            return
    while True:
        try:
            await sync(pool, specs, automations=registry.names())
            break
        except Exception as exc:  # the database may be restarting: keep the worker, retry
            log.warning("syncing schedules failed, retrying: %s", exc)
            await asyncio.sleep(interval_s)
    while True:
        try:
            while await produce_due_ticks(pool, registry, worker=worker) >= PASS_LIMIT:
                pass
        except Exception as exc:  # a failing pass must not kill the worker
            log.warning("producing schedule ticks failed, retrying: %s", exc)
        await asyncio.sleep(until_next_beat(time.time(), interval_s))


def declared_for(registry: Registry) -> list[sch.ScheduleSpec]:
    """The schedules ``registry``'s decorators and the project's pyproject.toml declare.

    Raises ConfigError naming the file and key of a bad declaration.
    """
    from . import config

    path = config.find_pyproject()
    raw = config.load(path).raw if path is not None else {}
    return sch.declared(registry.automations(), raw, source=str(path or "pyproject.toml"))


async def list_schedules(pool: AsyncConnectionPool) -> list[dict[str, Any]]:
    """Return every schedule with its last and next tick and whether it is paused."""
    return await store.list_schedules(pool)

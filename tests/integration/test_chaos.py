"""Chaos: worker processes SIGKILLed at random points while draining jobs with side effects."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from queue_core import JobSpec, Queue, db
from tests.support.chaos_worker import registry

ROOT = Path(__file__).resolve().parents[2]
JOBS = 400  # enough work that the drain outlasts a dozen kills on a quiet machine


def _spawn(db_url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, CHAOS_DB=db_url, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.chaos_worker"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


async def _enqueue(db_url: str) -> list:
    async with db.pool(db_url, max_size=2) as pool:
        return await Queue(pool, registry=registry).enqueue_many(
            [JobSpec("charge", {"n": i}, max_claims=100) for i in range(JOBS)]
        )


def _leaseholders(conn: psycopg.Connection) -> set[int]:
    """The pids of the workers holding a running job's lease (worker ids are host:pid:suffix)."""
    rows = conn.execute("SELECT DISTINCT lease_owner FROM jobs WHERE status = 'running'").fetchall()
    return {int(owner.split(":")[1]) for (owner,) in rows if owner and owner.count(":") >= 2}


@pytest.mark.slow
def test_sigkilled_workers_lose_no_job_and_apply_no_effect_twice(fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE effects (key text PRIMARY KEY, job_id uuid NOT NULL, deliveries int NOT NULL)")
    ids = asyncio.run(_enqueue(fresh_db_url))
    rng = random.Random(20240601)
    procs = [_spawn(fresh_db_url) for _ in range(3)]
    kills = 0
    deadline = time.monotonic() + 120
    try:
        with psycopg.connect(fresh_db_url, autocommit=True) as conn:
            while time.monotonic() < deadline:
                (left,) = conn.execute("SELECT count(*) FROM jobs WHERE status <> 'succeeded'").fetchone()
                if left == 0:
                    break
                time.sleep(rng.uniform(0.2, 0.6))
                # Kill only a worker holding a lease: on a loaded machine a just-spawned worker can
                # take longer to start than the pause, and killing it would test nothing.
                candidates = [p for p in procs if p.pid in _leaseholders(conn)]
                if kills < 12 and candidates:
                    victim = candidates[rng.randrange(len(candidates))]
                    procs.remove(victim)
                    victim.send_signal(signal.SIGKILL)
                    victim.wait()
                    kills += 1
                    procs.append(_spawn(fresh_db_url))
    finally:
        for p in procs:
            p.kill()
            p.wait()
    with psycopg.connect(fresh_db_url) as conn:
        statuses = dict(conn.execute("SELECT status::text, count(*) FROM jobs GROUP BY 1").fetchall())
        per_job = conn.execute("SELECT job_id, count(*) FROM effects GROUP BY job_id").fetchall()
        (reclaims,) = conn.execute("SELECT count(*) FROM ledger WHERE kind = 'reclaimed'").fetchone()
        (redelivered,) = conn.execute("SELECT count(*) FROM effects WHERE deliveries > 1").fetchone()
    assert kills >= 3, "the jobs drained before the chaos started"
    assert statuses == {"succeeded": JOBS}, statuses
    assert len(per_job) == JOBS and {job for job, _ in per_job} == set(ids)
    assert all(n == 1 for _, n in per_job), "a job's key changed between claims: effect applied twice"
    assert reclaims > 0, "no job was ever reclaimed: the chaos did not bite"
    print(f"kills={kills} reclaims={reclaims} effects redelivered with the same key={redelivered}")

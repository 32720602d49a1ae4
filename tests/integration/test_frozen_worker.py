"""A worker frozen (SIGSTOP) past its lease while it runs a job of a limit-1 key.

What a concurrency limit guarantees, and what this test asserts: at any instant at most ``limit``
claims of a key hold a live lease, and only a claim holding a live lease can write (steps,
checkpoints, waits, children, polls, ledger events, calls, its outcome). So in the database the
writes of a key's jobs come one claim at a time: they never interleave. What it cannot guarantee:
a frozen process's own code runs on when it resumes, until its next write is refused (or its
heartbeat finds the lease gone and cancels it); anything that code does outside the queue is not
the queue's to stop.

The scenario: worker A runs J1 of key ``k``; A is frozen for longer than its lease; worker B
claims J2 of the same key (higher priority) into the key's only slot while J1 is still ``running``
under A's claim; then A resumes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg

from queue_core import JobSpec, Queue, db
from tests.support.frozen_worker import registry
from tests.support.polling import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _spawn(db_url: str, stderr: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, WORKER_DB=db_url, PYTHONPATH=str(ROOT))
    with stderr.open("wb") as err:
        return subprocess.Popen([sys.executable, "-m", "tests.support.frozen_worker"], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=err)


async def _enqueue(db_url: str, specs: list[JobSpec]) -> list:
    async with db.pool(db_url, max_size=2) as pool:
        return await Queue(pool, registry=registry).enqueue_many(specs)


def _one(conn: psycopg.Connection, query: str, params: tuple = ()) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


class Watch:
    """Reads the database while the workers run; samples the key's lease holders each time."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        self.most_holders = 0

    def sample(self) -> None:
        holders = _one(self.conn, "SELECT count(*) FROM jobs WHERE concurrency_key = 'k' AND status = 'running'"
                                  " AND leased_until > clock_timestamp()")
        self.most_holders = max(self.most_holders, int(holders))

    def beats(self, job_id, claim: int | None = None) -> int:
        self.sample()
        query = "SELECT count(*) FROM ledger WHERE job_id = %s AND kind = 'beat'"
        if claim is None:
            return int(_one(self.conn, query, (job_id,)))
        return int(_one(self.conn, query + " AND (detail->>'claim')::int = %s", (job_id, claim)))

    def unfinished(self) -> int:
        self.sample()
        return int(_one(self.conn, "SELECT count(*) FROM jobs WHERE status <> 'succeeded'"))


def test_a_worker_frozen_past_its_lease_writes_nothing_once_another_claim_holds_the_key(fresh_db_url, tmp_path):
    (j1,) = asyncio.run(_enqueue(fresh_db_url, [JobSpec("beats", {"customer": "k", "beats": 30})]))
    a_err, b_err = tmp_path / "a.err", tmp_path / "b.err"
    a = _spawn(fresh_db_url, a_err)
    procs = [a]
    try:
        with psycopg.connect(fresh_db_url, autocommit=True) as conn:
            watch = Watch(conn)
            wait_until(lambda: watch.beats(j1) >= 3, timeout=30)
            a.send_signal(signal.SIGSTOP)
            frozen_at = _one(conn, "SELECT clock_timestamp()")
            # J2 outranks J1, so B takes the key's slot with it rather than reclaiming J1; five
            # short jobs of the key queue up behind.
            j2, *rest = asyncio.run(_enqueue(fresh_db_url, [JobSpec("beats", {"customer": "k", "beats": 20}, priority=5)]
                                             + [JobSpec("beats", {"customer": "k", "beats": 2}, priority=1)
                                                for _ in range(5)]))
            procs.append(_spawn(fresh_db_url, b_err))
            wait_until(lambda: watch.beats(j2) >= 3, timeout=30)
            assert _one(conn, "SELECT status::text || ':' || claim_count FROM jobs WHERE id = %s", (j1,)) == "running:1"
            a.send_signal(signal.SIGCONT)
            resumed_at = _one(conn, "SELECT clock_timestamp()")
            wait_until(lambda: watch.unfinished() == 0, timeout=60)
            a_id = _one(conn, "SELECT actor FROM ledger WHERE job_id = %s AND kind = 'claimed'", (j1,))
            taken_at = _one(conn, "SELECT at FROM ledger WHERE job_id = %s AND kind = 'claimed'", (j2,))
            key_beats = conn.execute(
                "SELECT l.job_id, (l.detail->>'claim')::int FROM ledger l JOIN jobs j ON j.id = l.job_id"
                " WHERE j.concurrency_key = 'k' AND l.kind = 'beat' ORDER BY l.seq").fetchall()
            late_beats = _one(conn, "SELECT count(*) FROM ledger WHERE job_id = %s AND kind = 'beat'"
                                    " AND (detail->>'claim')::int = 1 AND at >= %s", (j1, taken_at))
            late_steps = _one(conn, "SELECT count(*) FROM steps WHERE job_id = %s AND (output->>'claim')::int = 1"
                                    " AND (started_at >= %s OR finished_at >= %s)", (j1, taken_at, taken_at))
            j1_claims = _one(conn, "SELECT claim_count FROM jobs WHERE id = %s", (j1,))
            j1_outcome_by = _one(conn, "SELECT actor || ' after claim ' || (SELECT count(*) FROM ledger c WHERE"
                                       " c.job_id = l.job_id AND c.kind IN ('claimed', 'reclaimed') AND c.seq < l.seq)"
                                       " FROM ledger l WHERE job_id = %s AND kind = 'succeeded'", (j1,))
    finally:
        for p in procs:
            p.send_signal(signal.SIGCONT)
            p.kill()
            p.wait()
    # The freeze outlasted the lease and another claim took the key while J1 was still running.
    assert frozen_at < taken_at < resumed_at
    assert j1_claims >= 2 and not j1_outcome_by.endswith("after claim 1")  # J1 finished under a later claim
    # (a) Nothing J1's first claim (worker A, frozen) wrote landed after the key was taken over,
    # although A ran on after SIGCONT: it noticed, in its own log, that it had lost J1.
    assert late_beats == 0 and late_steps == 0
    assert str(j1) in a_err.read_text(), f"worker {a_id} never reported losing {j1}"
    # (b) The limit: the key's writes come one claim at a time, each claim's in one unbroken run.
    runs = [pair for i, pair in enumerate(key_beats) if i == 0 or key_beats[i - 1] != pair]
    assert len(runs) == len(set(runs)), f"claims of key k wrote interleaved: {runs}"
    assert {job for job, _ in runs} == {j1, j2, *rest} and (j1, 1) in runs
    assert watch.most_holders == 1

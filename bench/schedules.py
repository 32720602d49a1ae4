"""1,000 schedules firing every minute, produced by 2 worker processes, one killed with -9 mid-run.

    python bench/schedules.py                          # 1,000 schedules, ~3 minutes
    python bench/schedules.py --schedules 200 --duration 130

A fresh database and a throwaway project whose pyproject.toml declares ``--schedules``
``[tool.cutover.schedules.s<i>]`` tables (cron ``* * * * *``, catch_up ``all``). Two
``cutover worker`` processes run them; just after the second minute boundary one is killed with
SIGKILL (in the middle of producing that minute's ticks) and restarted. At the end both get
SIGTERM. Then, over every minute boundary after both workers had synced and before they stopped:

- exactly once: each (schedule, tick) has exactly one job, and none is missing;
- tick-to-enqueue delay: the job's created_at minus its tick (trigger_meta received_at), p50/p99.

The last line is ``RESULT {json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg

from queue_core import provision

REPO = Path(__file__).resolve().parents[1]


def _project(folder: Path, n: int) -> None:
    tables = "".join(f'\n[tool.cutover.schedules.s{i}]\nautomation = "tick"\ncron = "* * * * *"\ncatch_up = "all"\n'
                     for i in range(n))
    (folder / "pyproject.toml").write_text('[tool.cutover]\nautomations = "benchautos"\n' + tables)
    (folder / "benchautos.py").write_text(textwrap.dedent('''
        from queue_core import automation

        @automation("tick")
        async def tick(ctx, trigger):
            return None
    '''))


def _worker(folder: Path, url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, DATABASE_URL=url, PYTHONPATH=str(REPO))
    argv = [sys.executable, "-m", "harness.cli", "worker", "--concurrency", "20", "--allow-ungated", "tick"]
    return subprocess.Popen(argv, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _scalar(url: str, query: str) -> object:
    with psycopg.connect(url) as conn:
        return conn.execute(query).fetchone()[0]


def _wait_synced(url: str, n: int, timeout_s: float = 120) -> datetime:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _scalar(url, "SELECT count(*) FROM schedules") >= n:
            return datetime.now(timezone.utc)
        time.sleep(0.2)
    raise SystemExit("the workers did not sync the schedules in time")


def _sleep_until(at: datetime) -> None:
    time.sleep(max(0.0, (at - datetime.now(timezone.utc)).total_seconds()))


def _minute_after(at: datetime) -> datetime:
    return at.replace(second=0, microsecond=0) + timedelta(minutes=1)


def _analyse(url: str, n: int, first: datetime, last: datetime) -> dict[str, object]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT trigger_meta->>'schedule', (trigger_meta->>'tick')::timestamptz, created_at FROM jobs "
            "WHERE trigger_meta->>'source' = 'schedule' AND (trigger_meta->>'tick')::timestamptz BETWEEN %s AND %s",
            (first, last)).fetchall()
        not_done = conn.execute("SELECT count(*) FROM jobs WHERE status <> 'succeeded'").fetchone()[0]
    ticks = int((last - first).total_seconds() // 60) + 1
    seen: dict[tuple[str, datetime], int] = {}
    for name, tick, _ in rows:
        seen[(name, tick)] = seen.get((name, tick), 0) + 1
    delays = sorted((created - tick).total_seconds() for _, tick, created in rows)
    pick = lambda q: round(delays[min(len(delays) - 1, int(q * len(delays)))], 3) if delays else None  # noqa: E731
    return {"schedules": n, "ticks": ticks, "expected_jobs": n * ticks, "jobs": len(rows),
            "distinct_ticks": len(seen), "duplicated": sum(1 for c in seen.values() if c > 1),
            "missing": n * ticks - len(seen), "delay_p50_s": pick(0.5), "delay_p99_s": pick(0.99),
            "delay_max_s": round(delays[-1], 3) if delays else None, "unfinished_jobs": not_done}


def main(args: argparse.Namespace) -> None:
    url = provision.fresh_database(prefix="bench_sched")
    workers: list[subprocess.Popen[bytes]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            _project(folder, args.schedules)
            began = datetime.now(timezone.utc)
            workers = [_worker(folder, url), _worker(folder, url)]
            synced = _wait_synced(url, args.schedules)
            first = _minute_after(synced)
            kill_at = first + timedelta(minutes=1, seconds=0.3)
            _sleep_until(kill_at)
            workers[0].send_signal(signal.SIGKILL)
            workers[0].wait()
            print(f"killed worker 1 (-9) at {datetime.now(timezone.utc).isoformat()}", flush=True)
            time.sleep(args.restart_after)
            workers[0] = _worker(folder, url)
            stop_at = max(kill_at + timedelta(seconds=40), began + timedelta(seconds=args.duration))
            _sleep_until(stop_at)
            for w in workers:
                w.send_signal(signal.SIGTERM)
            for w in workers:
                w.wait(timeout=60)
        last = stop_at.replace(second=0, microsecond=0)
        if (stop_at - last).total_seconds() < 5:
            last -= timedelta(minutes=1)  # a tick in the last seconds may not have been produced yet
        result = _analyse(url, args.schedules, first, last)
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        provision.drop_database(url)
    print(f"{result['schedules']} schedules x {result['ticks']} ticks: {result['jobs']} jobs, "
          f"{result['duplicated']} duplicated, {result['missing']} missing; tick-to-enqueue delay "
          f"p50 {result['delay_p50_s']} s, p99 {result['delay_p99_s']} s, max {result['delay_max_s']} s")
    print("RESULT " + json.dumps(result))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--schedules", type=int, default=1000, help="schedules, each every minute (default 1,000)")
    p.add_argument("--duration", type=float, default=180,
                   help="seconds from the start to the stop (default 180; at least 40 s after the kill)")
    p.add_argument("--restart-after", type=float, default=3.0, help="seconds before the killed worker restarts")
    return p


if __name__ == "__main__":
    main(_parser().parse_args())

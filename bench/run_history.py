"""How fast the run history pages at a million jobs: ``cutover jobs list`` / ``GET /jobs``'s query.

Fills a scratch database (``cutover_bench_history`` on the server of ``DATABASE_URL``, created
and migrated if absent) with ``--jobs`` jobs over 30 days, 20 automations, the statuses mixed as
a busy queue leaves them (mostly succeeded, some failed and dead with errors, a few pending), then
times ``queue_core.store.history.list_jobs`` for the pages a person asks for: the first page, a
page deep in the history (after a job a tenth of the way back), one automation's runs, the failed
and dead ones, an error text, a time window. Each query runs ``--rounds`` times, in rounds that
alternate between them; p50 and p99 of the wall time of each (one connection, the pool warm) are
printed, with the machine's load.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/run_history.py --jobs 1000000

Never a timed assertion in the test suite: tests/integration/test_run_history.py checks what the
pages hold.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg

from queue_core import db
from queue_core.migrate import migrate
from queue_core.store.history import JobFilter, list_jobs

FILL = """
INSERT INTO jobs (automation, status, mode, payload, created_at, finished_at, attempt, last_error, error_kind)
SELECT 'automation-' || (g %% 20),
       (CASE WHEN g %% 50 = 0 THEN 'failed' WHEN g %% 97 = 0 THEN 'dead' WHEN g %% 1000 = 0 THEN 'pending'
             ELSE 'succeeded' END)::job_status,
       'live', jsonb_build_object('n', g),
       %(start)s::timestamptz + (g * %(step)s::double precision) * interval '1 second',
       %(start)s::timestamptz + (g * %(step)s::double precision + 1) * interval '1 second', 1,
       CASE WHEN g %% 50 = 0 THEN 'HTTP 404 from crm: no such contact ' || g
            WHEN g %% 97 = 0 THEN 'HTTP 503 from billing, 5 attempts' END,
       (CASE WHEN g %% 50 = 0 THEN 'terminal' WHEN g %% 97 = 0 THEN 'retryable' END)::error_kind
FROM generate_series(1, %(n)s) AS g
"""


def _scratch(url: str) -> str:
    info = psycopg.conninfo.conninfo_to_dict(url)
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = 'cutover_bench_history'").fetchone() is None:
            conn.execute("CREATE DATABASE cutover_bench_history")
    return psycopg.conninfo.make_conninfo(**{**info, "dbname": "cutover_bench_history"})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    url = _scratch(os.environ["DATABASE_URL"])
    migrate(url)
    start = datetime(2024, 5, 1, tzinfo=UTC)
    with psycopg.connect(url, autocommit=True) as conn:
        (have,) = conn.execute("SELECT count(*) FROM jobs").fetchone()
        if have != args.jobs:
            conn.execute("TRUNCATE jobs, steps, ledger CASCADE")
            began = time.perf_counter()
            conn.execute(FILL, {"n": args.jobs, "start": start, "step": 30 * 86400 / args.jobs})
            conn.execute("VACUUM ANALYZE jobs")
            print(f"filled {args.jobs:,} jobs in {time.perf_counter() - began:.1f} s")
        (deep,) = conn.execute("SELECT id FROM jobs ORDER BY created_at DESC, id DESC OFFSET %s LIMIT 1",
                               (args.jobs // 10,)).fetchone()
    queries: dict[str, tuple[JobFilter, uuid.UUID | None]] = {
        "first page": (JobFilter(), None),
        "a page a tenth back": (JobFilter(), deep),
        "one automation": (JobFilter(automation="automation-7"), None),
        "failed and dead": (JobFilter(statuses=("failed", "dead")), None),
        "error text 'no such contact'": (JobFilter(error_text="no such contact"), None),
        "a 2-hour window": (JobFilter(since=start + timedelta(days=12), until=start + timedelta(days=12, hours=2)), None),
    }
    times: dict[str, list[float]] = {name: [] for name in queries}
    async with db.pool(url, max_size=1) as pool:
        for _ in range(args.rounds):
            for name, (where, after) in queries.items():
                began = time.perf_counter()
                page = await list_jobs(pool, where, limit=50, after=after)
                times[name].append((time.perf_counter() - began) * 1000)
                assert page.jobs, name
    print(f"{args.jobs:,} jobs, {args.rounds} rounds, one page of 50 (load {os.getloadavg()[0]:.1f}):")
    for name, samples in times.items():
        samples.sort()
        p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
        print(f"  {name:<30} p50 {statistics.median(samples):7.2f} ms   p99 {p99:7.2f} ms")


if __name__ == "__main__":
    asyncio.run(main())

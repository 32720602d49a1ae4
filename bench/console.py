"""How fast the console answers at a million jobs: time to first byte of its pages over loopback.

Uses the scratch database ``cutover_bench_history`` that ``bench/run_history.py`` fills (run that
first, with the same ``--jobs``), migrated to this release. Serves ``cutover serve``'s app with
uvicorn on a loopback port in this process, signs in to the console with a scratch token, then
GETs each page ``--rounds`` times (rounds alternating between pages) and records the time to the
response's first byte (status line and headers: a page is rendered whole before it is sent, so
this is the server's whole work) and to its last byte. p50 and p99 are printed with the load. The
runs page's counts per status are at most 10 s old (queue_core.server.console.counts): the first
view after start counts in the request (printed apart), later ones recount in the background.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/run_history.py --jobs 1000000
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/console.py --rounds 100

Never a timed assertion in the test suite: tests/integration/test_console_pages.py checks what the
pages hold.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx
import psycopg
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_history import _scratch  # noqa: E402

from queue_core import db  # noqa: E402
from queue_core.migrate import migrate  # noqa: E402
from queue_core.server import create_app, create_token, revoke_token  # noqa: E402


async def _token(url: str) -> str:
    async with db.pool(url, max_size=1) as pool:
        try:
            await revoke_token(pool, "bench-console", actor="bench")
        except Exception:  # none live yet
            pass
        return await create_token(pool, "bench-console", ("read",), actor="bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    url = _scratch(os.environ["DATABASE_URL"])
    migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:
        (have,) = conn.execute("SELECT count(*) FROM jobs").fetchone()
        if have != args.jobs:
            sys.exit(f"cutover_bench_history holds {have:,} jobs, not {args.jobs:,}: run bench/run_history.py "
                     f"--jobs {args.jobs} first")
        (some_job,) = conn.execute("SELECT id FROM jobs WHERE status = 'failed' ORDER BY created_at DESC LIMIT 1").fetchone()
    token = asyncio.run(_token(url))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(database_url=url), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    pages = {
        "runs (first page, counts)": "/console/runs",
        "runs table (the refresh)": "/console/runs/table",
        "runs, one automation": "/console/runs?automation=automation-7",
        "runs, failed": "/console/runs?status=failed",
        "runs, error text": "/console/runs?error=no+such+contact",
        "run detail": f"/console/runs/{some_job}",
        "automations (last day)": "/console/automations",
    }
    # Timed apart, after the others: its grouping reads every failed and dead job (~30,000 here), and
    # interleaved it would slow the pages timed after it on this 2-core machine.
    heavy = {"dead and failed (groups)": "/console/failing"}
    first: dict[str, list[float]] = {name: [] for name in {**pages, **heavy}}
    whole: dict[str, list[float]] = {name: [] for name in {**pages, **heavy}}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
        assert client.post("/console/login", data={"token": token}).status_code in (200, 303)
        began = time.perf_counter()
        assert client.get("/console/runs").status_code == 200
        cold = (time.perf_counter() - began) * 1000  # the app's first view counts the jobs by status itself
        for path in {**pages, **heavy}.values():  # warm: connections, prepared statements, the OS cache
            assert client.get(path).status_code == 200, path
        for rounds, timed in ((args.rounds, pages), (max(10, args.rounds // 5), heavy)):
            for name, path in ((n, p) for _ in range(rounds) for n, p in timed.items()):
                began = time.perf_counter()
                with client.stream("GET", path) as answer:
                    first[name].append((time.perf_counter() - began) * 1000)
                    answer.read()
                    whole[name].append((time.perf_counter() - began) * 1000)
                assert answer.status_code == 200, (path, answer.status_code)
    server.should_exit = True
    thread.join(timeout=10)
    print(f"{args.jobs:,} jobs, loopback, one client, samples per page: "
          f"{', '.join(str(len(v)) for v in first.values())} (load {os.getloadavg()[0]:.1f}):")
    print(f"  the first runs page after start (counts taken in the request): {cold:.1f} ms")
    for name in first:
        ttfb, done = sorted(first[name]), sorted(whole[name])
        p99 = lambda xs: xs[min(len(xs) - 1, int(len(xs) * 0.99))]  # noqa: E731
        print(f"  {name:<28} TTFB p50 {statistics.median(ttfb):7.1f} ms  p99 {p99(ttfb):7.1f} ms"
              f"   (last byte p50 {statistics.median(done):7.1f} ms)")


if __name__ == "__main__":
    main()

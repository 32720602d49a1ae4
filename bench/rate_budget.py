"""Rate budget benchmark: cutover workers use a provider's budget and never exceed it.

Setup: a fresh migrated Postgres database; a throttled provider on loopback in its own process
(tests/support/fake_provider.py) that counts a sliding window by its own receive clock, the
strictest way real providers count: more than N requests (refused ones included) arriving in
any window of T seconds get 429 with ``Retry-After`` and ``RateLimit`` headers. ``--workers``
real ``cutover worker`` processes (the CLI, ``--concurrency`` jobs each) run an automation
making one call to it per job, with the provider configured as ``rate = "N/Ts"``. The queue
holds more jobs than the budget allows in ``--seconds``; after ``--seconds`` of the provider's
traffic the workers get SIGTERM (in-flight jobs finish).

Prints what the provider saw: requests received, 429s sent, the worst count in any 1 s and in
any T s (every request received, first to last), and the utilisation: the mean, over every
window of T seconds starting in the measured span (from the first request on), of the requests
admitted in it, as a share of N. Then the requests admitted in each second of the span and
the utilisation per second of budget (N/T a second) two ways: over every second (overall), and
over the full-budget seconds only, those that began with at least N/T jobs not yet admitted
(demand exceeded the budget), so a queue that drains (``--jobs``) is not charged for its
ramp-down tail. Also what the workers recorded: put-backs after a 429 (``rate_limited``),
budget waits (``budget_wait``), retries that used an attempt. Last line: ``RESULT {json}``.
Targets: 0 x 429, worst T-s count <= N, utilisation >= 95% (over the full-budget seconds).

    python bench/rate_budget.py                      # 20/1s for 25 s, 3 workers
    python bench/rate_budget.py --rate 100/10s --seconds 40
    python bench/rate_budget.py --algorithm token_bucket --burst 16   # the old default: overrun
    python bench/rate_budget.py --configured 25/1s    # the provider is stricter than configured: 429s
    python bench/rate_budget.py --seconds 6 --jobs 100  # the queue drains: a ramp-down tail
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from queue_core import JobSpec, Queue, db, provision  # noqa: E402
from queue_core.provider import parse_rate  # noqa: E402
from tests.support.fake_provider import serve_in_process, worst_window  # noqa: E402

AUTOMATION = "rate-bench"
MODULE = '''
from queue_core import automation


@automation("rate-bench")
async def rate_bench(ctx, trigger):
    await ctx.call("throttled", "POST", "/effects", json={"n": trigger.body["n"]}, step="send")
'''


def start_provider(ctx: Any, limit: int, window: float, latency: float) -> tuple[str, Any, Any]:
    ready, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=serve_in_process, args=(limit, window, ready, stop, latency, "sliding"), daemon=True)
    proc.start()
    return ready.get(timeout=30), stop, proc


def fetch(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def write_project(folder: Path, provider: dict[str, Any]) -> None:
    lines = [f"{k} = {json.dumps(v)}" for k, v in provider.items()]
    (folder / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.cutover]
        automations = "rate_bench_automations"

        [tool.cutover.providers.throttled]
        """) + "\n".join(lines) + "\n")
    (folder / "rate_bench_automations.py").write_text(MODULE)


async def enqueue(db_url: str, n: int) -> None:
    async with db.pool(db_url, max_size=2) as pool:
        queue = Queue(pool)
        for start in range(0, n, 500):
            await queue.enqueue_many([JobSpec(AUTOMATION, {"n": i}) for i in range(start, min(n, start + 500))])


async def worker_side(db_url: str) -> dict[str, Any]:
    async with db.pool(db_url, max_size=2) as pool:
        async with pool.connection() as conn:
            kinds = dict(await (await conn.execute(
                "SELECT kind, count(*) FROM ledger GROUP BY kind")).fetchall())
            statuses = dict(await (await conn.execute(
                "SELECT status::text, count(*) FROM jobs GROUP BY status")).fetchall())
            (attempts_over_one,) = await (await conn.execute(
                "SELECT count(*) FROM jobs WHERE attempt > 1")).fetchone()  # type: ignore[misc]
    return {"ledger": kinds, "jobs": statuses, "jobs_with_more_than_one_attempt": attempts_over_one}


def utilisation(admitted: list[float], start: float, end: float, window: float, limit: int) -> float:
    """The mean, over windows [x, x + window) with x from start to end - window (1 ms apart), of
    the admitted requests in the window, as a share of ``limit``."""
    steps = max(1, int((end - window - start) * 1000))
    total = 0
    for i in range(steps):
        x = start + i / 1000
        total += bisect.bisect_left(admitted, x + window) - bisect.bisect_left(admitted, x)
    return total / steps / limit


def per_second(admitted: list[float], start: float, end: float, jobs: int) -> list[tuple[int, int]]:
    """Return (requests admitted in it, jobs not yet admitted at its start) for each whole second
    [start + k, start + k + 1) before ``end`` (a partial last second counts as one)."""
    out = []
    for k in range(max(1, math.ceil(end - start - 1e-9))):
        lo, hi = bisect.bisect_left(admitted, start + k), bisect.bisect_left(admitted, min(start + k + 1, end))
        out.append((hi - lo, jobs - lo))
    return out


def second_utilisation(seconds: list[tuple[int, int]], per_s: float) -> tuple[float, float, int]:
    """Return (overall, over the full-budget seconds, how many those are) of ``per_second``'s rows,
    each as admitted requests over ``per_s`` a second. A full-budget second began with at least
    ``per_s`` jobs still to admit: demand exceeded the budget (0.0 when there is none)."""
    full = [count for count, demand in seconds if demand >= per_s]
    overall = sum(count for count, _ in seconds) / (per_s * len(seconds)) if seconds else 0.0
    return overall, (sum(full) / (per_s * len(full)) if full else 0.0), len(full)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", default="20/1s", help="the provider's limit, enforced and configured (20/1s)")
    parser.add_argument("--seconds", type=float, default=25.0, help="measured span of provider traffic (25)")
    parser.add_argument("--workers", type=int, default=3, help="cutover worker processes (3)")
    parser.add_argument("--concurrency", type=int, default=10, help="jobs each worker runs at once (10)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="processing time of every answer (0)")
    parser.add_argument("--configured", default=None,
                        help="the rate the provider table says, when not --rate (a provider stricter than its docs)")
    parser.add_argument("--algorithm", default=None, help="configure the provider so (default: sliding)")
    parser.add_argument("--burst", type=int, default=None, help="with --algorithm token_bucket")
    parser.add_argument("--guard", type=float, default=None, help="the provider's guard, seconds (default 0.005)")
    parser.add_argument("--times", type=Path, default=None, help="write the provider's receive times here (JSON)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="jobs to enqueue (default: 1.3x what the budget allows in --seconds, so it never drains)")
    args = parser.parse_args()

    rate = parse_rate(args.rate, "--rate")
    limit, window = rate.limit, rate.seconds
    jobs = args.jobs or math.ceil(limit / window * args.seconds * 1.3) + limit * args.workers
    ctx = multiprocessing.get_context("spawn")
    db_url = provision.fresh_database("cutover_bench")
    url, stop, proc = start_provider(ctx, limit, window, args.latency_ms / 1000)
    config: dict[str, Any] = {"base_url": url, "rate": args.configured or args.rate}
    config.update({k: v for k, v in (("algorithm", args.algorithm), ("burst", args.burst), ("guard", args.guard))
                   if v is not None})
    workers: list[subprocess.Popen[bytes]] = []
    try:
        asyncio.run(enqueue(db_url, jobs))
        with tempfile.TemporaryDirectory(prefix="rate_bench_") as folder:
            write_project(Path(folder), config)
            env = {**os.environ, "DATABASE_URL": db_url, "PYTHONPATH": str(ROOT)}
            logs = [Path(folder) / f"worker{i}.log" for i in range(args.workers)]
            for log in logs:
                with open(log, "wb") as out:
                    workers.append(subprocess.Popen(
                        [sys.executable, "-m", "harness", "worker", "--allow-ungated", AUTOMATION,
                         "--concurrency", str(args.concurrency)], cwd=folder, env=env, stdout=out, stderr=out))
            deadline = time.monotonic() + 60
            while fetch(url + "/_stats")["received"] == 0:
                if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                    raise SystemExit("the workers never reached the provider:\n" + "\n".join(
                        log.read_text()[-2000:] for log in logs))
                time.sleep(0.05)
            stop_at = time.monotonic() + args.seconds
            while time.monotonic() < stop_at and fetch(url + "/_stats")["served"] < jobs:
                time.sleep(0.05)  # the span ends after --seconds, or once every job was answered
            for w in workers:
                w.send_signal(signal.SIGTERM)
            for w in workers:
                w.wait(30)
            stopped = [line for log in logs for line in log.read_text().splitlines() if " stopped: " in line]
        times, server = fetch(url + "/_times"), fetch(url + "/_stats")
        recorded = asyncio.run(worker_side(db_url))
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        stop.set()
        proc.join(10)
        provision.drop_database(db_url)

    received, admitted = times["received"], times["admitted"]
    if args.times:
        args.times.write_text(json.dumps(times))
    first = received[0]
    span_end = min(first + args.seconds, admitted[-1] + 1e-6) if len(admitted) >= jobs else first + args.seconds
    util = utilisation(admitted, first, span_end, window, limit)
    in_span = bisect.bisect_left(admitted, span_end) - bisect.bisect_left(admitted, first)
    seconds = per_second(admitted, first, span_end, jobs)
    overall, full_budget, full_seconds = second_utilisation(seconds, limit / window)
    ledger = recorded["ledger"]
    result = {
        "rate": args.rate, "limit": limit, "window_s": window, "seconds": args.seconds, "workers": args.workers,
        "concurrency": args.concurrency, "provider_latency_ms": args.latency_ms,
        "config": {k: v for k, v in config.items() if k != "base_url"},
        "requests": len(received), "admitted": len(admitted), "429s": server["throttled"],
        "worst_1s": worst_window(received, 1.0), "worst_window": worst_window(received, window),
        "jobs_enqueued": jobs, "span_s": round(span_end - first, 3),
        "utilisation": round(util, 4), "admitted_per_s_in_span": round(in_span / (span_end - first), 2),
        "per_second": [count for count, _ in seconds], "utilisation_overall": round(overall, 4),
        "utilisation_full_budget": round(full_budget, 4), "full_budget_seconds": full_seconds,
        "rate_limited_put_backs": ledger.get("rate_limited", 0), "budget_waits": ledger.get("budget_wait", 0),
        "retries_using_an_attempt": ledger.get("retry_scheduled", 0), "jobs": recorded["jobs"],
        "jobs_with_more_than_one_attempt": recorded["jobs_with_more_than_one_attempt"],
        "workers_stopped": len(stopped),
    }
    print(f"provider {args.rate} (sliding window, its own receive clock), {args.workers} cutover workers "
          f"x {args.concurrency}, config {result['config']}")
    print(f"requests {result['requests']} (admitted {result['admitted']}), 429s {result['429s']}")
    print(f"worst 1-s count {result['worst_1s']}, worst {window:g}-s count {result['worst_window']} (limit {limit})")
    print(f"utilisation {util:.1%} of {limit}/{window:g}s over {span_end - first:.3g} s "
          f"(admitted {in_span} in the span: {result['admitted_per_s_in_span']}/s)")
    print(f"per second {result['per_second']}: utilisation {overall:.1%} overall, {full_budget:.1%} over the "
          f"{full_seconds} full-budget seconds (demand >= {limit / window:g}/s at their start)")
    print(f"workers: {result['rate_limited_put_backs']} put-backs after a 429, {result['budget_waits']} budget waits, "
          f"{result['retries_using_an_attempt']} retries using an attempt; jobs {result['jobs']}")
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()

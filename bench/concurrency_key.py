"""Drain rate of jobs with a concurrency key (1,000 keys, limit 1) against the same jobs without one.

    python bench/concurrency_key.py                    # 20,000 jobs, 3 rounds of each
    python bench/concurrency_key.py --jobs 5000 --rounds 1

One worker (in this process, the default lanes and a concurrency of 40) drains N no-op jobs from
a fresh database, in alternating rounds: ``plain`` (no key) and ``keyed`` (job i has key
``customer-<i mod keys>``, limit 1, enqueued interleaved as a webhook stream would be). Each
side's rate is its median round; the ratio keyed/plain is the cost of enforcing the limits in
the claim. Every round checks that all N jobs succeeded. The last line is ``RESULT {json}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation, db, provision

registry = Registry()


@automation("noop", registry=registry)
async def noop(ctx, trigger):
    return None


async def _round(keyed: bool, n: int, keys: int, concurrency: int) -> float:
    url = provision.fresh_database(prefix="bench_ckey")
    try:
        async with db.pool(url, max_size=concurrency + 4) as pool:
            queue = Queue(pool, registry=registry)
            specs = [JobSpec("noop", {"i": i}, concurrency_key=f"customer-{i % keys}" if keyed else None,
                             concurrency_limit=1 if keyed else None) for i in range(n)]
            for start in range(0, n, 5000):
                await queue.enqueue_many(specs[start:start + 5000])
            worker = Worker(pool, registry, WorkerConfig(concurrency=concurrency, lease_s=30, poll_s=0.05,
                                                         vacuum_every=20_000))
            began = time.perf_counter()
            await worker.run(drain=True)
            elapsed = time.perf_counter() - began
            counts = await queue.counts()
        if counts != {"succeeded": n}:
            raise SystemExit(f"{'keyed' if keyed else 'plain'} round did not finish: {counts}")
        return n / elapsed
    finally:
        provision.drop_database(url)


async def main(args: argparse.Namespace) -> None:
    rates: dict[str, list[float]] = {"plain": [], "keyed": []}
    for r in range(args.rounds):
        for side in (("plain", "keyed") if r % 2 == 0 else ("keyed", "plain")):
            rate = await _round(side == "keyed", args.jobs, args.keys, args.concurrency)
            rates[side].append(rate)
            print(f"round {r + 1} {side:<6} {rate:8.1f} jobs/s", flush=True)
    plain, keyed = statistics.median(rates["plain"]), statistics.median(rates["keyed"])
    print(f"median: plain {plain:.1f} jobs/s, keyed ({args.keys} keys, limit 1) {keyed:.1f} jobs/s, "
          f"ratio {keyed / plain:.3f}x (target >= 0.8x)")
    print("RESULT " + json.dumps({"plain_jobs_s": round(plain, 1), "keyed_jobs_s": round(keyed, 1),
                                  "ratio": round(keyed / plain, 3), "rounds": rates, "jobs": args.jobs,
                                  "keys": args.keys}))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=20_000, help="jobs per round (default 20,000)")
    p.add_argument("--keys", type=int, default=1000, help="distinct concurrency keys (default 1,000)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of each side (default 3)")
    p.add_argument("--concurrency", type=int, default=40, help="the worker's jobs in flight (default 40)")
    return p


if __name__ == "__main__":
    asyncio.run(main(_parser().parse_args()))

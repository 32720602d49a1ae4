"""Rate budget benchmark: one throttled provider must neither be overrun nor slow the others.

Setup: a fresh migrated Postgres database; two fake providers on loopback, each in its own
process — A enforces 50 requests/s itself (429 + Retry-After beyond that), B is unlimited; 4
worker processes. Each worker process drives ``queue_core.gateway.Gateway`` directly (the
queue's worker is not in the loop yet): concurrent call loops that sleep out a Snooze and retry
a RetryableError, as the worker will (tests/support/spender.py).

Two phases of --seconds each: B alone, and A and B together. The phases are interleaved in
slices of --slice seconds (alone, together, alone, ...) by one set of worker processes, so that
load from elsewhere on the machine hits both phases alike. Prints A's utilisation of its budget
(calls made / calls the budget allowed: per slice the bucket's burst plus the rate times the
slice), the 429s A's server sent, and B's throughput with A saturated as a ratio of B alone.
Last line: ``RESULT {json}``.
Targets: zero 429s, A utilisation >= 95%, B within 10% of alone.

    python bench/rate_budget.py --seconds 30
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from queue_core import provision  # noqa: E402
from queue_core.provider import parse_rate  # noqa: E402
from tests.support.fake_provider import serve_in_process  # noqa: E402
from tests.support.spender import Plan, Slice, spend  # noqa: E402


def start_server(ctx: Any, limit: int | None, latency: float) -> tuple[str, Any, Any]:
    ready, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=serve_in_process, args=(limit, 1.0, ready, stop, latency), daemon=True)
    proc.start()
    return ready.get(timeout=30), stop, proc


def stats(url: str) -> dict[str, int]:
    with urllib.request.urlopen(url + "/_stats", timeout=10) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


def run(ctx: Any, db_url: str, providers: dict[str, Any], loops: dict[str, int], workers: int,
        seconds: float, slice_len: float) -> tuple[list[dict[str, int]], int, float]:
    """Run alternating slices; return per-process counts, A's slice count and seconds per phase."""
    n = max(1, round(seconds / slice_len))
    t = time.time() + 3.0  # every process is up and connected before the first slice
    slices = []
    for i in range(2 * n):
        label, active = ("alone", ("b",)) if i % 2 == 0 else ("with_a", ("a", "b"))
        slices.append(Slice(label, t, t + slice_len, active))
        t += slice_len + 0.2
    plans = [Plan(db_url, providers, loops, slices=tuple(slices)) for _ in range(workers)]
    with ctx.Pool(workers) as pool:
        return pool.map(spend, plans), n, n * slice_len


def total(results: list[dict[str, int]], key: str) -> int:
    return sum(r[key] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="duration of each phase (default 30)")
    parser.add_argument("--slice", type=float, default=5.0, help="length of one interleaved slice (default 5)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--a-rate", type=int, default=50, help="A's limit per second (server and config)")
    parser.add_argument("--headroom", type=float, default=0.2, help="A's headroom setting (config default 0.2)")
    parser.add_argument("--a-loops", type=int, default=1, help="concurrent A call loops per worker")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="processing time of every fake provider answer (default 0: CPU-bound)")
    parser.add_argument("--b-loops", type=int, default=4, help="concurrent B call loops per worker")
    args = parser.parse_args()

    ctx = multiprocessing.get_context("spawn")
    db_url = provision.fresh_database("cutover_bench")
    a_url, a_stop, a_proc = start_server(ctx, args.a_rate, args.latency_ms / 1000)
    b_url, b_stop, b_proc = start_server(ctx, None, args.latency_ms / 1000)
    rate = f"{args.a_rate}/1s"
    providers = {"a": {"base_url": a_url, "rate": rate, "headroom": args.headroom}, "b": {"base_url": b_url}}
    try:
        results, a_slices, seconds = run(ctx, db_url, providers, {"a": args.a_loops, "b": args.b_loops},
                                         args.workers, args.seconds, args.slice)
        a_server = stats(a_url)
    finally:
        for stop, proc in ((a_stop, a_proc), (b_stop, b_proc)):
            stop.set()
            proc.join(10)
        provision.drop_database(db_url)

    burst = parse_rate(rate, "a.rate", args.headroom).burst
    allowed = a_slices * (burst + args.a_rate * args.slice)
    a_ok = total(results, "a.ok")
    b_alone, b_with_a = total(results, "b.ok@alone") / seconds, total(results, "b.ok@with_a") / seconds
    result = {
        "seconds_per_phase": seconds, "slice_seconds": args.slice, "workers": args.workers,
        "a_limit_per_s": args.a_rate, "a_calls": a_ok, "a_budget_allowed": allowed,
        "a_utilisation": round(a_ok / allowed, 4), "a_rate_per_s": round(a_ok / seconds, 2),
        "a_429s_server": a_server["throttled"], "a_429s_client": total(results, "a.429"),
        "a_snoozes": total(results, "a.snoozed"), "provider_latency_ms": args.latency_ms,
        "b_per_s_alone": round(b_alone, 1), "b_per_s_with_a": round(b_with_a, 1),
        "b_ratio_with_a_vs_alone": round(b_with_a / b_alone, 4) if b_alone else None,
        "driver": "gateway driven directly from worker processes (tests/support/spender.py)",
    }
    print(f"A: {a_ok} calls in {seconds:g} s ({result['a_rate_per_s']}/s) of {allowed:g} allowed "
          f"({a_slices} slices x (burst {burst} + {args.a_rate}/s x {args.slice:g} s)): "
          f"utilisation {result['a_utilisation']:.1%}")
    print(f"A: 429s sent by the provider: {result['a_429s_server']}; snoozes: {result['a_snoozes']}")
    print(f"B: {b_alone:.1f}/s alone, {b_with_a:.1f}/s with A saturated: ratio {result['b_ratio_with_a_vs_alone']}")
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()

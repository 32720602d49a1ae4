"""Benchmark a shadow replay of a fan-out automation against the same triggers of a flat one.

    python bench/fanout_replay.py                        # 1,000 triggers, 3 children, 5 rounds
    python bench/fanout_replay.py --triggers 500 --children 10 --rounds 3
    python bench/fanout_replay.py --profile wait         # cProfile one round of a scenario
    PROFILE_SORT=tottime python bench/fanout_replay.py --profile fanout   # sorted by own time

Three scenarios replay the same N triggers through ``harness.shadow.replay.ShadowReplayer`` (shadow mode, the
harness's default workers, a fresh migrated database each: ``DATABASE_URL``'s server when set,
else the provisioned one): ``flat`` (no children), ``fanout`` (K ``ctx.enqueue`` children each)
and ``wait`` (K children, then ``ctx.wait_for_children``). Rounds alternate the scenarios so a
neighbour's load on the shared cores lands on all of them; each figure is the median of its
rounds. Only the ``replay()`` call is timed. Prints triggers/s (and jobs/s) for each scenario and
their ratios to ``flat``; the last line is ``RESULT `` followed by one JSON object. Nothing here
asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import time
from datetime import UTC, datetime

from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus
from harness.shadow.cases import Case, ReplayOptions, shadow_providers
from harness.shadow.replay import ShadowReplayer
from queue_core import Context, Registry, Trigger, automation, provision

AT = datetime(2024, 6, 17, 9, 15, tzinfo=UTC)
SCENARIOS = ("flat", "fanout", "wait")
registry = Registry()


@automation("bench-flat", registry=registry)
async def flat(ctx: Context, trigger: Trigger) -> None:
    ctx.decide("items", len(trigger.body["items"]))


@automation("bench-fanout", registry=registry)
async def fanout(ctx: Context, trigger: Trigger) -> None:
    for item in trigger.body["items"]:
        await ctx.enqueue("bench-item", item, key=item["id"])
    if trigger.body["wait"]:
        outcomes = await ctx.wait_for_children(policy="collect")
        ctx.decide("settled", len(outcomes))


@automation("bench-item", registry=registry)
async def item(ctx: Context, trigger: Trigger) -> None:
    ctx.decide("doubled", trigger.body["n"] * 2)


def cases(scenario: str, triggers: int, children: int) -> list[Case]:
    """Return the N cases of ``scenario``: the same bodies for every scenario."""
    name = "bench-flat" if scenario == "flat" else "bench-fanout"
    out = []
    for i in range(triggers):
        body = {"items": [{"id": f"i{k}", "n": k} for k in range(children)], "wait": scenario == "wait"}
        trigger = RecordedTrigger(f"run-{i}", AT, {}, body, "recorder")
        out.append(Case(i, name, trigger, LegacyTrace(f"run-{i}", TraceStatus.SUCCEEDED, Platform.N8N)))
    return out


async def run_once(db_url: str, scenario: str, triggers: int, children: int, profile: bool) -> float:
    """Replay one scenario's cases on ``db_url``; return the seconds ``replay()`` took."""
    batch = cases(scenario, triggers, children)
    options = ReplayOptions(scratch=True)
    async with ShadowReplayer(db_url, registry, shadow_providers({}, []), options) as replayer:
        profiler = cProfile.Profile() if profile else None
        started = time.perf_counter()
        if profiler:
            profiler.enable()
        results = await replayer.replay(batch)
        elapsed = time.perf_counter() - started
        if profiler:
            profiler.disable()
            pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "cumulative")).print_stats(45)
    bad = [r for r in results if r.status != "succeeded" or any(c.status != "succeeded" for c in r.children)]
    expected = 0 if scenario == "flat" else children
    if bad or any(len(r.children) != expected for r in results):
        raise SystemExit(f"{scenario}: {len(bad)} job(s) did not succeed (first: {bad[:1]})")
    return elapsed


def main() -> None:
    """Replay, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triggers", type=int, default=1000)
    parser.add_argument("--children", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", choices=SCENARIOS, help="print a cProfile of one round of this scenario")
    args = parser.parse_args()
    db_url = provision.fresh_database("cutover_bench_fanout")
    seconds: dict[str, list[float]] = {s: [] for s in SCENARIOS}
    try:
        if args.profile:
            asyncio.run(run_once(db_url, args.profile, args.triggers, args.children, True))
            return
        for r in range(args.rounds):
            order = SCENARIOS if r % 2 == 0 else tuple(reversed(SCENARIOS))
            for scenario in order:
                seconds[scenario].append(asyncio.run(run_once(db_url, scenario, args.triggers, args.children, False)))
    finally:
        provision.drop_database(db_url)
    report(args, seconds)


def report(args: argparse.Namespace, seconds: dict[str, list[float]]) -> None:
    """Print each scenario's median triggers/s and jobs/s and its ratio to ``flat``."""
    median = {s: statistics.median(v) for s, v in seconds.items()}
    per_s = {s: args.triggers / median[s] for s in SCENARIOS}
    for s in SCENARIOS:
        jobs = args.triggers * (1 if s == "flat" else 1 + args.children)
        print(f"{s:>6}: {median[s]:6.2f}s  {per_s[s]:8.1f} triggers/s  {jobs / median[s]:8.1f} jobs/s  "
              f"({per_s['flat'] / per_s[s]:.1f}x slower than flat; rounds {', '.join(f'{x:.2f}' for x in seconds[s])})")
    result = {
        "triggers": args.triggers, "children": args.children, "rounds": args.rounds,
        "seconds": {s: round(median[s], 3) for s in SCENARIOS},
        "triggers_per_s": {s: round(per_s[s], 1) for s in SCENARIOS},
        "ratio_to_flat": {s: round(per_s["flat"] / per_s[s], 2) for s in SCENARIOS},
        "load_average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        "database": "DATABASE_URL" if os.environ.get("DATABASE_URL") else "provisioned",
    }
    print("RESULT " + json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()

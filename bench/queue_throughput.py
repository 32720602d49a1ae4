"""Drain the same N no-op jobs with cutover, pgqueuer, procrastinate and a raw-SQL loop.

    python bench/queue_throughput.py               # 50,000 jobs, one worker process each
    python bench/queue_throughput.py --jobs 20000 --rounds 1
    python bench/queue_throughput.py --no-sweep --jobs 5000 --procs 2 --concurrency 50

One run, one Postgres server, each system in its own fresh database, one system at a time so
they never compete for the server. The run prints two tables:

- **equal settings**: every system at the same jobs in flight (``--concurrency``) and the
  options' batch sizes; the systems take turns for ``--rounds`` rounds (each round in a rotated
  order) and each system's rate is the median of its rounds;
- **each at its best**: then each system climbs the ladder of its throughput knob
  (``_peers.SYSTEMS[...].ladders[0]``: cutover's concurrency and so its claim batch, pgqueuer's
  batch size uncapped, procrastinate's concurrency, the raw loop's claim batch), doubling it at
  each point, until PATIENCE points in a row fail to beat its best by more than IMPROVEMENT
  (3%); then, from its best point, the ladder of its parallelism (``ladders[1]``: cutover's
  lanes, pgqueuer's managers, the raw loops; 4 then 8) by the same rule. Each point is the
  median of ``--rounds`` rounds taken in turns with the systems still climbing, and the fastest
  point, the equal settings included, is printed with its settings and marked as the peak.

For each drain: prepare the schema, enqueue N jobs (timed on its own), start ``--procs`` worker
processes, let them connect, then release them together and time from the first job run (the
first claim has returned) to the last worker returning (every outcome written). The finished
rows are counted in the database afterwards; a system that did not finish all N is reported
with its count, never with a rate. Every drain has a time limit (``--timeout``,
``--sweep-timeout`` for sweep points); a stuck one is killed and reported, and the run goes on.

The last line is ``RESULT {json}`` with each system's equal-settings jobs/s and cutover's ratios,
and under ``best`` each system's best rate, its settings and cutover's ratios at everyone's best.
See bench/README.md for the configuration of every system and why it is fair.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _peers  # noqa: E402

ORDER = ("cutover", "cutover_main", "pgqueuer", "procrastinate", "raw_sql")
PEERS = ("pgqueuer", "procrastinate")
# cutover_main is cutover's worker imported from another checkout (``--main-tree``): the code
# before a change, run as one more system of the same run, so it takes turns with the rest.
CUTOVERS = ("cutover", "cutover_main")


@dataclass
class Outcome:
    name: str
    enqueue_s: float | None = None
    drain_s: float | None = None
    done: int = 0
    jobs_s: float | None = None
    error: str | None = None


@dataclass
class Summary:
    """A system over every round: the median rate, or the first failure."""

    name: str
    rounds: list[Outcome]

    @property
    def error(self) -> str | None:
        return next((f"round {i + 1}: {o.error}" for i, o in enumerate(self.rounds) if o.error), None)

    @property
    def jobs_s(self) -> float | None:
        rates = [o.jobs_s for o in self.rounds]
        if self.error is not None or not rates or None in rates:
            return None
        return statistics.median(r for r in rates if r is not None)


def _run_loop(coro: Any, loop_kind: str) -> Any:
    if loop_kind == "uvloop":
        import uvloop

        return uvloop.run(coro)
    return asyncio.run(coro)


# -- databases -------------------------------------------------------------------------------


def _server_url() -> str:
    from queue_core import provision

    return provision.server().url


def _create_database(system: str) -> str:
    """Return the conninfo of a new, empty database (cutover's comes migrated from its template)."""
    from queue_core import provision

    if system in CUTOVERS:
        return provision.fresh_database(prefix="bench_cutover")
    name = f"bench_{system}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_server_url(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return provision.server().database_url(name)


def _drop_database(url: str) -> None:
    from queue_core import provision

    provision.drop_database(url)


# -- the child: one worker process ------------------------------------------------------------


def child_main(args: argparse.Namespace) -> None:
    """Set up a drain, say READY, wait for GO on stdin, drain, print the tally as JSON."""
    if args.child == "cutover_main":
        # Before anything imports queue_core: this process runs the other checkout's.
        sys.path.insert(0, str(Path(args.main_tree).resolve()))
        import queue_core

        print(f"cutover_main runs {Path(queue_core.__file__).parent}", file=sys.stderr, flush=True)
    system = _peers.SYSTEMS[args.child]
    settings = _peers.Settings(**json.loads(args.settings))

    async def ready() -> None:
        print("READY", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

    async def go() -> dict[str, Any]:
        tally = await system.drain(args.url, settings, ready)
        return {"first": tally.first, "end": time.time(), "ran": tally.ran}

    print(json.dumps(_run_loop(go(), args.loop)), flush=True)


def equal_settings(args: argparse.Namespace) -> _peers.Settings:
    """Return the settings every system gets in the equal-settings table (from the options)."""
    return _peers.Settings(
        concurrency=args.concurrency, batch=args.batch or args.concurrency,
        pgq_managers=args.pgq_managers, pgq_batch=args.pgq_batch, pgq_cap=args.pgq_cap,
        pgq_driver=args.pgq_driver, raw_loops=args.raw_loops, db_connections=args.db_connections,
    )


# -- the orchestrator ------------------------------------------------------------------------


def _child_argv(args: argparse.Namespace, system: str, url: str, settings: _peers.Settings) -> list[str]:
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", system, "--url", url,
            "--settings", json.dumps(asdict(settings)), "--loop", args.loop]
    return argv + ["--main-tree", args.main_tree] if args.main_tree else argv


def _kill(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # each child leads its own process group
            except ProcessLookupError:
                pass
    for p in procs:
        p.wait()


def _read_line(procs: list[subprocess.Popen[str]], deadline: float) -> dict[int, str]:
    """Read one stdout line from every process in ``procs`` before ``deadline``; raise TimeoutError."""
    sel = selectors.DefaultSelector()
    for p in procs:
        assert p.stdout is not None
        sel.register(p.stdout, selectors.EVENT_READ, p)
    lines: dict[int, str] = {}
    try:
        while len(lines) < len(procs):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            for key, _ in sel.select(timeout=left):
                p = key.data
                line = p.stdout.readline()
                if not line:
                    raise RuntimeError(f"worker process {p.pid} exited (code {p.wait()})")
                if line.startswith(("READY", "{")):
                    lines[p.pid] = line.strip()
                    sel.unregister(p.stdout)
    finally:
        sel.close()
    return lines


def drain(args: argparse.Namespace, system: str, url: str, settings: _peers.Settings) -> tuple[float, int]:
    """Run ``--procs`` worker processes on ``url``; return (seconds from first job to last return, jobs run)."""
    procs = [
        subprocess.Popen(
            _child_argv(args, system, url, settings), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, start_new_session=True,
        )
        for _ in range(args.procs)
    ]
    try:
        deadline = time.monotonic() + args.timeout
        _read_line(procs, deadline)  # every process is connected and set up
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("GO\n")
            p.stdin.flush()
        results = [json.loads(line) for line in _read_line(procs, deadline).values()]
    finally:
        _kill(procs)
    firsts = [r["first"] for r in results if r["first"] is not None]
    if not firsts:
        return 0.0, 0
    return max(r["end"] for r in results) - min(firsts), sum(r["ran"] for r in results)


def bench_one(args: argparse.Namespace, name: str, settings: _peers.Settings) -> Outcome:
    system = _peers.SYSTEMS[name]
    out = Outcome(name)
    url = _create_database(name)
    try:
        async def setup() -> float:
            await system.prepare(url)
            t0 = time.perf_counter()
            await asyncio.wait_for(system.enqueue(url, args.jobs), args.timeout)
            return time.perf_counter() - t0

        out.enqueue_s = _run_loop(setup(), args.loop)
        try:
            out.drain_s, _ran = drain(args, name, url, settings)
        except TimeoutError:
            out.error = f"timed out after {args.timeout:.0f} s"
        except Exception as exc:  # a broken peer is reported, not fatal to the run
            out.error = f"{type(exc).__name__}: {exc}"
        out.done = _run_loop(system.count_done(url), args.loop)
        if out.error is None and out.done != args.jobs:
            out.error = f"finished {out.done} of {args.jobs} jobs"
        if out.error is None and out.drain_s:
            out.jobs_s = args.jobs / out.drain_s
    except Exception as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    finally:
        if not args.keep:
            _drop_database(url)
    return out


def _line(o: Outcome, n: int) -> str:
    enq = f"enqueue {n:,} in {o.enqueue_s:6.2f} s ({n / o.enqueue_s:9,.0f}/s)" if o.enqueue_s else "enqueue  -"
    if o.jobs_s is not None:
        run = f"drain {o.done:,} in {o.drain_s:6.2f} s = {o.jobs_s:9,.0f} jobs/s"
    else:
        run = f"FAILED: {o.error} ({o.done:,} done)"
    return f"{o.name:<14} {enq}   {run}"


def _summary_line(s: Summary) -> str:
    if s.jobs_s is None:
        return f"{s.name:<14} FAILED: {s.error}"
    rates = ", ".join(f"{o.jobs_s:,.0f}" for o in s.rounds if o.jobs_s is not None)
    return f"{s.name:<14} median {s.jobs_s:9,.0f} jobs/s over {len(s.rounds)} round(s) ({rates})"


def _result(summaries: dict[str, Summary]) -> dict[str, Any]:
    rate = {name: s.jobs_s for name, s in summaries.items()}
    peers = [r for p in PEERS if (r := rate.get(p))]
    mine, raw = rate.get("cutover"), rate.get("raw_sql")
    # The ratio within each round too: how much of the spread is the machine's.
    per_round = []
    if "cutover" in summaries and "raw_sql" in summaries:
        for a, b in zip(summaries["cutover"].rounds, summaries["raw_sql"].rounds):
            per_round.append(round(a.jobs_s / b.jobs_s, 3) if a.jobs_s and b.jobs_s else None)
    main_rate = rate.get("cutover_main")
    return {
        "cutover_jobs_s": _round(mine),
        "cutover_main_jobs_s": _round(main_rate),
        "ratio_vs_cutover_main": round(mine / main_rate, 3) if mine and main_rate else None,
        "pgqueuer_jobs_s": _round(rate.get("pgqueuer")),
        "procrastinate_jobs_s": _round(rate.get("procrastinate")),
        "raw_sql_jobs_s": _round(raw),
        "ratio_vs_best_peer": round(mine / max(peers), 3) if mine and peers else None,
        "ratio_vs_raw_sql": round(mine / raw, 3) if mine and raw else None,
        "rounds": max((len(s.rounds) for s in summaries.values()), default=0),
        "ratio_vs_raw_sql_by_round": per_round,
    }


def _round(x: float | None) -> float | None:
    return round(x, 1) if x is not None else None


def equal_table(args: argparse.Namespace, systems: list[str], settings: _peers.Settings) -> dict[str, Summary]:
    """Run every system at the same settings for ``--rounds`` rounds, taking turns."""
    summaries = {name: Summary(name, []) for name in systems}
    for r in range(args.rounds):
        order = systems[r % len(systems):] + systems[:r % len(systems)]
        for name in order:
            o = bench_one(args, name, settings)
            summaries[name].rounds.append(o)
            print(f"equal, round {r + 1}  " + _line(o, args.jobs), flush=True)
    return summaries


# A sweep point is better than the best so far only when its median beats it by more than this
# share; a system's climb stops after PATIENCE points in a row that were not better.
IMPROVEMENT = 0.03
PATIENCE = 2


@dataclass
class Climb:
    """One system's way up its ladders: every point's rounds, its best, why each ladder stopped.

    A system has one ladder or two (``_peers.System.ladders``): the first doubles its throughput
    knob from the equal settings; the second, when there is one, doubles its parallelism
    (cutover's lanes, pgqueuer's managers, the raw loops) from the best point of the first.
    """

    name: str
    points: list[tuple[str, Summary]] = field(default_factory=list)
    best: tuple[float, str] | None = None
    best_settings: _peers.Settings | None = None
    misses: int = 0
    stopped: str | None = None
    ladder: int = 0  # which of the system's ladders it climbs now
    on_ladder: int = 0  # points taken on that ladder
    ladder_base: _peers.Settings | None = None  # the settings that ladder changes
    ends: list[str] = field(default_factory=list)  # why each finished ladder stopped

    def record(self, knobs: str, summary: Summary, settings: _peers.Settings) -> None:
        """Add a point; count it as a miss unless it beat the best by more than IMPROVEMENT."""
        self.points.append((knobs, summary))
        self.on_ladder += 1
        rate = summary.jobs_s
        better = rate is not None and (self.best is None or rate > self.best[0] * (1 + IMPROVEMENT))
        if rate is not None and (self.best is None or rate > self.best[0]):
            # the fastest point is the best even when only slightly faster
            self.best, self.best_settings = (rate, knobs), settings
        self.misses = 0 if better else self.misses + 1
        if self.misses >= PATIENCE:
            self.end_ladder(f"{PATIENCE} points in a row within {IMPROVEMENT:.0%} of its best or below")

    def end_ladder(self, why: str) -> None:
        """Stop the current ladder; go on with the next from the best point so far, if any."""
        self.ends.append(why)
        if self.ladder + 1 < len(_peers.SYSTEMS[self.name].ladders) and self.best_settings is not None:
            self.ladder, self.on_ladder, self.misses = self.ladder + 1, 0, 0
            self.ladder_base = self.best_settings
        else:
            self.stopped = "; then ".join(self.ends)


def climb_step(args: argparse.Namespace, climbs: dict[str, Climb], base: _peers.Settings, step: int) -> None:
    """Run every climbing system's next point for ``--rounds`` rounds, the systems taking turns."""
    points: dict[str, _peers.Settings] = {}
    for name, c in climbs.items():
        while c.stopped is None:
            ladder_base = c.ladder_base or base
            change = _peers.SYSTEMS[name].ladders[c.ladder](c.on_ladder, ladder_base)
            if change is None:
                c.end_ladder("its ladder ends here")
            elif c.on_ladder >= args.max_points:
                c.end_ladder(f"--max-points {args.max_points}")
            else:
                points[name] = replace(ladder_base, **change)
                break
    names = list(points)
    summaries = {name: Summary(name, []) for name in names}
    # A sweep point gets --sweep-timeout: a setting that slow cannot be a system's best.
    sweep_args = argparse.Namespace(**{**vars(args), "timeout": min(args.timeout, args.sweep_timeout)})
    for r in range(args.rounds):
        shift = (r + step) % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            o = bench_one(sweep_args, name, points[name])
            summaries[name].rounds.append(o)
            print(f"sweep {step + 1}, round {r + 1}  {_line(o, args.jobs)}   [{points[name].knobs(name)}]", flush=True)
    for name in names:
        climbs[name].record(points[name].knobs(name), summaries[name], points[name])


def best_table(args: argparse.Namespace, systems: list[str], base: _peers.Settings,
               equal: dict[str, Summary]) -> dict[str, Climb]:
    """Climb each system's ladders (``_peers.SYSTEMS[...].ladders``: its throughput knob, then
    its parallelism, doubled at each point) until each stops improving; each point is the
    median of ``--rounds`` rounds taken in turns with the other systems still climbing. The
    equal-settings median is a candidate for each system's best as well."""
    climbs = {name: Climb(name) for name in systems}
    step = 0
    while any(c.stopped is None for c in climbs.values()):
        climb_step(args, climbs, base, step)
        step += 1
    for name, c in climbs.items():
        rate = equal[name].jobs_s
        if rate is not None and (c.best is None or rate > c.best[0]):
            c.best = (rate, f"{base.knobs(name)} (the equal settings)")
    return climbs


def _best_result(best: dict[str, Climb]) -> dict[str, Any]:
    rate = {name: c.best[0] if c.best else None for name, c in best.items()}
    peers = [r for p in PEERS if (r := rate.get(p))]
    mine, raw, main_rate = rate.get("cutover"), rate.get("raw_sql"), rate.get("cutover_main")
    return {
        "systems": {name: {
            "jobs_s": _round(rate[name]), "settings": c.best[1] if c.best else "every setting failed",
            "stopped": c.stopped, "peak_point": next(
                (i + 1 for i, (k, _) in enumerate(c.points) if c.best and k == c.best[1]), None),
            "points": [{"settings": k, "jobs_s": _round(s.jobs_s), "error": s.error,
                        "rounds": [_round(o.jobs_s) for o in s.rounds]} for k, s in c.points],
        } for name, c in best.items()},
        "ratio_vs_best_peer": round(mine / max(peers), 3) if mine and peers else None,
        "ratio_vs_raw_sql": round(mine / raw, 3) if mine and raw else None,
        "cutover_main_ratio_vs_best_peer": round(main_rate / max(peers), 3) if main_rate and peers else None,
        "cutover_main_ratio_vs_raw_sql": round(main_rate / raw, 3) if main_rate and raw else None,
        "ratio_vs_cutover_main": round(mine / main_rate, 3) if mine and main_rate else None,
    }


def _climb_lines(c: Climb) -> list[str]:
    lines = []
    for i, (knobs, s) in enumerate(c.points):
        shown = f"median {s.jobs_s:9,.0f} jobs/s" if s.jobs_s is not None else f"FAILED: {s.error}"
        peak = "   <- peak" if c.best is not None and knobs == c.best[1] else ""
        rounds = ", ".join(f"{o.jobs_s:,.0f}" if o.jobs_s is not None else "failed" for o in s.rounds)
        lines.append(f"    point {i + 1:>2}: {shown}   [{knobs}]   rounds: {rounds}{peak}")
    if c.best is not None and not any(knobs == c.best[1] for knobs, _ in c.points):
        lines.append("    peak: the equal settings, faster than every point")
    lines.append(f"    stopped: {c.stopped}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.child:
        child_main(args)
        return
    systems = [s for s in ORDER if s in args.systems]
    if "cutover_main" in systems and not args.main_tree:
        parser.error("cutover_main needs --main-tree: a checkout whose queue_core it imports")
    base = equal_settings(args)
    print(f"queue throughput: {args.jobs:,} no-op jobs; {args.procs} worker process(es) per system; "
          f"event loop {args.loop}; timeout {args.timeout:.0f} s per drain; equal settings for "
          f"{args.rounds} round(s), then {'a sweep of each system' if args.sweep else 'no sweep'}", flush=True)
    equal = equal_table(args, systems, base)
    best = best_table(args, systems, base, equal) if args.sweep else {}
    print(f"\nequal settings ({args.concurrency} jobs in flight per process; median of {args.rounds} round(s)):")
    for name in systems:
        print(f"  {_summary_line(equal[name])}   [{base.knobs(name)}]", flush=True)
    if best:
        print(f"\neach at its best (its knob doubled until {PATIENCE} points in a row did not beat its best "
              f"by more than {IMPROVEMENT:.0%}; each point the median of {args.rounds} round(s)):")
        for name, c in best.items():
            shown = f"{c.best[0]:9,.0f} jobs/s" if c.best else "   FAILED     "
            print(f"  {name:<14} {shown}   [{c.best[1] if c.best else 'every setting failed'}]", flush=True)
            print("\n".join(_climb_lines(c)), flush=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {name: [asdict(o) for o in s.rounds] for name, s in equal.items()}, indent=2))
    result = {**_result(equal), "best": _best_result(best) if best else None}
    print("RESULT " + json.dumps(result), flush=True)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=50_000, help="jobs to enqueue and drain (default 50,000)")
    p.add_argument("--procs", type=int, default=1, help="worker processes per system (default 1)")
    p.add_argument("--concurrency", type=int, default=40, help="jobs in flight per process (default 40)")
    p.add_argument("--batch", type=int, default=0, help="claim batch size (default: the concurrency)")
    p.add_argument("--pgq-managers", type=int, default=2, help="pgqueuer QueueManagers per process, one connection each (default 2)")
    p.add_argument("--pgq-batch", type=int, default=10, help="pgqueuer dequeue batch_size (default 10)")
    p.add_argument("--pgq-cap", action=argparse.BooleanOptionalAction, default=True,
                   help="cap pgqueuer's in-flight jobs at the concurrency (max_concurrent_tasks; default on)")
    p.add_argument("--pgq-driver", choices=("asyncpg", "psycopg"), default=_default_pgq_driver(),
                   help="pgqueuer's driver (default asyncpg, pgqueuer's own default, when installed)")
    p.add_argument("--raw-loops", type=int, default=2, help="raw-SQL claim/complete loops per process (default 2)")
    p.add_argument("--db-connections", type=int, default=0,
                   help="cutover worker --db-connections (default: the worker's own default for the concurrency)")
    p.add_argument("--sweep", action=argparse.BooleanOptionalAction, default=True,
                   help="after the equal-settings table, climb each system's throughput knob until it "
                        "stops improving and print each at its best (default on)")
    p.add_argument("--max-points", type=int, default=10,
                   help="at most this many points on each ladder of a system (default 10: the raw loop's "
                        "10th claims 10,240 rows a loop, every job of a 20,000-job run in one claim each)")
    p.add_argument("--sweep-timeout", type=float, default=150.0,
                   help="seconds each sweep point may take to drain (default 150)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds each system may take (default 600)")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds, the systems taking turns in each; a rate is the median of its rounds (default 3)")
    p.add_argument("--systems", nargs="+", default=list(ORDER), choices=ORDER, help="systems to run")
    p.add_argument("--loop", choices=("asyncio", "uvloop"), default=_default_loop(), help="event loop, the same for all")
    p.add_argument("--keep", action="store_true", help="keep the databases afterwards")
    p.add_argument("--json-out", help="also write every system's figures to this file")
    p.add_argument("--main-tree", help="a checkout (with queue_core/ at its top) whose worker the "
                   "cutover_main system runs, for a before/after in one run (the same schema)")
    p.add_argument("--child", choices=ORDER, help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--settings", help=argparse.SUPPRESS)
    return p


def _default_pgq_driver() -> str:
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return "psycopg"
    return "asyncpg"


def _default_loop() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


if __name__ == "__main__":
    main()

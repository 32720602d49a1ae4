"""Benchmark the main job end to end: ``pytest --shadow`` on a generated 100,000-trigger set.

    python bench/shadow_replay.py                      # 100,000 triggers, pytest in one process
    python bench/shadow_replay.py --triggers 20000 --xdist 2
    python bench/shadow_replay.py --triggers 20000 --replayers 0 --shards 1 2   # linear in shards?
    python bench/shadow_replay.py --set /tmp/set100k   # a set generated before (same generator, seed 1)
    python bench/shadow_replay.py --set /tmp/set20k --triggers 20336 --main-tree /tmp/base --rounds 2

Generates the set with ``recordings/generate.py --triggers N`` into a temporary directory, runs
``pytest --shadow`` on it in a subprocess (reports into the same temporary directory), and prints
triggers per second over the whole subprocess (start-up, collection, replay through Postgres,
diffing, reports) and the peak resident memory of the pytest process and its replay processes
(``os.wait4``'s ``ru_maxrss``: the generator's own peak is left out), and the CPU seconds the
pytest process and its replay processes used (``cpu_s``, user + system: on a machine shared
with other work a steadier measure than the wall time; Postgres's own CPU is not in it). The
database is ``DATABASE_URL`` when set, else the provisioned one. Target on the 2-core machine
(issue 22): >= 1,500 triggers/s, < 1 GiB peak RSS. The last line is ``RESULT `` followed by one
JSON object. ``--set DIR`` replays a set generated before (``recordings/generate.py --out DIR
--triggers N --seed 1``) instead of generating one, and is never deleted; ``--triggers`` then
only names its size in the result.

``--shards 1 2`` measures how the run scales across a CI matrix: for each N it starts N
``pytest --shadow SET --shadow-shard K/N`` processes at once (each with ``--replayers`` replay
children; ``--replayers 0`` keeps a shard to one process, so N shards use N processes) and then
``cutover report merge`` on their results; the time is from the first start to the merged report
(the merge included), and each N's rate is printed with its ratio to the first N's. The rounds
alternate (N = 1, 2, 1, 2, … for ``--rounds``) and the medians are compared. Peak RSS is the
largest one process reached. The shards' ratio is a measure for a quiet machine: on one whose
cores other work shares, the second shard gets what that work leaves.

``--main-tree DIR`` measures before and after in one run: the same set replayed by this
checkout and by the code in ``DIR`` (``git worktree add DIR main``; run with ``DIR`` first on
``PYTHONPATH`` and as its working directory, this venv's interpreter and dependencies), in
turns for ``--rounds`` rounds (the first of each pair alternating), and the medians compared:
``cpu_ms_per_trigger`` (the pytest process and its replay processes, Postgres not included) is
the figure to read on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A user's Python keeps compiled bytecode between runs, pytest's rewritten plugin modules too; a
# machine that sets PYTHONDONTWRITEBYTECODE (this kind does) recompiles about 420 modules at
# every start, which is not the replay's cost. The runs measured here cache bytecode as a user's do.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _run_measured(command: list[str], tree: Path = ROOT) -> tuple[subprocess.CompletedProcess[str], int, float]:
    """Run ``command``; return its outcome, the peak RSS (KiB) of it and the children it waited for,
    and the CPU seconds (user + system) they used.

    ``os.wait4`` gives this one process's usage: ``getrusage(RUSAGE_CHILDREN)`` would also count
    the generator run before it, whose peak is not the replay's.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, cwd=tree, stdout=out, stderr=err, text=True, env=_env(tree))
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (subprocess.CompletedProcess(command, proc.returncode, out.read(), err.read()), usage.ru_maxrss,
                usage.ru_utime + usage.ru_stime)


def _env(tree: Path) -> dict[str, str]:
    """The environment of a run of the code in ``tree``: another tree's packages come first on
    ``sys.path`` (``PYTHONPATH``), so this venv's interpreter and dependencies run that code."""
    if tree == ROOT:
        return ENV
    return {**ENV, "PYTHONPATH": os.pathsep.join(filter(None, (str(tree), ENV.get("PYTHONPATH"))))}


def main() -> None:
    """Generate, replay, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triggers", type=int, default=100_000)
    parser.add_argument("--xdist", type=int, default=0, help="pytest-xdist workers (0: one process)")
    parser.add_argument("--batch", type=int, default=None, help="--shadow-batch for the run")
    parser.add_argument("--replayers", type=int, default=None, help="--shadow-replayers for every run")
    parser.add_argument("--shards", type=int, nargs="+", default=None, metavar="N",
                        help="measure N shards run at once, for each N given (see above)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --shards: rounds, alternating the Ns; with --main-tree: rounds of the pair")
    parser.add_argument("--main-tree", type=Path, default=None, metavar="DIR",
                        help="also run the code of DIR (git worktree add DIR main), in turns with this checkout's")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--set", type=Path, default=None, metavar="DIR",
                        help="replay this set, generated before with recordings/generate.py, instead of generating one")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cutover-bench-"))
    set_dir = args.set.resolve() if args.set else work / "set"
    started = time.perf_counter()
    if args.set is None:
        subprocess.run([sys.executable, str(ROOT / "recordings" / "generate.py"), "--out", str(set_dir),
                        "--triggers", str(args.triggers), "--seed", "1"], cwd=ROOT, check=True, capture_output=True)
    elif not (set_dir / "manifest.toml").is_file():
        sys.exit(f"--set {args.set}: not a recording set (no manifest.toml)")
    generated = time.perf_counter() - started
    if args.shards:
        _shards(args, work, set_dir, generated)
        return
    if args.main_tree:
        _against_main(args, work, set_dir, generated)
        return
    result = _single(args, work / "report", set_dir, ROOT)
    result["generate_seconds"] = round(generated, 2)
    print(f"{result['triggers']} triggers in {result['seconds']:.1f}s: {result['triggers_per_s']} triggers/s end to end, "
          f"peak RSS {result['peak_rss_mib']} MiB, {result['cpu_s']} CPU s (pytest exit {result['exit_status']})")
    _cleanup(args, work)
    print("RESULT " + json.dumps(result, sort_keys=True))


def _single(args: argparse.Namespace, report: Path, set_dir: Path, tree: Path) -> dict[str, object]:
    """One ``pytest --shadow`` run of the code in ``tree`` (this checkout, or ``--main-tree``'s)."""
    command = [sys.executable, "-m", "pytest", "--shadow", str(set_dir), "--shadow-report", str(report),
               "-q", "-p", "no:cacheprovider", "--no-header"]
    if args.xdist:
        command += ["-n", str(args.xdist)]
    command += _common_options(args)
    started = time.perf_counter()
    run, peak_kib, cpu = _run_measured(command, tree)
    elapsed = time.perf_counter() - started
    tail = [line for line in run.stdout.splitlines() if line.startswith(("=", "github", "lead", "payment"))][-6:]
    for line in tail:
        print(line)
    if run.returncode not in (0, 1):
        print(run.stdout[-4000:], run.stderr[-4000:], sep="\n")
    summary = json.loads((report / "summary.json").read_text()) if (report / "summary.json").exists() else {}
    return {
        "triggers": args.triggers, "compared": summary.get("totals", {}).get("compared"),
        "seconds": round(elapsed, 2), "triggers_per_s": round(args.triggers / elapsed, 1),
        "peak_rss_mib": round(peak_kib / 1024, 1), "cpu_s": round(cpu, 1),
        "cpu_ms_per_trigger": round(cpu / args.triggers * 1e3, 3), "xdist": args.xdist,
        "exit_status": run.returncode, "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(), "database": "DATABASE_URL" if os.environ.get("DATABASE_URL") else "provisioned",
        "target": {"triggers_per_s": 1500, "peak_rss_mib": 1024},
    }


def _against_main(args: argparse.Namespace, work: Path, set_dir: Path, generated: float) -> None:
    """``--main-tree``: this checkout and the other tree in turns, ``--rounds`` times; medians compared."""
    import statistics

    trees = {"branch": ROOT, "main": args.main_tree.resolve()}
    runs: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
    for round_no in range(args.rounds):
        order = list(trees) if round_no % 2 == 0 else list(reversed(trees))  # neither always goes first
        for name in order:
            result = _single(args, work / f"report-{name}-{round_no}", set_dir, trees[name])
            runs[name].append(result)
            print(f"round {round_no + 1}, {name}: {result['triggers_per_s']} triggers/s, {result['cpu_s']} CPU s "
                  f"({result['cpu_ms_per_trigger']} ms a trigger), peak RSS {result['peak_rss_mib']} MiB, "
                  f"exit {result['exit_status']}, load average {os.getloadavg()[0]:.2f}", flush=True)
    out: dict[str, object] = {"triggers": args.triggers, "rounds": args.rounds, "generate_seconds": round(generated, 2),
                              "main_tree": str(trees["main"]), "cpus": os.cpu_count()}
    for name, results in runs.items():
        out[name] = {key: statistics.median(float(r[key]) for r in results)  # type: ignore[arg-type]
                     for key in ("triggers_per_s", "cpu_s", "cpu_ms_per_trigger", "peak_rss_mib")}
        out[name]["runs"] = results  # type: ignore[index]
    branch, main = out["branch"], out["main"]
    out["cpu_ratio_vs_main"] = round(branch["cpu_s"] / main["cpu_s"], 3)  # type: ignore[index]
    out["rate_ratio_vs_main"] = round(branch["triggers_per_s"] / main["triggers_per_s"], 3)  # type: ignore[index]
    print(f"medians: branch {branch['cpu_ms_per_trigger']:.3f} ms CPU a trigger, main {main['cpu_ms_per_trigger']:.3f} "  # type: ignore[index]
          f"({out['cpu_ratio_vs_main']}x); branch {branch['triggers_per_s']:.1f} triggers/s, main "  # type: ignore[index]
          f"{main['triggers_per_s']:.1f} ({out['rate_ratio_vs_main']}x)")  # type: ignore[index]
    _cleanup(args, work)
    print("RESULT " + json.dumps(out, sort_keys=True))


def _cleanup(args: argparse.Namespace, work: Path) -> None:
    if not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")


def _common_options(args: argparse.Namespace) -> list[str]:
    options = ["--shadow-batch", str(args.batch)] if args.batch else []
    return options + (["--shadow-replayers", str(args.replayers)] if args.replayers is not None else [])


def _shard_round(args: argparse.Namespace, work: Path, set_dir: Path, n: int,
                 round_no: int) -> tuple[float, int, float]:
    """Run ``n`` shards at once and merge them; return the seconds, the largest peak RSS (KiB) and
    the CPU seconds of every shard's processes and of the merge."""
    base = work / f"round{round_no}-n{n}"
    started = time.perf_counter()
    procs = []
    for k in range(1, n + 1):
        command = [sys.executable, "-m", "pytest", "--shadow", str(set_dir), "--shadow-shard", f"{k}/{n}",
                   "--shadow-report", str(base / f"shard-{k}"), "-q", "-p", "no:cacheprovider", "--no-header",
                   *_common_options(args)]
        out = (base / f"shard-{k}.log")
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w") as log:
            procs.append(subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=ENV))
    peak, cpu = 0, 0.0
    for proc in procs:
        _, status, usage = os.wait4(proc.pid, 0)
        peak = max(peak, usage.ru_maxrss)
        cpu += usage.ru_utime + usage.ru_stime
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            sys.exit(f"a shard failed; see {base}")
    merge, _, merge_cpu = _run_measured([sys.executable, "-m", "harness", "report", "merge",
                                         *[str(base / f"shard-{k}") for k in range(1, n + 1)],
                                         "--into", str(base / "merged")])
    if merge.returncode not in (0, 1):
        sys.exit(f"merge failed: {merge.stdout[-2000:]} {merge.stderr[-2000:]}")
    return time.perf_counter() - started, peak, cpu + merge_cpu


def _shards(args: argparse.Namespace, work: Path, set_dir: Path, generated: float) -> None:
    import statistics

    rates: dict[int, list[float]] = {n: [] for n in args.shards}
    peaks: dict[int, int] = {n: 0 for n in args.shards}
    cpus: dict[int, list[float]] = {n: [] for n in args.shards}
    for round_no in range(args.rounds):
        for n in args.shards:
            seconds, peak, cpu = _shard_round(args, work, set_dir, n, round_no)
            rates[n].append(args.triggers / seconds)
            peaks[n] = max(peaks[n], peak)
            cpus[n].append(cpu)
            print(f"round {round_no + 1}: {n} shard(s) at once: {seconds:.1f}s, {args.triggers / seconds:.1f} triggers/s, "
                  f"largest process peak RSS {peak / 1024:.1f} MiB, {cpu:.1f} CPU s, load average "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
    first = statistics.median(rates[args.shards[0]])
    result = {"triggers": args.triggers, "replayers": args.replayers, "rounds": args.rounds, "cpus": os.cpu_count(),
              "generate_seconds": round(generated, 2), "shards": {}}
    for n in args.shards:
        median = statistics.median(rates[n])
        result["shards"][str(n)] = {"triggers_per_s": round(median, 1), "ratio": round(median / first, 2),
                                    "rounds": [round(r, 1) for r in rates[n]], "peak_rss_mib": round(peaks[n] / 1024, 1),
                                    "cpu_s": [round(c, 1) for c in cpus[n]]}
        print(f"{n} shard(s): median {median:.1f} triggers/s, {median / first:.2f}x {args.shards[0]} shard(s)")
    _cleanup(args, work)
    print("RESULT " + json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()

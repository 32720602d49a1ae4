"""Benchmark the main job end to end: ``pytest --shadow`` on a generated 100,000-trigger set.

    python bench/shadow_replay.py                      # 100,000 triggers, pytest in one process
    python bench/shadow_replay.py --triggers 20000 --xdist 2

Generates the set with ``recordings/generate.py --triggers N`` into a temporary directory, runs
``pytest --shadow`` on it in a subprocess (reports into the same temporary directory), and prints
triggers per second over the whole subprocess (start-up, collection, replay through Postgres,
diffing, reports) and the peak resident memory of the pytest process and its replay processes
(``os.wait4``'s ``ru_maxrss``: the generator's own peak is left out). The database is ``DATABASE_URL`` when set,
else the provisioned one. Target on the 2-core machine: >= 1,000 triggers/s, < 1 GiB peak RSS.
The last line is ``RESULT `` followed by one JSON object.
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


def _run_measured(command: list[str]) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``command``; return its outcome and the peak RSS (KiB) of it and the children it waited for.

    ``os.wait4`` gives this one process's usage: ``getrusage(RUSAGE_CHILDREN)`` would also count
    the generator run before it, whose peak is not the replay's.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, proc.returncode, out.read(), err.read()), usage.ru_maxrss


def main() -> None:
    """Generate, replay, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triggers", type=int, default=100_000)
    parser.add_argument("--xdist", type=int, default=0, help="pytest-xdist workers (0: one process)")
    parser.add_argument("--batch", type=int, default=None, help="--shadow-batch for the run")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cutover-bench-"))
    set_dir = work / "set"
    started = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "recordings" / "generate.py"), "--out", str(set_dir),
                    "--triggers", str(args.triggers), "--seed", "1"], cwd=ROOT, check=True, capture_output=True)
    generated = time.perf_counter() - started
    command = [sys.executable, "-m", "pytest", "--shadow", str(set_dir), "--shadow-report", str(work / "report"),
               "-q", "-p", "no:cacheprovider", "--no-header"]
    if args.xdist:
        command += ["-n", str(args.xdist)]
    if args.batch:
        command += ["--shadow-batch", str(args.batch)]
    started = time.perf_counter()
    run, peak_kib = _run_measured(command)
    elapsed = time.perf_counter() - started
    tail = [line for line in run.stdout.splitlines() if line.startswith(("=", "github", "lead", "payment"))][-6:]
    for line in tail:
        print(line)
    if run.returncode not in (0, 1):
        print(run.stdout[-4000:], run.stderr[-4000:], sep="\n")
    summary = json.loads((work / "report" / "summary.json").read_text()) if (work / "report" / "summary.json").exists() else {}
    result = {
        "triggers": args.triggers, "compared": summary.get("totals", {}).get("compared"),
        "seconds": round(elapsed, 2), "triggers_per_s": round(args.triggers / elapsed, 1),
        "peak_rss_mib": round(peak_kib / 1024, 1), "xdist": args.xdist, "exit_status": run.returncode,
        "generate_seconds": round(generated, 2), "cpus": os.cpu_count(),
        "database": "DATABASE_URL" if os.environ.get("DATABASE_URL") else "provisioned",
        "target": {"triggers_per_s": 1000, "peak_rss_mib": 1024},
    }
    print(f"{result['triggers']} triggers in {elapsed:.1f}s: {result['triggers_per_s']} triggers/s end to end, "
          f"peak RSS {result['peak_rss_mib']} MiB (pytest exit {run.returncode})")
    if not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")
    print("RESULT " + json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()

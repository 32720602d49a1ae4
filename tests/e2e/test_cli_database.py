"""Which database a command uses, and what it says when it cannot reach it — real subprocesses.

A subprocess timeout of 20 s stands for "within a few seconds": a command that waits out the
pool's 30 s checkout timeout fails the test instead of reporting the server's reason.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from harness.cli import cli
from queue_core import provision

CUTOVER = [sys.executable, "-m", "harness.cli"]
PASSWORD = "pw-never-printed-7f3a"
JOB = "00000000-0000-0000-0000-00000000abcd"
COMMANDS = {"jobs-show": ["jobs", "show", JOB], "worker": ["worker", "--drain"], "migrate": ["migrate"]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.cutover]\nautomations = "dbautos"\n')
    (tmp_path / "dbautos.py").write_text(textwrap.dedent('''
        from queue_core import automation

        @automation("db-line-probe", version=1)
        async def db_line_probe(ctx, trigger):
            ctx.decide("name", trigger.body.get("name"))
    '''))
    return tmp_path


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens once the socket is closed


def _run(project: Path, args: list[str], url: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DATABASE_URL=url, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.run(CUTOVER + args, cwd=project, env=env, capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("command", ["jobs-show", "worker", "migrate"])
def test_a_closed_port_is_reported_with_host_port_database_and_the_refusal(project: Path, command: str) -> None:
    port = _closed_port()
    proc = _run(project, COMMANDS[command], f"postgresql://postgres:{PASSWORD}@127.0.0.1:{port}/cutover_app")
    assert proc.returncode == 2, proc.stderr
    assert f"cannot connect to the database 127.0.0.1:{port}/cutover_app" in proc.stderr
    assert "Connection refused" in proc.stderr
    assert "Traceback" not in proc.stderr and PASSWORD not in proc.stderr + proc.stdout


@pytest.mark.parametrize("command", ["jobs-show", "worker", "migrate"])
def test_a_database_that_does_not_exist_is_named_with_the_servers_message(
        project: Path, fresh_db_url: str, command: str) -> None:
    params = conninfo_to_dict(fresh_db_url)
    missing = f"cutover_missing_{uuid.uuid4().hex[:8]}"
    url = make_conninfo(**{**params, "dbname": missing, "password": PASSWORD})  # type: ignore[arg-type]
    proc = _run(project, COMMANDS[command], url)
    assert proc.returncode == 2, proc.stderr
    where = f"{params.get('host') or 'localhost'}:{params.get('port') or '5432'}/{missing}"
    assert f"cannot connect to the database {where}" in proc.stderr
    assert f'database "{missing}" does not exist' in proc.stderr
    assert "Traceback" not in proc.stderr and PASSWORD not in proc.stderr + proc.stdout


def test_a_missing_job_names_the_database_it_was_looked_for_in(project: Path, fresh_db_url: str) -> None:
    params = conninfo_to_dict(fresh_db_url)
    proc = _run(project, ["jobs", "show", JOB], fresh_db_url)
    assert proc.returncode == 1, proc.stderr
    where = f"{params.get('host') or 'localhost'}:{params.get('port') or '5432'}/{params['dbname']}"
    assert f"no job with id {JOB} in database {where}" in proc.stderr


@pytest.fixture
def provisioned(fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """DATABASE_URL unset; the provisioned ("embedded") server's cutover database is a fresh one."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    embedded = provision.Server(fresh_db_url, "embedded")
    monkeypatch.setattr(provision, "server", lambda: embedded)
    monkeypatch.setattr(provision, "ensure_database", lambda srv, name: fresh_db_url)
    params = conninfo_to_dict(fresh_db_url)
    return f"{params.get('host') or 'localhost'}:{params.get('port') or '5432'}/{params['dbname']}"


def test_without_database_url_jobs_show_says_it_uses_the_embedded_server_and_where_it_looked(
        provisioned: str, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["jobs", "show", JOB])
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert f"cutover: DATABASE_URL is not set; using the embedded server's database {provisioned}" in lines
    assert f"Error: no job with id {JOB} in database {provisioned}" in lines


def test_without_database_url_the_worker_says_which_database_it_uses(
        provisioned: str, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    result = CliRunner().invoke(cli, ["worker", "--drain", "--allow-ungated", "db-line-probe"])
    assert result.exit_code == 0, result.output
    line = f"cutover: DATABASE_URL is not set; using the embedded server's database {provisioned}"
    assert result.stderr.splitlines().count(line) == 1

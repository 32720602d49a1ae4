"""`cutover schedules list` and the worker's schedule validation, as a user runs them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest

CUTOVER = [sys.executable, "-m", "harness.cli"]
AUTOS = textwrap.dedent('''
    from queue_core import automation

    @automation("nightly-sync", schedule="*/15 * * * *", timezone="Europe/Berlin")
    async def nightly(ctx, trigger):
        return None

    @automation("report")
    async def report(ctx, trigger):
        return None
''')


def _project(tmp_path: Path, db_url: str, schedules: str) -> tuple[Path, dict[str, str]]:
    (tmp_path / "pyproject.toml").write_text('[tool.cutover]\nautomations = "myautos"\n' + schedules)
    (tmp_path / "myautos.py").write_text(AUTOS)
    env = dict(os.environ, DATABASE_URL=db_url, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return tmp_path, env


def _run(args: list[str], project: tuple[Path, dict[str, str]]) -> subprocess.CompletedProcess[str]:
    cwd, env = project
    return subprocess.run(CUTOVER + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _synced(db_url: str, n: int, timeout_s: float = 60) -> int:
    """Wait for a worker to have synced ``n`` schedules; return how many there are."""
    deadline, count = time.monotonic() + timeout_s, 0
    while time.monotonic() < deadline:
        with psycopg.connect(db_url) as conn:
            count = conn.execute("SELECT count(*) FROM schedules").fetchone()[0]
        if count >= n:
            break
        time.sleep(0.1)
    return count


def test_schedules_list_shows_both_declarations_with_their_ticks_and_pause(tmp_path, fresh_db_url):
    project = _project(tmp_path, fresh_db_url, textwrap.dedent('''
        [tool.cutover.schedules.weekly-report]
        automation = "report"
        cron = "@weekly"
        paused = true
    '''))
    assert "no schedules" in _run(["schedules", "list"], project).stdout
    cwd, env = project
    worker = subprocess.Popen(CUTOVER + ["worker", "--concurrency", "1"], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _synced(fresh_db_url, 2) == 2
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=60)
    out = _run(["schedules", "list"], project)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["name", "automation", "cron", "timezone", "catch_up", "last", "tick", "next", "tick",
                                "paused"]
    nightly = next(line for line in lines if line.startswith("nightly-sync"))
    assert "*/15 * * * *" in nightly and "Europe/Berlin" in nightly and nightly.rstrip().endswith("no")
    weekly = next(line for line in lines if line.startswith("weekly-report"))
    assert "0 0 * * 0" in weekly and weekly.rstrip().endswith("declared")


@pytest.mark.parametrize(("table", "expected"), [
    ('cron = "every day"', "field 'tool.cutover.schedules.bad.cron'"),
    ('cron = "@daily"\ntimezone = "Europe/Berlinn"', "field 'tool.cutover.schedules.bad.timezone'"),
])
def test_a_worker_refuses_to_start_on_a_bad_schedule_naming_file_and_key(tmp_path, fresh_db_url, table, expected):
    project = _project(tmp_path, fresh_db_url, f'\n[tool.cutover.schedules.bad]\nautomation = "report"\n{table}\n')
    proc = _run(["worker", "--drain"], project)
    assert proc.returncode != 0
    assert "pyproject.toml" in proc.stderr and expected in proc.stderr, proc.stderr

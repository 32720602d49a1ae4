"""`cutover pollers list`, as a user runs it: each poller's cursor, last poll and items started."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from queue_core import db
from tests.support.fanout import poll_times

ROOT = Path(__file__).resolve().parents[2]
CUTOVER = [sys.executable, "-m", "harness.cli"]


def _run(args: list[str], tmp_path: Path, db_url: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pyproject.toml").write_text("[tool.cutover]\n")
    env = dict(os.environ, DATABASE_URL=db_url, PYTHONPATH=str(ROOT))
    return subprocess.run(CUTOVER + args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_pollers_list_says_there_are_none_before_a_first_poll(tmp_path, fresh_db_url):
    result = _run(["pollers", "list"], tmp_path, fresh_db_url)
    assert result.returncode == 0, result.stderr
    assert "no pollers" in result.stdout


def test_pollers_list_shows_the_cursor_last_poll_and_items_started_after_two_polls(tmp_path, fresh_db_url):
    async def polls() -> None:
        async with db.pool(fresh_db_url, max_size=8) as pool:
            await poll_times(pool, 2)

    asyncio.run(polls())
    result = _run(["pollers", "list"], tmp_path, fresh_db_url)
    assert result.returncode == 0, result.stderr
    header, row = result.stdout.splitlines()
    assert header.split("  ")[0] == "poller" and "items started" in header and "last poll" in header
    cells = row.split()
    assert cells[:3] == ["poll-items", "handle-item", '{"page":2}']
    assert cells[3].startswith("20"), "the last poll's time, as ISO 8601"
    assert cells[4:] == ["2", "8", "8"], "2 polls, 8 items started (0..7), 8 seen ids kept"

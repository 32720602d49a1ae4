"""A polled n8n execution imported as one poll trigger per item, then replayed with ``pytest --shadow``:
the migrated handler runs once per polled item, and each item's trace is what it is compared with.

``cutover import`` and ``pytest --shadow`` run as subprocesses in a project directory, on the fixture
``tests/fixtures/exports/n8n/executions_poll.json`` (a Google Sheets Trigger poll that found three rows).
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from tests.e2e.test_import_fanout_replay import ROOT, _run
from tests.support.project import pyproject

EXPORT = ROOT / "tests" / "fixtures" / "exports" / "n8n" / "executions_poll.json"

HANDLER = '''
from queue_core import automation


@automation("new-row", version=1)
async def new_row(ctx, trigger):
    vip = trigger.body["vip"] == {vip!r}
    ctx.decide("vip", "true" if vip else "false")
    if vip:
        await ctx.call("mail", "POST", "/welcome", step="welcome")
'''

PYPROJECT = pyproject("rows_app", "[tool.cutover.gate]\nmin_triggers = 1")

MANIFEST = '''
format = 1
name = "rows"

[automations.new-row]
platform = "n8n"

[automations.new-row.items]
key = "json:row_number"

[automations.new-row.steps]
"Is VIP?" = ""
"Welcome" = "welcome"

[automations.new-row.decisions."Is VIP?"]
name = "vip"

[automations.new-row.providers]
"api.example.com" = "mail"
'''


def _project(tmp_path: Path, vip: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (tmp_path / "rows_app.py").write_text(HANDLER.format(vip=vip))
    set_dir = tmp_path / "recordings" / "rows"
    set_dir.mkdir(parents=True)
    (set_dir / "manifest.toml").write_text(textwrap.dedent(MANIFEST))
    imported = _run(tmp_path, [sys.executable, "-m", "harness.cli", "import", "n8n", str(EXPORT),
                               "--automation", "new-row", "--into", str(set_dir)], "")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "poll-triggered: 3 items from 1 poll" in imported.stdout
    return tmp_path


def _shadow(project: Path, db_url: str) -> tuple[int, str, dict[str, object]]:
    done = _run(project, [sys.executable, "-m", "pytest", "--shadow", "recordings/rows", "-p", "no:cacheprovider"], db_url)
    summary = json.loads((project / "reports" / "rows" / "summary.json").read_text())
    (handler,) = [a for a in summary["automations"] if a["name"] == "new-row"]
    return done.returncode, done.stdout, handler


def test_each_polled_item_replays_the_handler_once_and_agrees(tmp_path: Path, fresh_db_url: str) -> None:
    project = _project(tmp_path, vip="yes")
    triggers = [json.loads(line) for line in (project / "recordings/rows/new-row/triggers.jsonl").read_text().splitlines()]
    assert [(t["id"], t["poll"]["item"]) for t in triggers] == [("n8n-9100-2", "2"), ("n8n-9100-3", "3"), ("n8n-9100-4", "4")]
    code, out, handler = _shadow(project, fresh_db_url)
    assert code == 0, out[-4000:]
    assert "new-row" in out and "3 compared" in out
    assert handler["compared"] == 3


def test_a_handler_that_decides_otherwise_fails_each_polled_item_it_differs_on(tmp_path: Path, fresh_db_url: str) -> None:
    project = _project(tmp_path, vip="no")  # the handler now takes the wrong rows for VIPs: all three differ
    code, out, handler = _shadow(project, fresh_db_url)
    assert code == 1, out[-4000:]
    failed = sorted(line.split()[1] for line in out.splitlines() if line.startswith("FAILED "))
    assert failed == ["recordings/rows/new-row::n8n-9100-2", "recordings/rows/new-row::n8n-9100-3",
                      "recordings/rows/new-row::n8n-9100-4"]

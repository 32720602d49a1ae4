"""A mutant whose run never ends is stopped at a deadline and counted killed by timeout (issue 23).

The automation sums 0..n-1 with a ``while i != n`` loop; every recorded n is odd, so the mutant
``i += 1`` → ``i += 2`` steps past n and loops for ever without awaiting. The measurement must
end, count it killed by timeout, and say so in mutation.json, the command's output and the page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.manifest import AutomationEntry, Coercion, Manifest, write_manifest
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus, write_traces, write_triggers

AUTOMATIONS = '''\
from queue_core import automation


@automation("summer", version=1)
async def summer(ctx, trigger):
    n = trigger.body["n"]
    i = total = 0
    while i != n:
        total += i
        i += 1
    ctx.decide("total", total)
'''
PYPROJECT = '''
[tool.cutover]
automations = "timeout_demo"
'''
START = datetime(2024, 6, 1, tzinfo=UTC)


@pytest.fixture
def timeout_project(tmp_path: Path, fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (tmp_path / "timeout_demo.py").write_text(AUTOMATIONS)
    triggers, traces = [], []
    for i, n in enumerate([1, 3, 5, 7]):
        triggers.append(RecordedTrigger(f"n-{i}", START + timedelta(minutes=i), {}, {"n": n}, "recorder"))
        traces.append(LegacyTrace(f"n-{i}", TraceStatus.SUCCEEDED, Platform.MAKE, decisions={"total": n * (n - 1) // 2}))
    set_dir = tmp_path / "recordings" / "demo"
    write_triggers(set_dir / "summer" / "triggers.jsonl", triggers)
    write_traces(set_dir / "summer" / "legacy.jsonl", traces)
    write_manifest(set_dir / "manifest.toml", Manifest(name="demo", automations={
        "summer": AutomationEntry("summer", Platform.MAKE, Coercion.MAKE)}))
    return tmp_path


def test_a_mutant_that_never_ends_is_killed_by_timeout_and_reported_as_such(timeout_project: Path) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "harness", "shadow", "mutate", "recordings/demo", "--automation",
                           "summer", "--mutant-timeout", "1.5"], cwd=timeout_project, capture_output=True, text=True,
                          env=dict(os.environ), timeout=240, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    data = json.loads((timeout_project / "reports/demo/mutation/summer/mutation.json").read_text())
    [endless] = [r for r in data["results"] if (r["line"], r["before"], r["after"]) == (10, "1", "2")]
    assert endless["status"] == "killed" and endless["timeout"] is True
    assert endless["reason"].startswith("killed by timeout: its run did not end within")
    assert endless["killed_by"] in {"n-0", "n-1", "n-2", "n-3"}
    assert data["killed_by_timeout"] == sum(r["timeout"] for r in data["results"]) >= 1
    assert not any(r["timeout"] for r in data["results"] if r is not endless and r["status"] == "survived")
    assert "of them by timeout (an endless loop)" in done.stdout
    assert "line 10 constant: 1 → 2: killed by n-" in done.stdout and "(timeout)" in done.stdout
    page = (timeout_project / "reports/demo/mutation/summer/mutation.html").read_text()
    assert "killed by timeout</h3>" in page
    assert time.monotonic() - started < 200  # the endless mutant did not hold the run

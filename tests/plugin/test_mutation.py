"""``cutover shadow mutate`` on a small project of its own, against real Postgres: a mutant the
recordings kill, one they cannot tell apart (a boundary no trigger sits on), one no trigger
reaches, and the gate's ``min_mutation_score`` reading the measurement."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from harness.manifest import AutomationEntry, Coercion, Manifest, write_manifest
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus, write_traces, write_triggers

AUTOMATIONS = '''\
from queue_core import automation


@automation("sizer", version=1)
async def sizer(ctx, trigger):
    size = trigger.body["size"]
    ctx.decide("big", "yes" if size > 100 else "no")
    if trigger.body.get("vip"):
        ctx.decide("vip", "yes")
'''

PYPROJECT = '''
[tool.cutover]
automations = "mutation_demo"

[tool.cutover.gate]
min_triggers = 1
agreement = 0.99
min_mutation_score = 0.9
'''
START = datetime(2024, 6, 1, tzinfo=UTC)


def _case(i: int, size: int) -> tuple[RecordedTrigger, LegacyTrace]:
    trigger = RecordedTrigger(f"s-{i}", START + timedelta(minutes=i), {}, {"size": size}, "recorder")
    big = "yes" if size > 100 else "no"
    return trigger, LegacyTrace(f"s-{i}", TraceStatus.SUCCEEDED, Platform.MAKE, path=[], decisions={"big": big})


@pytest.fixture
def mutation_project(tmp_path: Path, fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (tmp_path / "mutation_demo.py").write_text(AUTOMATIONS)
    cases = [_case(i, size) for i, size in enumerate([5, 50, 500, 5000])]
    set_dir = tmp_path / "recordings" / "demo"
    write_triggers(set_dir / "sizer" / "triggers.jsonl", [t for t, _ in cases])
    write_traces(set_dir / "sizer" / "legacy.jsonl", [c for _, c in cases])
    write_manifest(set_dir / "manifest.toml", Manifest(name="demo", automations={
        "sizer": AutomationEntry("sizer", Platform.MAKE, Coercion.MAKE)}))
    return tmp_path


def _mutate(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", "shadow", "mutate", "recordings/demo", "--automation", "sizer"],
                          cwd=root, capture_output=True, text=True, env=dict(os.environ), timeout=300, check=False)


def _result(data: dict[str, Any], line: int, before: str, after: str) -> dict[str, Any]:
    [found] = [r for r in data["results"] if (r["line"], r["before"], r["after"]) == (line, before, after)]
    return found


def test_the_recordings_kill_what_they_pin_down_and_name_what_they_do_not(mutation_project: Path) -> None:
    source = (mutation_project / "mutation_demo.py").read_text()
    done = _mutate(mutation_project)
    assert done.returncode == 0, done.stderr + done.stdout
    assert (mutation_project / "mutation_demo.py").read_text() == source  # the user's file is never written
    data = json.loads((mutation_project / "reports/demo/mutation/sizer/mutation.json").read_text())
    assert (data["triggers"], data["agreeing"]) == (4, 4)
    flipped = _result(data, 7, "size > 100", "size >= 100")  # no recorded size is 100: the boundary is not pinned
    assert flipped["status"] == "survived" and flipped["replayed"] == 4
    negated = _result(data, 7, "size > 100", "not size > 100")
    assert negated["status"] == "killed" and negated["killed_by"] in {"s-0", "s-1", "s-2", "s-3"}
    assert _result(data, 7, "'yes'", "'XXyesXX'")["status"] == "killed"
    unreached = _result(data, 9, "ctx.decide('vip', 'yes')", "pass")  # no recorded trigger is a vip
    assert unreached["status"] == "survived" and unreached["reached"] == 0
    assert unreached["reason"] == "no agreeing recorded trigger reaches this line"
    assert data["killed"] + data["survived"] == data["mutants"] == len(data["results"])
    assert data["score"] == round(data["killed"] / data["mutants"], 4)
    assert "not pinned down by the recordings: line 7 (compare): size > 100 → size >= 100" in done.stdout
    assert "not pinned down by the recordings: line 9 (removed-call): ctx.decide('vip', 'yes') → pass" in done.stdout
    assert (mutation_project / "reports/demo/mutation/sizer/mutation.html").is_file()


def test_the_gate_reads_the_measurement_of_the_same_code_version_only(mutation_project: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.shadow import RunSettings, run

    assert _mutate(mutation_project).returncode == 0
    monkeypatch.chdir(mutation_project)
    summary = run(RunSettings("recordings/demo", report_dir=mutation_project / "out", replayers=0))
    [auto] = summary.data["automations"]
    data = json.loads((mutation_project / "reports/demo/mutation/sizer/mutation.json").read_text())
    floor_reason = [r for r in auto["verdict"]["reasons"] if r.startswith("mutation score")]
    assert floor_reason == [f"mutation score {100 * data['score']:.2f}% is below the floor 90.00% ({data['killed']} of "
                            f"{data['mutants']} mutants killed by set demo; {data['survived']} mutant(s) not pinned "
                            "down by the recordings)"]
    assert summary.not_ready == ["sizer"]
    module = mutation_project / "mutation_demo.py"  # edited code is another code version: no measurement yet
    module.write_text(module.read_text() + "# edited\n")
    again = run(RunSettings("recordings/demo", report_dir=mutation_project / "out2", replayers=0))
    [auto] = again.data["automations"]
    version = auto["verdict"]["code_version"]
    assert version != data["code_version"]
    assert f"no mutation measurement of code version {version} (the gate requires a mutation score of at least " \
           "90.00%; run cutover shadow mutate SET --automation sizer)" in auto["verdict"]["failed"]

"""The shadow report shows the set's mutation measurements: scores, survivors by line, timeouts, staleness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.manifest import Manifest
from harness.mutate import store
from harness.shadow.gate import GateConfig, GateRules
from harness.shadow.report import RunInfo, build_summary, write_reports


def _summary(code_version: str) -> dict[str, Any]:
    row = {"automation": "router", "trigger_id": "t1", "seq": 1, "verdict": "agreed", "legacy_status": "succeeded",
           "new_status": "succeeded", "legacy_branches": [], "new_branches": [], "error": None, "exception": None,
           "noisy": []}
    info = RunInfo("recordings/demo", "shadow", 0, False, None, {"router": code_version}, {"router": "make"}, {})
    return build_summary(info, Manifest(name="demo"), {}, [row], [], [], set(), GateConfig(GateRules(min_triggers=1)))


def _measurement(code_version: str) -> dict[str, Any]:
    results = [
        {"number": 1, "kind": "compare", "line": 7, "before": "size > 100", "after": "size >= 100", "status": "survived",
         "reason": "all 4 agreeing trigger(s) reaching line 7 still agree", "timeout": False},
        {"number": 2, "kind": "constant", "line": 9, "before": "1", "after": "2", "status": "killed", "killed_by": "t1",
         "reason": "killed by timeout: its run did not end within 10 s (an endless loop)", "timeout": True},
    ]
    return {"automation": "router", "code_version": code_version, "module": "router.py", "set": "demo",
            "measured_at": "2026-12-02T09:00:00+00:00", "seconds": 3.0, "triggers": 4, "agreeing": 4,
            "mutants": 2, "killed": 1, "killed_by_timeout": 1, "survived": 1, "score": 0.5, "results": results}


def _report(tmp_path: Path, measured: str, current: str) -> str:
    out = tmp_path / "reports" / "demo"
    store.write(_measurement(measured), store.measurement_dir(tmp_path, "demo", "router"))
    write_reports(out, _summary(current), [], {})
    return (out / "index.html").read_text()


def test_the_report_shows_the_sets_mutation_measurement_with_its_survivors_and_timeouts(tmp_path: Path) -> None:
    page = _report(tmp_path, "c0de", "c0de")
    assert '<section id="mutation"><h2>Mutation analysis</h2>' in page
    assert "router: 1 mutant(s) not pinned down by the recordings (router.py)" in page
    assert "<td>7</td><td>compare</td><td><code>size &gt; 100</code></td><td><code>size &gt;= 100</code></td>" in page
    assert "router: 1 mutant(s) killed by timeout</h3>" in page
    assert "on the code this run replayed" in page and 'href="mutation/router/mutation.html"' in page
    summary = json.loads((tmp_path / "reports" / "demo" / "summary.json").read_text())
    assert "mutation" not in json.dumps(summary)  # summary.json stays free of measurement data


def test_a_measurement_of_other_code_is_shown_as_such(tmp_path: Path) -> None:
    page = _report(tmp_path, "0ld0", "c0de")
    assert "code version <code>0ld0</code>, not the code this run replayed (<code>c0de</code>)" in page


def test_a_report_without_a_measurement_has_no_mutation_section(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "demo"
    write_reports(out, _summary("c0de"), [], {})
    assert 'id="mutation"' not in (out / "index.html").read_text()

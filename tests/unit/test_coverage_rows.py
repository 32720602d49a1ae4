"""The report rows of a definition's branches: counted from the compared traces, never guessed."""

from __future__ import annotations

import json
from pathlib import Path

from harness.coverage import DefinitionCoverage, definition_rows
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Evidence, LegacyTrace, Platform, TraceStatus

WORKFLOW = {"name": "flow", "nodes": [
    {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {}},
    {"name": "Keep", "type": "n8n-nodes-base.filter", "typeVersion": 2.2, "parameters": {}},
    {"name": "After", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}},
], "connections": {"Hook": {"main": [[{"node": "Keep", "type": "main", "index": 0}]]},
                   "Keep": {"main": [[{"node": "After", "type": "main", "index": 0}]]}}}


def _trace(path: list[str], evidence: tuple[Evidence, ...] = (Evidence.STATUS, Evidence.PATH)) -> LegacyTrace:
    return LegacyTrace("t", TraceStatus.SUCCEEDED, Platform.N8N, path=path, evidence=evidence)


def _rows(tmp_path: Path, traces: list[LegacyTrace], platform: Platform = Platform.N8N) -> DefinitionCoverage:
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(WORKFLOW))
    return definition_rows(path, AutomationEntry("flow", platform, Coercion.N8N), traces)


def test_path_read_branches_are_counted_from_the_compared_traces(tmp_path: Path) -> None:
    read = _rows(tmp_path, [_trace(["Keep", "After"]), _trace(["Keep"]), _trace(["Keep", "After"])])
    assert [(r["branch"], r["read"], r["taken"]) for r in read.rows] == [
        ("Keep → kept", "ran", 2), ("Keep → discarded", "stopped", 1)]
    assert read.untaken == () and read.unreadable == () and read.problem is None


def test_an_export_without_paths_cannot_show_a_path_read_branch(tmp_path: Path) -> None:
    read = _rows(tmp_path, [_trace([], (Evidence.STATUS,))])
    assert [r["taken"] for r in read.rows] == [None, None]
    assert len(read.unreadable) == 2 and "do not hold the path" in read.unreadable[0]


def test_another_tools_definition_is_a_named_problem_not_an_n8n_reading(tmp_path: Path) -> None:
    read = _rows(tmp_path, [], Platform.POWER_AUTOMATE)  # an n8n workflow named as a Power Automate flow's definition
    assert read.rows == [] and "not a Power Automate flow definition" in str(read.problem)


def test_rows_counted_from_each_traces_taken_branches_equal_rows_counted_from_the_traces(tmp_path: Path) -> None:
    # A shadow run keeps, per compared trigger, the positions of the branches its legacy trace
    # took (harness.coverage.took) and its evidence, so the report need not read the traces again.
    from harness.coverage import definition_branches, took

    path = tmp_path / "flow.json"
    path.write_text(json.dumps(WORKFLOW))
    entry = AutomationEntry("flow", Platform.N8N, Coercion.N8N)
    found = definition_branches(path, entry)
    for traces in ([_trace(["Keep", "After"]), _trace(["Keep"]), _trace(["Keep", "After"])],
                   [_trace(["Keep"]), _trace([], (Evidence.STATUS,))], []):
        taken = [(took(found, t, entry.coercion), [str(e) for e in t.evidence]) for t in traces]
        assert definition_rows(path, entry, taken=taken) == definition_rows(path, entry, traces)

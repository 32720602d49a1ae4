"""Zapier branch coverage: a Zap's paths and filters, named as ``cutover import zapier`` records them.

The Zapfile is written here (``gdpr_v1``: ``zaps[].nodes`` keyed by id, ``parent_id`` chains,
paths as a ``BranchingAPI`` branch node whose children are ``BranchingAPI`` filter nodes); the
round trip imports a zap-runs API run with the importer's own parser and counts it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.coverage import coverage, definition_rows
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.platforms.adapter import BranchesUnreadable
from harness.platforms.zapier.branches import covers_branches, definition_branches
from harness.platforms.zapier.definition import read_zaps
from harness.platforms.zapier.history import parse_run
from harness.recording import Platform


def _node(ident: int, parent: int | None, type_of: str, api: str, action: str, title: str | None) -> dict[str, Any]:
    return {"id": ident, "parent_id": parent, "type_of": type_of, "selected_api": api, "action": action, "title": title}


ZAP = {"id": 41, "title": "Triage", "nodes": {str(n["id"]): n for n in [
    _node(1, None, "read", "WebHookCLIAPI@1.0.36", "hook_v2", "New ticket"),
    _node(2, 1, "filter", "FilterAPI", "filter", "Only open"),
    _node(3, 2, "write", "BranchingAPI", "branch", "Split by team"),
    _node(4, 3, "filter", "BranchingAPI", "filter", "Billing"),
    _node(5, 3, "filter", "BranchingAPI", "filter", None),  # unnamed: the editor's "Path B"
    _node(6, 4, "write", "SlackAPI", "send_message", "Tell billing"),
    _node(7, 5, "write", "SlackAPI", "send_message", "Tell support"),
]}}
ZAPFILE = {"metadata": {"version": "gdpr_v1"}, "zaps": [ZAP]}


def _entry(**kwargs: Any) -> AutomationEntry:
    return AutomationEntry("triage", Platform.ZAPIER, Coercion.ZAPIER, **kwargs)


def _file(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "Zapfile.json"
    path.write_text(json.dumps(document))
    return path


def _run(states: list[str], entry: AutomationEntry) -> Any:
    """A zap-runs API run: one status per step of the Zap, in editor order (depth first: 1, 2, 3, 4, 6, 5, 7)."""
    run = {"id": "r1", "zap_id": 41, "status": "success", "start_time": "2024-06-01T10:00:00+00:00",
           "steps": [{"status": s} for s in states]}
    trace = parse_run(run, entry, "runs.json", "#1", read_zaps(ZAPFILE)).trace
    assert trace is not None
    return trace


def test_paths_and_filters_are_listed_with_the_importers_names(tmp_path: Path) -> None:
    found = definition_branches(_file(tmp_path, ZAPFILE), _entry())
    assert [(b.node, b.kind, b.output, b.decision, b.value) for b in found] == [
        ("Only open", "filter", "passed", "Only open", "passed"),
        ("Only open", "filter", "stopped", "Only open", "stopped"),
        ("Split by team", "path", "Billing", "Split by team", "Billing"),
        ("Split by team", "path", "Path B", "Split by team", "Path B"),
    ]


def test_the_imported_runs_take_the_branches_their_step_statuses_show(tmp_path: Path) -> None:
    entry = _entry()
    found = definition_branches(_file(tmp_path, ZAPFILE), entry)
    billing = _run(["success", "success", "success", "success", "success", "filtered", "skipped"], entry)
    stopped = _run(["success", "filtered", "skipped", "skipped", "skipped", "skipped", "skipped"], entry)
    counts = {(c.branch.node, c.branch.output): c.taken for c in coverage(found, [billing, stopped], Coercion.ZAPIER)}
    assert counts == {("Only open", "passed"): 1, ("Only open", "stopped"): 1,
                      ("Split by team", "Billing"): 1, ("Split by team", "Path B"): 0}


def test_a_decision_map_renames_the_path_decision(tmp_path: Path) -> None:
    entry = _entry(decisions={"Split by team": DecisionMap("team", {"Billing": "billing"})})
    found = definition_branches(_file(tmp_path, ZAPFILE), entry)
    assert ("team", "billing") in [(b.decision, b.value) for b in found]
    trace = _run(["success", "success", "success", "success", "success", "filtered", "skipped"], entry)
    assert [c.taken for c in coverage(found, [trace], Coercion.ZAPIER) if c.branch.output == "Billing"] == [1]


def test_a_partner_api_page_or_an_ambiguous_zapfile_cannot_be_read(tmp_path: Path) -> None:
    page = _file(tmp_path, {"data": [{"type": "zap", "id": 41, "steps": [{"title": "x"}]}]})
    assert not covers_branches(page)
    with pytest.raises(BranchesUnreadable, match="linear|chain"):
        definition_branches(page, _entry())
    two = _file(tmp_path, {"metadata": {"version": "gdpr_v1"}, "zaps": [ZAP, {**ZAP, "id": 42}]})
    with pytest.raises(BranchesUnreadable, match="2 Zaps"):
        definition_branches(two, _entry())
    assert [b.output for b in definition_branches(two, _entry(legacy_workflows=("42",)))][:1] == ["passed"]


def test_the_report_rows_carry_the_reason_a_definition_cannot_be_read(tmp_path: Path) -> None:
    read = definition_rows(tmp_path / "missing.json", _entry(), [])
    assert read.rows == [] and read.problem is not None and "does not exist" in read.problem

"""Branch coverage from the definition: the report lists every branch, and the gate can require them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.manifest import AutomationEntry, Coercion, DecisionMap, load_manifest, write_manifest
from harness.recording import Platform

WORKFLOW = {
    "name": "Notifier", "nodes": [
        {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {"path": "alerts"}},
        {"name": "Urgent?", "type": "n8n-nodes-base.if", "typeVersion": 2, "parameters": {"conditions": {
            "options": {"caseSensitive": True, "typeValidation": "strict"}, "combinator": "and",
            "conditions": [{"leftValue": "={{ $json.body.level }}", "rightValue": "high",
                            "operator": {"type": "string", "operation": "equals"}}]}}},
        {"name": "Channel", "type": "n8n-nodes-base.switch", "typeVersion": 3, "parameters": {"rules": {"values": [
            {"conditions": {"options": {}, "combinator": "and", "conditions": [
                {"leftValue": "={{ $json.body.text }}", "rightValue": "sms", "operator": {"type": "string", "operation": "contains"}}]},
             "renameOutput": True, "outputKey": "sms"}]}, "options": {"fallbackOutput": "extra", "renameFallbackOutput": "chat"}}},
        {"name": "Post", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://chat.test/messages"}},
    ],
    "connections": {"Hook": {"main": [[{"node": "Urgent?", "type": "main", "index": 0}]]},
                    "Urgent?": {"main": [[{"node": "Channel", "type": "main", "index": 0}], []]},
                    "Channel": {"main": [[], [{"node": "Post", "type": "main", "index": 0}]]}},
}


def _name_the_definition(project: pytest.Pytester) -> None:
    set_dir = project.path / "recordings" / "demo"
    (set_dir / "definitions").mkdir()
    (set_dir / "definitions" / "notifier.json").write_text(json.dumps(WORKFLOW))
    manifest = load_manifest(set_dir / "manifest.toml")
    automations = dict(manifest.automations)
    automations["notifier"] = AutomationEntry("notifier", Platform.N8N, Coercion.N8N, definition="definitions/notifier.json",
                                              decisions={"Urgent?": DecisionMap("urgent"), "Channel": DecisionMap("channel")})
    from dataclasses import replace

    write_manifest(set_dir / "manifest.toml", replace(manifest, automations=automations))


def test_the_report_lists_every_branch_of_the_definition_and_the_untaken_ones(project: pytest.Pytester) -> None:
    _name_the_definition(project)
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    # the extra fallback is recorded by its name ("chat"), as `cutover import n8n` and the scaffold name it
    result.stdout.fnmatch_lines(["*! untested: 2 branch(es) of the definition no recorded trigger took: "
                                 "channel=sms, channel=chat"])
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    notifier = next(a for a in summary["automations"] if a["name"] == "notifier")
    taken = {(r["node"], r["output"]): r["taken"] for r in notifier["definition_branches"]}
    assert taken == {("Urgent?", "true"): 2, ("Urgent?", "false"): 2, ("Channel", "sms"): 0, ("Channel", "chat"): 0}
    assert notifier["verdict"]["ready"]  # the default rule is about legacy branches only
    html = (project.path / "reports" / "demo" / "index.html").read_text()
    assert "2 branch(es) of the definition no recorded trigger took" in html


def test_branch_coverage_definition_makes_an_untaken_branch_a_not_ready_reason(project: pytest.Pytester) -> None:
    _name_the_definition(project)
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().rstrip() + '\nbranch_coverage = "definition"\n')
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    result.stdout.fnmatch_lines(["notifier*NOT READY*",
                                 "    ✗ 2 branch(es) of the definition no recorded trigger took (untested): "
                                 "channel=sms, channel=chat"])
    # an automation whose manifest names no definition cannot meet the rule
    result.stdout.fnmatch_lines(["router*NOT READY*", "*the manifest names no definition for 'router'*"])


def test_an_export_without_decisions_counts_no_branch_and_cannot_meet_the_definition_rule(project: pytest.Pytester) -> None:
    _name_the_definition(project)
    legacy = project.path / "recordings" / "demo" / "notifier" / "legacy.jsonl"
    lines = [json.loads(line) for line in legacy.read_text().splitlines() if line.strip()]
    for line in lines:  # what a status-and-path export (Make's scenario logs, say) holds
        line.pop("decisions", None)
        line["evidence"] = ["status", "path"]
    legacy.write_text("".join(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n" for line in lines))
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().rstrip() + '\nbranch_coverage = "definition"\nevidence = "status"\n')
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    result.stdout.fnmatch_lines(["notifier*NOT READY*",
                                 "*✗ *the export holds no decisions, so no branch can be shown taken*",
                                 "*! branches not counted: the export holds no decisions, so none of the "
                                 "definition's 4 branch(es) can be shown taken"])
    assert "untested" not in result.stdout.str().split("notifier", 1)[1].split("router", 1)[0]
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    notifier = next(a for a in summary["automations"] if a["name"] == "notifier")
    assert {r["taken"] for r in notifier["definition_branches"]} == {None}
    assert "none can be counted" in (project.path / "reports" / "demo" / "index.html").read_text()


def _with_workflow(project: pytest.Pytester, workflow: Any) -> None:
    _name_the_definition(project)
    (project.path / "recordings" / "demo" / "definitions" / "notifier.json").write_text(json.dumps(workflow))
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().rstrip() + '\nbranch_coverage = "definition"\n')


def test_a_definition_whose_branches_cannot_be_read_is_not_ready_with_the_reason(project: pytest.Pytester) -> None:
    listed: Any = WORKFLOW["nodes"]
    nodes = [dict(n, typeVersion=9) if n["name"] == "Channel" else n for n in listed]
    _with_workflow(project, dict(WORKFLOW, nodes=nodes))
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    result.stdout.fnmatch_lines(["notifier*NOT READY*",
                                 "*✗ branch coverage is required from the definition, but its branches cannot be read: "
                                 "node 'Channel' (switch v9): branch coverage reads switch v1, v2, v3*",
                                 "*! branches not counted: the definition's branches cannot be read*"])
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    notifier = next(a for a in summary["automations"] if a["name"] == "notifier")
    assert "switch v9" in notifier["definition_problem"] and notifier["definition_branches"] == []
    assert "cannot be read, so none is counted" in (project.path / "reports" / "demo" / "index.html").read_text()


def test_a_definition_with_no_branch_is_a_neutral_line_never_a_passed_check(project: pytest.Pytester) -> None:
    listed: Any = WORKFLOW["nodes"]
    linear = {"name": "Notifier", "nodes": [listed[0], listed[3]],
              "connections": {"Hook": {"main": [[{"node": "Post", "type": "main", "index": 0}]]}}}
    _with_workflow(project, linear)
    project.runpytest_subprocess("--shadow", "recordings/demo")
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    verdict = next(a for a in summary["automations"] if a["name"] == "notifier")["verdict"]
    assert "no branches to check: the definition has no branching node" in verdict["neutral"]
    assert not any("definition" in line for line in verdict["met"])
    assert verdict["ready"]

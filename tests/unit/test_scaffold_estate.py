"""The estate run: a directory of workflows never aborts, every node is counted, the table has totals and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from harness.cli import cli
from harness.platforms.make.definition import load_blueprint
from harness.platforms.make.translate import build as build_make
from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate import scaffold_n8n
from harness.platforms.n8n.translate.module import build
from harness.scaffold import automation_name


def _node(name: str, kind: str, x: float = 0, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": extra.pop("typeVersion", 1),
            "position": [x, 0], "parameters": extra.pop("parameters", {}), **extra}


def _chain(*names: str) -> dict[str, Any]:
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:], strict=False)}


# A Switch v3 whose rule's ``conditions`` is a bare list of conditions, not the filter object
# {options, conditions, combinator}: the shape of a real estate's workflow that used to abort the run.
LIST_CONDITIONS = {
    "name": "GitHub router", "nodes": [
        _node("Hook", "webhook", parameters={"path": "gh", "httpMethod": "POST"}),
        _node("Route", "if", 200, typeVersion=2, parameters={"conditions": [
            {"leftValue": "={{ $json.event }}", "rightValue": "push", "operator": {"type": "string", "operation": "equals"}}]}),
        _node("Done", "noOp", 400)],
    "connections": _chain("Hook", "Route", "Done"),
}


def _write(directory: Path, name: str, document: dict[str, Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(json.dumps(document), encoding="utf-8")


def test_a_node_whose_conditions_are_a_list_is_a_todo_naming_why_and_the_estate_goes_on(tmp_path: Path) -> None:
    _write(tmp_path / "estate", "router.json", LIST_CONDITIONS)
    _write(tmp_path / "estate", "plain.json", {"name": "Plain", "nodes": [_node("Start", "manualTrigger"),
                                                                          _node("Pass", "noOp", 200)],
                                               "connections": _chain("Start", "Pass")})
    written = scaffold_n8n(tmp_path / "estate", automation=None, into=tmp_path / "out")
    router = next(w.scaffold for w in written if w.scaffold.automation == "github-router")
    row = next(r for r in router.rows if r.node == "Route")
    assert row.status == "todo" and "conditions: expected an object" in row.why and "list" in row.why
    assert "raise n8n.TodoNode('Route'" in router.source
    assert sorted(w.scaffold.automation for w in written) == ["github-router", "plain"]


def test_a_switch_rule_whose_conditions_are_a_bare_list_matches_every_item_as_in_n8n(tmp_path: Path) -> None:
    # Measured in n8n 1.123 (expr_conformance: "list-rules switch v3.2"): every item goes to rule 0.
    document = {"name": "GitHub switch", "nodes": [
        _node("Hook", "webhook", parameters={"path": "gh", "httpMethod": "POST"}),
        _node("Route", "switch", 200, typeVersion=3, parameters={"rules": {"values": [
            {"conditions": [{"leftValue": "={{ $json.event }}", "rightValue": "push",
                             "operator": {"type": "string", "operation": "equals"}}]}]}})],
        "connections": _chain("Hook", "Route")}
    _write(tmp_path / "estate", "switch.json", document)
    (written,) = scaffold_n8n(tmp_path / "estate", automation=None, into=tmp_path / "out")
    row = next(r for r in written.scaffold.rows if r.node == "Route")
    assert row.status == "translated" and "rule 0's conditions are a bare list" in row.why


def test_a_workflow_name_starting_with_a_digit_gets_a_valid_automation_name(tmp_path: Path) -> None:
    assert automation_name("04 Trend poster") == "workflow-04-trend-poster"
    assert automation_name("Lead sync") == "lead-sync" and automation_name("!!!") == "workflow"
    _write(tmp_path / "estate", "a.json", {"name": "04 Trend poster", "nodes": [_node("Start", "manualTrigger")],
                                           "connections": {}})
    _write(tmp_path / "estate", "b.json", {"name": "2nd", "nodes": [_node("Start", "manualTrigger")],
                                           "connections": {}})
    written = scaffold_n8n(tmp_path / "estate", automation=None, into=tmp_path / "out")
    assert [w.path.name for w in written] == ["workflow_04_trend_poster.py", "workflow_2nd.py"]


SEVEN = {
    "name": "Seven", "nodes": [
        _node("Start", "manualTrigger"), _node("Pass", "noOp", 200), _node("Mystery", "fancyThing", 400),
        _node("Off", "noOp", 600, disabled=True), _node("Island", "noOp", 800),
        _node("Note", "stickyNote", 0), _node("Note 2", "stickyNote", 0)],
    "connections": _chain("Start", "Pass", "Mystery"),
}


def test_every_node_is_counted_with_not_reached_nodes_and_sticky_notes_apart() -> None:
    scaffold = build(parse_workflow(SEVEN, "seven.json"), "seven", {})
    status = {r.node: r.status for r in scaffold.rows}
    assert status == {"Start": "trigger", "Pass": "translated", "Mystery": "todo", "Off": "not reached",
                      "Island": "not reached", "Note": "note", "Note 2": "note"}
    assert (scaffold.translated, scaffold.todo, scaffold.not_reached, scaffold.notes) == (2, 1, 2, 2)
    assert not scaffold.whole


def test_the_estate_table_ends_with_totals_and_json_writes_it_for_ci(tmp_path: Path) -> None:
    _write(tmp_path / "estate", "seven.json", SEVEN)
    _write(tmp_path / "estate", "router.json", LIST_CONDITIONS)
    _write(tmp_path / "estate", "whole.json", {"name": "Whole", "nodes": [_node("Start", "manualTrigger"),
                                                                          _node("Pass", "noOp", 200)],
                                               "connections": _chain("Start", "Pass")})
    _write(tmp_path / "estate", "not-a-workflow.json", {"hello": "world"})
    result = CliRunner().invoke(cli, ["scaffold", "n8n", str(tmp_path / "estate"), "--into", str(tmp_path / "a"),
                                      "--json", str(tmp_path / "estate.json")])
    assert result.exit_code == 0, result.output
    assert "(2 nodes translated, 1 TODO, 2 not reached, 2 sticky notes)" in result.output
    assert "not-a-workflow.json" in result.output and "skipped" in result.output
    totals = result.output.split("estate:")[1].strip().splitlines()[-3]
    # seven: 2 + 1 TODO; router: Hook, Done + Route TODO; whole: 2
    assert totals.strip() == ("3 workflows: 6 nodes translated, 2 TODO (75% of the 8 that run); 1 of 3 workflows "
                              "whole (no TODO); 2 not reached, 2 sticky notes")
    table = json.loads((tmp_path / "estate.json").read_text())
    assert table["totals"] == {"workflows": 3, "whole": 1, "translated": 6, "todo": 2, "not_reached": 2, "notes": 2,
                               "nodes": 12, "missing_callees": 0, "proved_oracle": 3, "proved_pinned": 0, "proved_shadow": 0,
                               "not_proved": 0}
    whole = next(w for w in table["workflows"] if w["automation"] == "whole")
    assert whole["whole"] is True and [n["status"] for n in whole["nodes"]] == ["trigger", "translated"]


def test_json_to_stdout_is_the_only_thing_on_stdout(tmp_path: Path) -> None:
    _write(tmp_path / "estate", "seven.json", SEVEN)
    _write(tmp_path / "estate", "router.json", LIST_CONDITIONS)
    result = CliRunner().invoke(cli, ["scaffold", "n8n", str(tmp_path / "estate"), "--into", str(tmp_path / "a"),
                                      "--json", "-"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["todo"] == 2
    assert "estate:" in result.stderr


def test_a_make_iterator_whose_array_cannot_be_read_is_a_todo_not_a_crash(tmp_path: Path) -> None:
    blueprint = {"name": "Cold email", "flow": [
        {"id": 1, "module": "gateway:CustomWebHook", "version": 1, "mapper": {}},
        {"id": 7, "module": "builtin:BasicFeeder", "version": 1, "parameters": {}, "mapper": {"array": "{{`1`}}"}}]}
    (tmp_path / "cold.json").write_text(json.dumps(blueprint))
    scaffold = build_make(load_blueprint(tmp_path / "cold.json"), "cold-email", {})
    row = next(r for r in scaffold.rows if r.type == "builtin:BasicFeeder")
    assert row.status == "todo" and "'`1`' is not a module path" in row.why


def test_a_workflow_the_translator_fails_on_is_all_todo_and_the_estate_goes_on(tmp_path: Path,
                                                                                monkeypatch: Any) -> None:
    from harness.platforms.n8n.definition import Workflow

    def broken(self: Workflow) -> Any:
        if self.name == "Seven":
            raise RecursionError("maximum recursion depth exceeded")
        return original(self)

    original = Workflow.plan
    monkeypatch.setattr(Workflow, "plan", broken)
    _write(tmp_path / "estate", "seven.json", SEVEN)
    _write(tmp_path / "estate", "router.json", LIST_CONDITIONS)
    written = {w.scaffold.automation: w for w in scaffold_n8n(tmp_path / "estate", automation=None,
                                                               into=tmp_path / "out")}
    seven = written["seven"].scaffold
    assert seven.todo == 5 and seven.notes == 2 and seven.translated == 0
    assert all("RecursionError" in r.why for r in seven.rows if r.status == "todo")
    assert "raise n8n.TodoNode('Seven'" in written["seven"].path.read_text()
    compile(written["seven"].path.read_text(), "seven.py", "exec")
    assert written["github-router"].scaffold.translated == 2

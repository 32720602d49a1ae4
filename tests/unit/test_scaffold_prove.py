"""`cutover scaffold prove`: fails on any pinned node not proved, and proves an edited module."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from harness.cli import cli


def _workflow(pinned_greeting: str, code: str | None = None) -> dict[str, Any]:
    """A webhook, a Set node writing ``greeting`` (pinned), and optionally a Code node after it."""
    nodes: list[dict[str, Any]] = [
        {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": [0, 0],
         "parameters": {"path": "hello", "httpMethod": "POST"}},
        {"name": "Greet", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [200, 0],
         "parameters": {"assignments": {"assignments": [
             {"id": "a1", "name": "greeting", "value": "=Hello {{ $json.body.name }}", "type": "string"},
             {"id": "a2", "name": "count", "value": 3456, "type": "number"}]}, "options": {}}},
    ]
    connections: dict[str, Any] = {"Hook": {"main": [[{"node": "Greet", "type": "main", "index": 0}]]}}
    pins: dict[str, Any] = {
        "Hook": [{"json": {"headers": {}, "params": {}, "query": {}, "body": {"name": "Ada"}}}],
        "Greet": [{"json": {"greeting": pinned_greeting, "count": 3456}}],
    }
    if code is not None:
        nodes.append({"name": "Shout", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [400, 0],
                      "parameters": {"jsCode": code}})
        connections["Greet"] = {"main": [[{"node": "Shout", "type": "main", "index": 0}]]}
        pins["Shout"] = [{"json": {"greeting": "HELLO ADA", "count": 3456}}]
    return {"name": "Hello", "nodes": nodes, "connections": connections, "pinData": pins}


def _write(tmp_path: Path, document: dict[str, Any]) -> Path:
    path = tmp_path / "hello.workflow.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_every_pinned_node_proved_exits_0(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["scaffold", "prove", str(_write(tmp_path, _workflow("Hello Ada")))])
    assert result.exit_code == 0, result.output
    assert "Greet (n8n-nodes-base.set): proved" in result.output
    assert "1 of 1 pinned nodes proved" in result.output


def test_a_node_that_differs_from_its_pin_exits_1(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["scaffold", "prove", str(_write(tmp_path, _workflow("Hello Bob")))])
    assert result.exit_code == 1, result.output
    assert "Greet (n8n-nodes-base.set): differs" in result.output
    assert "0 of 1 pinned nodes proved; 1 differs" in result.output


def test_a_pinned_node_left_as_todo_is_not_proved(tmp_path: Path) -> None:
    code = "const { readFileSync } = require('fs');\n" \
           "for (const item of $input.all()) { item.json.greeting = item.json.greeting.toUpperCase(); }\n" \
           "return $input.all();"
    result = CliRunner().invoke(cli, ["scaffold", "prove", str(_write(tmp_path, _workflow("Hello Ada", code)))])
    assert result.exit_code == 1, result.output
    assert "Shout (n8n-nodes-base.code): not translated" in result.output
    assert "1 of 2 pinned nodes proved; 1 not translated" in result.output


def test_an_edited_module_is_proved_as_edited(tmp_path: Path) -> None:
    workflow = _write(tmp_path, _workflow("Hello Ada"))
    into = tmp_path / "automations"
    scaffolded = CliRunner().invoke(cli, ["scaffold", "n8n", str(workflow), "--into", str(into)])
    assert scaffolded.exit_code == 0, scaffolded.output
    (module,) = into.glob("*.py")
    as_generated = CliRunner().invoke(cli, ["scaffold", "prove", str(workflow), "--module", str(module)])
    assert as_generated.exit_code == 0, as_generated.output

    source = module.read_text(encoding="utf-8")
    assert source.count("3456") == 1
    module.write_text(source.replace("3456", "99"), encoding="utf-8")  # a person's edit, wrong
    edited = CliRunner().invoke(cli, ["scaffold", "prove", str(workflow), "--module", str(module)])
    assert edited.exit_code == 1, edited.output
    assert "Greet (n8n-nodes-base.set): differs got [{'greeting': 'Hello Ada', 'count': 99}]" in edited.output


def test_module_needs_one_workflow_and_one_automation(tmp_path: Path) -> None:
    _write(tmp_path, _workflow("Hello Ada"))
    (tmp_path / "other.workflow.json").write_text(json.dumps(_workflow("Hello Bob")), encoding="utf-8")
    module = tmp_path / "two.py"
    module.write_text("from queue_core import automation\n\n"
                      "@automation('a')\nasync def a(ctx, trigger):\n    pass\n\n"
                      "@automation('b')\nasync def b(ctx, trigger):\n    pass\n", encoding="utf-8")
    on_dir = CliRunner().invoke(cli, ["scaffold", "prove", str(tmp_path), "--module", str(module)])
    assert on_dir.exit_code == 2 and "give one workflow file" in on_dir.output
    two = CliRunner().invoke(cli, ["scaffold", "prove", str(tmp_path / "hello.workflow.json"), "--module", str(module)])
    assert two.exit_code == 1 and "defines 2 automations (a, b)" in two.output
    unknown = CliRunner().invoke(cli, ["scaffold", "prove", str(tmp_path / "hello.workflow.json"),
                                       "--module", str(module), "--automation", "c"])
    assert unknown.exit_code == 1 and "defines no automation 'c'" in unknown.output

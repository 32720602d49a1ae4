"""The two silent passes of issue 23, through the user's commands: scaffold → import → ``pytest --shadow``.

(a) A scaffolded workflow whose Code node is still a TODO raises ``TodoNode`` at its first node;
    the legacy runs failed too, but at another node. Both statuses are "failed": that must not
    count as agreement, and the automation must not be READY.
(b) A scaffolded Set node whose literal was changed by hand (``3456`` → ``WRONG``): the node's
    output items differ from the ones n8n recorded, so every trigger must disagree on them.

The workflows and their executions are written here in n8n's own formats (a workflow export and
``GET /executions?includeData=true``), so the test reads nothing outside its own directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from queue_core import provision
from tests.support.project import pyproject

START_MS = 1717200000000  # 2024-06-01T00:00:00Z


def _node(ident: str, name: str, kind: str, version: float, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"id": ident, "name": name, "type": kind, "typeVersion": version, "position": [0, 0],
            "parameters": parameters}


def _chain(*names: str) -> dict[str, Any]:
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:])}


WEBHOOK = {"httpMethod": "POST", "path": "in"}
TODO_WORKFLOW = {"id": "31", "name": "Todo flow", "connections": _chain("Webhook", "Compute", "Lookup"), "nodes": [
    _node("a1", "Webhook", "n8n-nodes-base.webhook", 2, WEBHOOK),
    _node("a2", "Compute", "n8n-nodes-base.code", 2, {
        # a Code node needing a Node.js module stays a TODO (the sandbox has none): the run is unfinished
        "jsCode": "const fs = require('fs');\nfor (const item of $input.all()) { item.json.total = item.json.body.a + 1; }\nreturn $input.all();"}),
    _node("a3", "Lookup", "n8n-nodes-base.set", 3.4, {"assignments": {"assignments": [
        {"id": "f1", "name": "ref", "value": "={{ $('Webhook').item.json.body.a }}", "type": "string"}]},
        "options": {}}),
]}
SET_WORKFLOW = {"id": "32", "name": "Set flow", "connections": _chain("Webhook", "Edit Fields"), "nodes": [
    _node("b1", "Webhook", "n8n-nodes-base.webhook", 2, WEBHOOK),
    _node("b2", "Edit Fields", "n8n-nodes-base.set", 3.4, {"assignments": {"assignments": [
        {"id": "f1", "name": "code", "value": "3456", "type": "string"},
        {"id": "f2", "name": "who", "value": "={{ $json.body.name }}", "type": "string"}]}, "options": {}}),
]}


def _task(start: int, index: int, items: list[list[dict[str, Any]]] | None, previous: str | None,
          error: dict[str, Any] | None = None) -> dict[str, Any]:
    task: dict[str, Any] = {"startTime": start, "executionIndex": index, "executionTime": 1,
                            "source": [{"previousNode": previous}] if previous else [],
                            "executionStatus": "error" if error else "success"}
    if items is not None:
        task["data"] = {"main": [[{"json": j, "pairedItem": {"item": 0}} for j in out] for out in items]}
    if error:
        task["error"] = error
    return task


def _webhook_item(body: dict[str, Any], delivery: str) -> dict[str, Any]:
    return {"headers": {"content-type": "application/json", "x-delivery": delivery}, "params": {}, "query": {},
            "body": body, "webhookUrl": "https://n8n.acme.test/webhook/in", "executionMode": "production"}


def _execution(ident: int, workflow: str, run_data: dict[str, Any], status: str,
               error: dict[str, Any] | None = None) -> dict[str, Any]:
    at = START_MS + ident * 60_000
    started = f"2024-06-01T{ident // 60:02d}:{ident % 60:02d}:00.000Z"
    result: dict[str, Any] = {"runData": run_data, "lastNodeExecuted": list(run_data)[-1]}
    if error:
        result["error"] = error
    return {"id": ident, "finished": status == "success", "mode": "webhook", "status": status,
            "startedAt": started, "stoppedAt": started, "workflowId": workflow, "waitTill": None,
            "data": {"startData": {}, "resultData": result}, "_at": at}


def todo_executions() -> list[dict[str, Any]]:
    """Runs of the Todo flow: Compute ran, then Lookup failed ("Reference impossible with .item")."""
    out = []
    for i in range(1, 4):
        at = START_MS + i * 60_000
        body = {"a": i, "name": f"n{i}"}
        error = {"name": "NodeOperationError", "message": "Reference impossible with .item",
                 "node": {"name": "Lookup", "type": "n8n-nodes-base.set"}}
        run_data = {
            "Webhook": [_task(at, 0, [[_webhook_item(body, f"todo-{i}")]], None)],
            "Compute": [_task(at + 1, 1, [[{**_webhook_item(body, f"todo-{i}"), "total": i + 1}]], "Webhook")],
            "Lookup": [_task(at + 2, 2, None, "Compute", error)],
        }
        out.append(_execution(i, "31", run_data, "error", error))
    return out


def set_executions() -> list[dict[str, Any]]:
    """Runs of the Set flow: Edit Fields emitted ``{"code": "3456", "who": <name>}``."""
    out = []
    for i in range(1, 4):
        at = START_MS + i * 60_000
        body = {"name": f"n{i}"}
        run_data = {
            "Webhook": [_task(at, 0, [[_webhook_item(body, f"set-{i}")]], None)],
            "Edit Fields": [_task(at + 1, 1, [[{"code": "3456", "who": f"n{i}"}]], "Webhook")],
        }
        out.append(_execution(i, "32", run_data, "success"))
    return out


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    url = provision.fresh_database()
    yield {**os.environ, "DATABASE_URL": url, "CUTOVER_REDACTION_SALT": "silent-passes"}
    provision.drop_database(url)


@pytest.fixture(scope="module")
def shadow(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("silent")
    project = root / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(textwrap.dedent(pyproject(
        "silentflows", "[tool.cutover.gate]\nmin_triggers = 1\nagreement = 1.0")))
    cutover = [sys.executable, "-m", "harness"]
    for name, workflow, executions in (("todo-flow", TODO_WORKFLOW, todo_executions()),
                                       ("set-flow", SET_WORKFLOW, set_executions())):
        definition = root / f"{name}.workflow.json"
        definition.write_text(json.dumps(workflow))
        exported = root / f"{name}.executions.json"
        exported.write_text(json.dumps({"data": [{k: v for k, v in e.items() if k != "_at"} for e in executions],
                                        "nextCursor": None}))
        done = _run(cutover + ["scaffold", "n8n", str(definition), "--automation", name, "--into", "silentflows",
                               "--set", "rec"], project, env)
        assert done.returncode == 0, done.stdout + done.stderr
        done = _run(cutover + ["import", "n8n", str(exported), "--automation", name, "--definition", str(definition),
                               "--into", "rec"], project, env)
        assert done.returncode == 0, done.stdout + done.stderr
    module = project / "silentflows" / "set_flow.py"
    source = module.read_text()
    value = "n8n.typed('code', '3456', 'string', version=3.4)"
    assert value in source
    module.write_text(source.replace(value, value.replace("'3456'", "'WRONG'")))
    result = _run([sys.executable, "-m", "pytest", "--shadow", "rec", "-q", "-p", "no:cacheprovider",
                   "-p", "no:benchmark"], project, env)
    assert "cutover shadow verdict" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((project / "reports" / "rec" / "summary.json").read_text())
    return {"summary": summary, "stdout": result.stdout, "ret": result.returncode,
            "by_name": {a["name"]: a for a in summary["automations"]}}


def test_a_todo_against_a_legacy_run_that_failed_elsewhere_is_no_agreement(shadow: dict[str, Any]) -> None:
    todo = shadow["by_name"]["todo-flow"]
    assert todo["agreed"] == 0 and todo["accepted"] == 0, todo
    assert not todo["verdict"]["ready"], todo["verdict"]
    assert "todo-flow" in shadow["summary"]["gate"]["not_ready"]
    assert shadow["ret"] != 0


def test_a_changed_set_value_disagrees_on_the_nodes_output(shadow: dict[str, Any]) -> None:
    changed = shadow["by_name"]["set-flow"]
    assert changed["agreed"] == 0 and changed["disagreed"] == 3, changed
    assert not changed["verdict"]["ready"]
    paths = {c["path"] for c in shadow["summary"]["clusters"] if c["automation"] == "set-flow"}
    assert any("Edit Fields" in p and "code" in p for p in paths), paths


def test_the_verdict_names_the_todo_node_and_counts_the_nodes_compared(shadow: dict[str, Any]) -> None:
    todo, changed = shadow["by_name"]["todo-flow"], shadow["by_name"]["set-flow"]
    assert todo["unfinished"] == 3 and todo["unfinished_nodes"] == {"Compute": 3}
    assert any("3 trigger(s) reached code not translated yet" in r and "Compute (3×)" in r
               for r in todo["verdict"]["failed"]), todo["verdict"]["failed"]
    assert changed["evidence"]["compared"].endswith(
        "outputs of 1 of 2 nodes compared; 1 excluded: Webhook (the trigger: the replay's own input)")
    assert "Compute (3×)" in shadow["stdout"].split("cutover shadow verdict", 1)[1]

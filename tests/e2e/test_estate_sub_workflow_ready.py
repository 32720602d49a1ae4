"""An estate's workflow with a Code node, a loop and a sub-workflow goes scaffold → import → ``pytest --shadow`` READY.

The estate (two workflows, written here): *Roster* is called by a webhook; its Code node (JavaScript,
kept) turns the body's names into items; a Loop Over Items (SplitInBatches v3, one item per batch)
sends each through a Wait (a minute per position: an expression; in a replay a sleep of no time)
to an Execute Workflow node that calls *Shout*, the other workflow of the estate (an
Execute Workflow Trigger and a Set that adds ``shout``), and its done output ends at a NoOp. The
executions are n8n's API export shape (``GET /executions?includeData=true``: ``runData`` with a run
per loop pass, as the real n8n records a loop; see ``tests/fixtures/exports/n8n/
execution_loop_over_items.json``, recorded from n8n) written here by :func:`_execution` from what
n8n outputs for these nodes — hand-written, not recorded from the oracle. In a fresh project:
``cutover scaffold n8n ESTATE --set rec`` (both automations, the maps), ``cutover import n8n``
of Roster's executions, then ``pytest --shadow rec``: the sub-workflow runs as a child job of the
Shout automation in shadow mode, and Roster is READY.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from queue_core import provision
from tests.support.project import pyproject

NAMES = [["ada", "bob"], ["cy"], ["dee", "eve", "fay"], ["gus", "hal"], ["ivy"]]
GATE = "[tool.cutover.gate]\nmin_triggers = 5"


def _node(name: str, kind: str, version: float, x: int, **parameters: Any) -> dict[str, Any]:
    return {"id": f"id-{x}", "name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version,
            "position": [x, 0], "parameters": parameters}


def _to(*targets: str) -> dict[str, Any]:
    return {"main": [[{"node": t, "type": "main", "index": 0}] if t else [] for t in targets]}


ROSTER = {
    "id": "wf-roster", "name": "Roster", "settings": {"executionOrder": "v1"},
    "nodes": [
        _node("Hook", "webhook", 2, 0, httpMethod="POST", path="roster"),
        _node("Names", "code", 2, 200, jsCode="return $input.first().json.body.names.map((n, i) => "
              "({ json: { name: n, position: i + 1 } }));"),
        _node("Loop Over Items", "splitInBatches", 3, 400, batchSize=1, options={}),
        _node("Pause", "wait", 1.1, 500, amount="={{ $json.position * 60 }}", unit="seconds"),
        _node("Shout it", "executeWorkflow", 1.2, 600, options={},
              workflowId={"__rl": True, "value": "wf-shout", "mode": "list", "cachedResultName": "Shout"}),
        _node("Done", "noOp", 1, 800)],
    "connections": {"Hook": _to("Names"), "Names": _to("Loop Over Items"),
                    "Loop Over Items": _to("Done", "Pause"), "Pause": _to("Shout it"),
                    "Shout it": _to("Loop Over Items")},
}
SHOUT = {
    "id": "wf-shout", "name": "Shout", "settings": {"executionOrder": "v1"},
    "nodes": [
        _node("Called", "executeWorkflowTrigger", 1.1, 0, inputSource="passthrough"),
        _node("Upper", "set", 3.4, 200, includeOtherFields=True, options={}, assignments={"assignments": [
            {"id": "a1", "name": "shout", "value": "={{ $json.name.toUpperCase() + '!' }}", "type": "string"}]})],
    "connections": {"Called": _to("Upper")},
}


class _Runs:
    """The ``runData`` of one execution, node run by node run, in n8n's order."""

    def __init__(self, start: int) -> None:
        self.at, self.index, self.data = start, 0, {}  # type: ignore[var-annotated]

    def run(self, node: str, outputs: list[list[dict[str, Any]]], source: dict[str, Any] | None) -> None:
        self.at += 3
        self.data.setdefault(node, []).append({
            "startTime": self.at, "executionIndex": self.index, "executionTime": 2,
            "source": [source] if source else [], "executionStatus": "success", "hints": [],
            "data": {"main": [[{"json": j, "pairedItem": {"item": k}} for k, j in enumerate(o)] for o in outputs]}})
        self.index += 1


def _execution(number: int, names: list[str]) -> dict[str, Any]:
    """One Roster execution as n8n exports it (what each node output, one run per loop pass)."""
    start = 1_780_000_000_000 + number * 60_000
    runs = _Runs(start)
    body = {"names": names}
    runs.run("Hook", [[{"headers": {"host": "n8n.example.test", "content-type": "application/json"}, "params": {},
                        "query": {}, "body": body, "webhookUrl": "https://n8n.example.test/webhook/roster",
                        "executionMode": "production"}]], None)
    items = [{"name": n, "position": i + 1} for i, n in enumerate(names)]
    runs.run("Names", [items], {"previousNode": "Hook"})
    done: list[dict[str, Any]] = []
    for k, item in enumerate(items):
        source = {"previousNode": "Names"} if k == 0 else {"previousNode": "Shout it", "previousNodeRun": k - 1}
        runs.run("Loop Over Items", [[], [item]], source)
        runs.run("Pause", [[item]], {"previousNode": "Loop Over Items", "previousNodeOutput": 1, "previousNodeRun": k})
        shouted = {**item, "shout": item["name"].upper() + "!"}
        runs.run("Shout it", [[shouted]], {"previousNode": "Pause", "previousNodeRun": k})
        done.append(shouted)
    runs.run("Loop Over Items", [done, []], {"previousNode": "Shout it", "previousNodeRun": len(items) - 1})
    runs.run("Done", [done], {"previousNode": "Loop Over Items", "previousNodeRun": len(items)})
    iso = f"2026-05-28T{number:02d}:00:00.000Z"
    return {"id": 900 + number, "finished": True, "mode": "webhook", "retryOf": None, "retrySuccessId": None,
            "startedAt": iso, "stoppedAt": iso.replace("00.000Z", "01.000Z"), "workflowId": "wf-roster",
            "waitTill": None, "customData": {}, "status": "success", "workflowData": ROSTER,
            "data": {"startData": {}, "resultData": {"runData": runs.data, "lastNodeExecuted": "Done"}}}


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    url = provision.fresh_database()
    yield {**os.environ, "DATABASE_URL": url, "CUTOVER_REDACTION_SALT": "estate-e2e-salt-" + "x" * 32}
    provision.drop_database(url)


@pytest.fixture(scope="module")
def shadowed(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("estate-e2e")
    project = root / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(pyproject("estate_auto", GATE))
    estate = root / "estate"
    estate.mkdir()
    (estate / "roster.json").write_text(json.dumps(ROSTER))
    (estate / "shout.json").write_text(json.dumps(SHOUT))
    executions = root / "roster-executions.json"
    executions.write_text(json.dumps({"data": [_execution(i, n) for i, n in enumerate(NAMES)], "nextCursor": None}))
    cutover = [sys.executable, "-m", "harness"]
    scaffold = _run(cutover + ["scaffold", "n8n", str(estate), "--into", "estate_auto", "--set", "rec",
                               "--json", str(root / "estate.json")], project, env)
    assert scaffold.returncode == 0, scaffold.stdout + scaffold.stderr
    imported = _run(cutover + ["import", "n8n", str(executions), "--automation", "roster", "--definition",
                               str(estate / "roster.json"), "--into", "rec"], project, env)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    shadow = _run([sys.executable, "-m", "pytest", "--shadow", "rec", "-q", "-p", "no:cacheprovider",
                   "-p", "no:benchmark"], project, env)
    assert "cutover shadow verdict" in shadow.stdout, shadow.stdout[-3000:] + shadow.stderr[-3000:]
    summary = json.loads((project / "reports" / "rec" / "summary.json").read_text())
    (roster,) = [a for a in summary["automations"] if a["name"] == "roster"]
    return {"roster": roster, "scaffold": scaffold.stdout, "imported": imported.stdout, "shadow": shadow.stdout,
            "estate": json.loads((root / "estate.json").read_text()),
            "module": (project / "estate_auto" / "roster.py").read_text()}


def test_the_estate_scaffolds_whole_with_the_code_node_the_loop_and_the_sub_workflow(shadowed: dict[str, Any]) -> None:
    estate = shadowed["estate"]
    assert estate["totals"]["todo"] == 0 and estate["totals"]["whole"] == 2 and estate["missing_callees"] == []
    roster = next(w for w in estate["workflows"] if w["automation"] == "roster")
    assert {n["node"]: n["status"] for n in roster["nodes"]} == {
        "Hook": "trigger", "Names": "translated", "Loop Over Items": "translated", "Pause": "translated",
        "Shout it": "translated", "Done": "translated"}
    assert "n8n.execute_workflow(flow, 'Shout it', 'shout'" in shadowed["module"]
    assert "paired (trigger + legacy run): 5" in shadowed["imported"]


def test_the_shadow_run_agrees_with_every_execution_and_roster_is_ready(shadowed: dict[str, Any]) -> None:
    roster = shadowed["roster"]
    assert roster["verdict"]["label"] == "READY", shadowed["shadow"][-4000:]
    assert (roster["compared"], roster["disagreed"]) == (5, 0)
    assert roster["agreement"] == 1.0

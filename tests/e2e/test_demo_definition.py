"""The demo set's n8n workflow definitions are what their executions ran.

Each execution in the shipped export is replayed through the definition with n8n's semantics (the
scaffolded code, offline, each HTTP Request answered with the body the execution shows for it):
every node n8n ran must have run, in the same order, with the same items on the same outputs, and
no other node may have run. A definition that disagreed with its executions (a node wired where
n8n never ran it, a field no node sets, an array answer feeding a node once per label) fails here
naming the execution and the node.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import _OfflineContext
from harness.platforms.n8n.definition import load_workflows
from queue_core.context import Trigger

SHIPPED = Path(__file__).resolve().parents[2] / "recordings" / "2024-06" / "exports"
AUTOMATIONS = {"github-triage": 17, "bug-digest": 0}  # automation -> executions that failed


class _Answered(_OfflineContext):
    """Answer each call with the JSON the execution shows for that node (one item, or a list)."""

    def __init__(self, run_data: dict[str, Any], nodes: dict[str, str]) -> None:
        super().__init__()
        self.run_data, self.nodes = run_data, nodes
        self.called: list[str] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        node = self.nodes[kwargs["step"]]
        self.called.append(node)
        if node not in self.run_data:  # n8n did not run it: the comparison below names the node
            return httpx.Response(200, json={})
        (task,) = self.run_data[node]
        if task.get("executionStatus") == "error":
            raise RuntimeError(task["error"]["message"])
        items = [item["json"] for item in task["data"]["main"][0]]
        return httpx.Response(200, json=items[0] if len(items) == 1 else items)


def _automation(name: str) -> tuple[Any, dict[str, str], str]:
    """Return the definition's scaffolded function, its {step: node} calls and its trigger node."""
    (workflow,) = load_workflows(SHIPPED / "definitions" / f"{name}.workflow.json")
    scaffold = build(workflow, name, {"api.github.com": "github", "slack.com": "slack"})
    namespace: dict[str, Any] = {}
    # Without its decorator (whatever its arguments: bug-digest's names a schedule), so nothing is
    # registered in the process's default registry beside the demo's own automations.
    source = re.sub(r"^@automation\(.*\)$", "", scaffold.source, count=1, flags=re.M)
    assert "@automation" not in source
    exec(compile(source, name, "exec"), namespace)
    trigger = workflow.trigger()
    assert trigger is not None
    return namespace[name.replace("-", "_")], {s: n for n, s in scaffold.steps.items() if s}, trigger.name


def _shown(run_data: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """Each node's output items (json only) as the execution shows them, in the order n8n ran them."""
    ordered = sorted(run_data.items(), key=lambda pair: pair[1][0]["executionIndex"])
    return {name: [[item["json"] for item in out] for out in task["data"]["main"]]
            for name, (task,) in ordered if "data" in task}


def _trigger(execution: dict[str, Any], node: str) -> Trigger:
    (item,) = execution["data"]["resultData"]["runData"][node][0]["data"]["main"][0]
    if "headers" in item["json"]:  # a Webhook's item: the delivery
        return Trigger(str(execution["id"]), None, item["json"]["headers"], item["json"]["body"], "n8n")
    return Trigger(str(execution["id"]), None, {}, item["json"], "schedule")


def _run(function: Any, calls: dict[str, str], node: str,
         execution: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    ctx = _Answered(execution["data"]["resultData"]["runData"], calls)
    try:
        asyncio.run(function(ctx, _trigger(execution, node)))
    except RuntimeError:
        assert execution["status"] == "error"
    (flow,) = ctx.n8n_flows
    ran = {name: [[item["json"] for item in out] for out in outputs] for name, outputs in flow.outputs.items()}
    return ran, ctx.called


@pytest.mark.parametrize("name", sorted(AUTOMATIONS))
def test_every_execution_is_what_the_definition_gives_node_by_node_item_by_item(name: str) -> None:
    function, calls, trigger = _automation(name)
    executions = json.loads((SHIPPED / f"n8n-{name}-executions-2024-07-01.json").read_text(encoding="utf-8"))["data"]
    failed = 0
    for execution in executions:
        ran, called = _run(function, calls, trigger, execution)
        shown = _shown(execution["data"]["resultData"]["runData"])
        if "headers" in shown[trigger][0][0]:  # n8n adds webhookUrl and executionMode to a Webhook's item
            shown.pop(trigger)
            ran.pop(trigger)
        where = f"{name} execution {execution['id']}"
        assert list(ran) == list(shown), where
        for node, outputs in shown.items():
            assert ran[node] == outputs, f"{where}, node {node!r}"
        failing = ["Add labels"] if execution["status"] == "error" else []  # called, answered with the 502
        assert called == [n for n in shown if n in calls.values()] + failing, where
        failed += execution["status"] == "error"
    assert failed == AUTOMATIONS[name] and len(executions) > 300

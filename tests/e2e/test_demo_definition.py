"""The demo set's github-triage workflow definition is what its executions ran.

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
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.scaffold._module import build
from harness.scaffold._prove import _OfflineContext
from harness.scaffold._workflow import load_workflows
from queue_core.context import Trigger

SHIPPED = Path(__file__).resolve().parents[2] / "recordings" / "2024-06" / "exports"
DEFINITION = SHIPPED / "definitions" / "github-triage.workflow.json"
EXECUTIONS = SHIPPED / "n8n-github-triage-executions-2024-07-01.json"
STEPS = {"add-labels": "Add labels", "post-comment": "Post comment"}


class _Answered(_OfflineContext):
    """Answer each call with the JSON the execution shows for that node (one item, or a list)."""

    def __init__(self, run_data: dict[str, Any]) -> None:
        super().__init__()
        self.run_data = run_data
        self.called: list[str] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        node = STEPS[kwargs["step"]]
        self.called.append(node)
        if node not in self.run_data:  # n8n did not run it: the comparison below names the node
            return httpx.Response(200, json={})
        (task,) = self.run_data[node]
        if task.get("executionStatus") == "error":
            raise RuntimeError(task["error"]["message"])
        items = [item["json"] for item in task["data"]["main"][0]]
        return httpx.Response(200, json=items[0] if len(items) == 1 else items)


@pytest.fixture(scope="module")
def automation() -> Any:
    (workflow,) = load_workflows(DEFINITION)
    namespace: dict[str, Any] = {}
    source = build(workflow, "github-triage", {"api.github.com": "github"}).source
    exec(compile(source.replace("@automation('github-triage', version=1)", ""), "definition", "exec"), namespace)
    return namespace["github_triage"]


def _shown(run_data: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """Each node's output items (json only) as the execution shows them, in the order n8n ran them."""
    ordered = sorted(run_data.items(), key=lambda pair: pair[1][0]["executionIndex"])
    return {name: [[item["json"] for item in out] for out in task["data"]["main"]]
            for name, (task,) in ordered if "data" in task}


def _run(automation: Any, execution: dict[str, Any]) -> tuple[dict[str, list[list[Any]]], list[str]]:
    run_data = execution["data"]["resultData"]["runData"]
    webhook = run_data["GitHub Webhook"][0]["data"]["main"][0][0]["json"]
    ctx = _Answered(run_data)
    trigger = Trigger(str(execution["id"]), None, webhook["headers"], webhook["body"], "n8n")
    try:
        asyncio.run(automation(ctx, trigger))
    except RuntimeError:
        assert execution["status"] == "error"
    (flow,) = ctx.n8n_flows
    ran = {name: [[item["json"] for item in out] for out in outputs] for name, outputs in flow.outputs.items()}
    return ran, ctx.called


def test_every_execution_is_what_the_definition_gives_node_by_node_item_by_item(automation: Any) -> None:
    executions = json.loads(EXECUTIONS.read_text(encoding="utf-8"))["data"]
    failed = 0
    for execution in executions:
        ran, called = _run(automation, execution)
        shown = _shown(execution["data"]["resultData"]["runData"])
        shown.pop("GitHub Webhook")  # n8n adds webhookUrl and executionMode to the trigger's item
        ran.pop("GitHub Webhook")
        where = f"execution {execution['id']}"
        assert list(ran) == list(shown), where
        for node, outputs in shown.items():
            assert ran[node] == outputs, f"{where}, node {node!r}"
        failing = ["Add labels"] if execution["status"] == "error" else []  # called, answered with the 502
        assert called == [n for n in shown if n in STEPS.values()] + failing, where
        failed += execution["status"] == "error"
    assert (len(executions), failed) == (960, 17)

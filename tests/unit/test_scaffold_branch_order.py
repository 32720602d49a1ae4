"""`cutover scaffold`: n8n's v1 run order across branches, and HTTP Request JSON bodies.

n8n (v1 execution order) finishes one child's branch before it starts the next child of the same
output, children taken top to bottom on the canvas. A node fed from two exclusive branches (a
Switch's tags both leading to "Post comment") therefore still runs after the earlier sibling's
whole branch, and a body written as ``{{ JSON.stringify(…) }}`` is sent as the object it encodes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import _OfflineContext
from harness.platforms.n8n.definition import Workflow, parse_workflow
from queue_core.compat import n8n
from queue_core.context import Trigger
from queue_core.errors import NodeFailed


def _node(name: str, kind: str, version: float, y: int, **parameters: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [0, y],
            "parameters": parameters}


def _tag(name: str, y: int, route: str) -> dict[str, Any]:
    return _node(name, "set", 3.4, y, assignments={"assignments": [
        {"id": route, "name": "route", "value": route, "type": "string"}]}, includeOtherFields=True, options={})


def _post(name: str, y: int, tail: str, body: str) -> dict[str, Any]:
    return _node(name, "httpRequest", 4.2, y, method="POST", url=f"=https://api.example.test/issues/{tail}",
                 sendBody=True, specifyBody="json", jsonBody=body, options={})


def _to(*names: str) -> list[dict[str, Any]]:
    return [{"node": name, "type": "main", "index": 0} for name in names]


def _switch() -> dict[str, Any]:
    def rule(key: str) -> dict[str, Any]:
        return {"conditions": {"options": {"caseSensitive": True, "leftValue": "", "typeValidation": "loose"},
                               "conditions": [{"leftValue": "={{ $json.body.kind }}", "rightValue": key,
                                               "operator": {"type": "string", "operation": "equals"}}],
                               "combinator": "and"}, "renameOutput": True, "outputKey": key}

    return _node("Route", "switch", 3.2, 0, rules={"values": [rule("bug"), rule("other")]}, options={})


def _triage() -> Workflow:
    """Webhook → Route → Tag bug | Tag other → Add labels; Tag bug → Post comment (lower on the canvas)."""
    nodes = [_node("Hook", "webhook", 2, 0, httpMethod="POST", path="t"), _switch(), _tag("Tag bug", 0, "bug"),
             _tag("Tag other", 200, "other"),
             _post("Add labels", 0, "labels", "={{ JSON.stringify({ labels: [$json.route] }) }}"),
             _post("Post comment", 400, "comments", '={ "body": "seen: {{ $json.route }}" }')]
    connections = {"Hook": {"main": [_to("Route")]}, "Route": {"main": [_to("Tag bug"), _to("Tag other")]},
                   # listed bottom first: the canvas, not the list, orders siblings
                   "Tag bug": {"main": [_to("Post comment", "Add labels")]}, "Tag other": {"main": [_to("Add labels")]}}
    return parse_workflow({"name": "triage", "nodes": nodes, "connections": connections}, "triage.json")


class _Calls(_OfflineContext):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str, Any]] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        self.calls.append((kwargs["step"], url, kwargs.get("json")))
        return httpx.Response(200, json=[{"name": "a"}, {"name": "b"}] if url.endswith("labels") else {"id": 1})


def _run(workflow: Workflow, body: dict[str, Any]) -> _Calls:
    scaffold = build(workflow, "triage", {"api.example.test": "tracker"})
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('triage', version=1)", ""), "gen", "exec"), namespace)
    ctx = _Calls()
    asyncio.run(namespace["triage"](ctx, Trigger("t", None, {}, body, "test")))
    return ctx


def test_a_node_two_exclusive_branches_lead_to_runs_after_the_earlier_siblings_whole_branch() -> None:
    order, _ = _triage().order()
    assert order.index("Post comment") > order.index("Add labels") > order.index("Tag other")


def test_siblings_on_one_output_run_top_to_bottom_on_the_canvas_whatever_the_connection_order() -> None:
    workflow = _triage()
    assert [e.target for e in workflow.children("Tag bug")] == ["Add labels", "Post comment"]


def test_the_generated_code_calls_in_n8n_order_once_on_the_tags_item_not_per_label_item() -> None:
    ctx = _run(_triage(), {"kind": "bug"})
    assert [step for step, _, _ in ctx.calls] == ["add-labels", "post-comment"]
    assert ctx.decisions == {"route": "bug"}


def test_a_json_body_built_by_an_expression_is_sent_as_the_object_it_encodes() -> None:
    ctx = _run(_triage(), {"kind": "bug"})
    bodies = {step: body for step, _, body in ctx.calls}
    assert bodies == {"add-labels": {"labels": ["bug"]}, "post-comment": {"body": "seen: bug"}}


def test_a_branch_not_taken_makes_no_call() -> None:
    ctx = _run(_triage(), {"kind": "other"})
    assert ctx.calls == [("add-labels", "https://api.example.test/issues/labels", {"labels": ["other"]})]


def test_a_json_body_that_is_not_json_fails_the_node_as_n8n_does() -> None:
    assert n8n.json_body({"a": 1}, node="Add labels") == {"a": 1}
    with pytest.raises(NodeFailed, match="^Add labels: JSON parameter needs to be valid JSON$"):
        n8n.json_body('{"labels": [bug]}', node="Add labels")

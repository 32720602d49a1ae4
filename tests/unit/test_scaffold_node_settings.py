"""`cutover scaffold`: n8n's per-node settings (Execute Once, Always Output Data) and Python Code nodes."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import _OfflineContext
from harness.platforms.n8n.definition import Workflow, parse_workflow
from queue_core.context import Trigger
from queue_core.errors import Filtered


def _node(name: str, kind: str, version: float, **parameters: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [0, 0],
            "parameters": parameters}


def _chain(*nodes: dict[str, Any]) -> Workflow:
    hook = _node("Hook", "webhook", 2, httpMethod="POST", path="t")
    names = [hook["name"]] + [n["name"] for n in nodes]
    connections = {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:])}
    return parse_workflow({"name": "chain", "nodes": [hook, *nodes], "connections": connections}, "chain.json")


def _get(name: str, path: str) -> dict[str, Any]:
    return _node(name, "httpRequest", 4.2, method="GET", url=f"https://api.example.test/{path}", options={})


class _Calls(_OfflineContext):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        self.urls.append(url)
        return httpx.Response(200, json=[{"name": "a"}, {"name": "b"}] if url.endswith("labels") else {"ok": True})


def _run(workflow: Workflow) -> _Calls:
    scaffold = build(workflow, "chain", {"api.example.test": "api"})
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('chain', version=1)", ""), "gen", "exec"), namespace)
    ctx = _Calls()
    asyncio.run(namespace["chain"](ctx, Trigger("t", None, {}, {"x": 1}, "test")))
    return ctx


def test_a_node_after_an_array_response_runs_once_per_item_unless_it_executes_once() -> None:
    per_item = _run(_chain(_get("Labels", "labels"), _get("Notify", "notify")))
    assert per_item.urls == ["https://api.example.test/labels"] + ["https://api.example.test/notify"] * 2
    once = _run(_chain(_get("Labels", "labels"), {**_get("Notify", "notify"), "executeOnce": True}))
    assert once.urls == ["https://api.example.test/labels", "https://api.example.test/notify"]


def _keep_nothing(**settings: Any) -> dict[str, Any]:
    return {**_node("Only big", "filter", 2, conditions={
        "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict"},
        "conditions": [{"leftValue": "={{ $json.body.x }}", "rightValue": 100,
                        "operator": {"type": "number", "operation": "gt"}}],
        "combinator": "and"}, options={}), **settings}


def test_always_output_data_turns_an_empty_output_into_one_empty_item_that_goes_on() -> None:
    with pytest.raises(Filtered, match="filter 'Only big' kept no items"):
        _run(_chain(_keep_nothing(), _get("Notify", "notify")))
    ctx = _run(_chain(_keep_nothing(alwaysOutputData=True), _get("Notify", "notify")))
    assert ctx.urls == ["https://api.example.test/notify"]
    flow = ctx.n8n_flows[0]
    assert flow.outputs["Only big"] == [[{"json": {}}]]


def test_a_native_python_code_node_keeps_its_python_for_a_person_to_rewrite() -> None:
    # language "python" (Pyodide's) is run by n8n.python_code: tests/unit/test_n8n_code_python.py
    code = _node("Score", "code", 2, language="pythonNative", pythonCode="for item in _items:\n    item['json']['score'] = 1")
    scaffold = build(_chain(code), "chain", {})
    (row,) = [r for r in scaffold.rows if r.node == "Score"]
    assert row.status == "todo" and "Python" in row.why
    assert "item['json']['score'] = 1" in scaffold.source and "its Python:" in scaffold.source

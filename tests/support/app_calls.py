"""Run one scaffolded n8n app node against respx routes: the request is built as the gateway sends it.

``run_node`` scaffolds a two-node workflow (a manual trigger, then the app node), runs the
generated automation with the trigger's items, and sends each ``ctx.call`` the way the provider
gateway prepares it (``queue_core.gateway.prepare``: URL with its query, body bytes, headers)
through httpx, where a test's ``respx`` routes answer. It returns the context (``sent`` holds
each call: step, method, URL, decoded body), the node's output items and the run's error.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from harness.platforms.n8n.definition import Workflow, parse_workflow
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import _OfflineContext
from queue_core.context import Trigger
from queue_core.gateway import prepare
from queue_core.provider import ProviderConfig


class RespxContext(_OfflineContext):
    """An offline context whose calls go out through httpx (answered by respx), as the gateway builds them."""

    def __init__(self, bases: dict[str, str]) -> None:
        super().__init__()
        self.bases = bases
        self.sent: list[tuple[str, str, str, Any]] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        step = kwargs.pop("step")
        request = prepare(ProviderConfig(provider, self.bases[provider]), method, url, json=kwargs.get("json"),
                          params=kwargs.get("params"), headers=kwargs.get("headers"), key="k", data=kwargs.get("data"),
                          files=kwargs.get("files"))
        body = None if request.body is None else request.json if "files" in kwargs else (
            request.body.decode() if "data" in kwargs else json.loads(request.body))
        self.sent.append((step, request.method, request.url, body))
        async with httpx.AsyncClient() as client:
            response = await client.request(request.method, request.url, content=request.body,
                                            headers=dict(request.headers))
        response.raise_for_status()
        return response


def workflow_of(node: dict[str, Any]) -> Workflow:
    """Return a workflow of a manual trigger feeding ``node`` (an export's node object, without position)."""
    document = {"name": "app", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"position": [200, 0], **node}],
        "connections": {"Start": {"main": [[{"node": node["name"], "type": "main", "index": 0}]]}}}
    return parse_workflow(document, "app.json")


def scaffold_node(node: dict[str, Any]) -> tuple[str, str]:
    """Return the node's status and reason ("translated" or "todo") and the module's source."""
    scaffold = build(workflow_of(node), "app-node", {})
    row = next(r for r in scaffold.rows if r.node == node["name"])
    return f"{row.status}: {row.why}", scaffold.source


def run_node(node: dict[str, Any], items: list[dict[str, Any]], bases: dict[str, str]) -> tuple[
        RespxContext, list[dict[str, Any]] | None, Exception | None]:
    """Scaffold and run ``node`` over ``items`` (each an item's json); return the context, its output and error."""
    status, source = scaffold_node(node)
    assert status.startswith("translated"), status
    namespace: dict[str, Any] = {}
    exec(compile(source.replace("@automation('app-node', version=1)", ""), "gen", "exec"), namespace)
    ctx = RespxContext(bases)
    error = None
    try:
        asyncio.run(namespace["app_node"](ctx, Trigger("t", None, {}, items, "test")))
    except Exception as exc:  # the run's failure is what some tests assert
        error = exc
    flow = ctx.n8n_flows[-1] if ctx.n8n_flows else None
    outputs = flow.outputs.get(node["name"]) if flow is not None else None
    return ctx, ([item["json"] for item in outputs[0]] if outputs else None), error

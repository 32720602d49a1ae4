"""Slack v2.5 user.lookupByEmail (described from n8n 2.x): one GET per item, Slack's "ok": false as n8n reads it."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core import registry as registry_module
from queue_core.context import Trigger
from queue_core.errors import NodeFailed
from queue_core.registry import Registry

USERS = {"ana@example.com": {"id": "U1", "name": "ana", "profile": {"email": "ana@example.com"}}}


class _Slack:
    """A context answering users.lookupByEmail as Slack does (an unknown address: 200 with ok false)."""

    def __init__(self) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.calls: list[tuple[str, str, str, Any]] = []

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, params: Any = None, **_: Any) -> httpx.Response:
        self.calls.append((provider, method, url, params))
        user = USERS.get(params["email"])
        body = {"ok": True, "user": user} if user else {"ok": False, "error": "users_not_found"}
        return httpx.Response(200, json=body)


def _scaffold(tmp_path: Path, **node: Any) -> Any:
    source = "return " + json.dumps([{"json": {"email": e}} for e in ("ana@example.com", "zed@example.com")]) + ";"
    workflow = {"name": "s", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Emails", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [1, 0], "parameters": {"jsCode": source}},
        {"name": "Look up", "type": "n8n-nodes-base.slack", "typeVersion": 2.5, "position": [2, 0],
         "parameters": {"resource": "user", "operation": "lookupByEmail", "email": "={{ $json.email }}"}, **node}],
        "connections": {"Start": {"main": [[{"node": "Emails", "type": "main", "index": 0}]]},
                        "Emails": {"main": [[{"node": "Look up", "type": "main", "index": 0}]]}}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="s", into=tmp_path / "a", force=True)
    return written


def _run(written: Any, ctx: _Slack) -> dict[str, Any]:
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        exec(compile(written.path.read_text(encoding="utf-8"), str(written.path), "exec"), {})
        function = registry_module.default_registry.get("s").fn
    finally:
        registry_module.default_registry = saved
    asyncio.run(function(ctx, Trigger("s", None, {}, {}, "test")))
    return {k: [[i["json"] for i in out] for out in v] for k, v in ctx.n8n_flows[0].outputs.items()}


def test_on_error_continue_outputs_the_user_of_a_known_address_and_n8ns_error_for_an_unknown_one(tmp_path: Path) -> None:
    written = _scaffold(tmp_path, onError="continueRegularOutput")
    assert {r.node: r.status for r in written.scaffold.rows}["Look up"] == "translated"
    ctx = _Slack()
    outputs = _run(written, ctx)
    assert outputs["Look up"] == [[USERS["ana@example.com"], {"error": 'Slack error response: "users_not_found"'}]]
    assert [c[1:] for c in ctx.calls] == [("GET", "https://slack.com/api/users.lookupByEmail", {"email": e})
                                          for e in ("ana@example.com", "zed@example.com")]


def test_without_on_error_an_unknown_address_fails_the_node_naming_it(tmp_path: Path) -> None:
    written = _scaffold(tmp_path)
    with pytest.raises(NodeFailed, match='^Look up: Slack error response: "users_not_found"$'):
        _run(written, _Slack())


def test_an_older_slack_has_no_lookup_by_email_and_an_error_output_is_a_todo(tmp_path: Path) -> None:
    rows = {r.node: r.why for r in _scaffold(tmp_path, typeVersion=2.2).scaffold.rows}
    assert "has no user.lookupByEmail operation" in rows["Look up"]
    rows = {r.node: r.why for r in _scaffold(tmp_path, onError="continueErrorOutput").scaffold.rows}
    assert "On Error 'error_output' is not translated (stop and continue are)" in rows["Look up"]

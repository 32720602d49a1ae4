"""A source with respond_timeout_s holds the webhook request until its automation answers (ctx.respond),
as n8n's Respond to Webhook does; scaffolded Respond to Webhook nodes and "When Last Node Finishes" answer so."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import queue_core.registry as reg
from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.errors import ConfigError
from queue_core.registry import Registry
from tests.support.control import app_for, client, sources
from tests.support.scaffolded import registry_of, worker_running

SECRET = "shared-bearer-secret"
ENV = {"BEARER": SECRET}


def _registry() -> Registry:
    registry = Registry()

    @reg.automation("answers", registry=registry)
    async def answers(ctx, trigger):  # noqa: ANN001, ANN202
        await ctx.respond(201, {"hello": trigger.body["name"]}, {"X-Trace": "t-1", "Content-Length": "999"})
        await ctx.respond(500, {"ignored": True})  # only the first answer counts, as in n8n

    @reg.automation("silent", registry=registry)
    async def silent(ctx, trigger):  # noqa: ANN001, ANN202
        return None

    @reg.automation("breaks", registry=registry)
    async def breaks(ctx, trigger):  # noqa: ANN001, ANN202
        raise reg_terminal("no answer")

    @reg.automation("slow", registry=registry)
    async def slow(ctx, trigger):  # noqa: ANN001, ANN202
        await asyncio.sleep(3)

    return registry


def reg_terminal(message: str) -> Exception:
    from queue_core.errors import TerminalError

    return TerminalError(message)


async def _post(pool: Any, registry: Registry, config: dict[str, Any], body: dict[str, Any],
                delivery: str = "d-1") -> Any:
    app = app_for(pool, sources=sources(config, ENV), registry=registry)
    async with worker_running(pool, registry), client(app) as c:
        return await c.post(f"/hooks/{next(iter(config))}", content=json.dumps(body).encode(),
                            headers={"content-type": "application/json", "authorization": f"Bearer {SECRET}",
                                     "idempotency-key": delivery})


def _held(automation: str, timeout: int = 10) -> dict[str, Any]:
    return {"src": {"scheme": "bearer", "secret_env": "BEARER", "automations": [automation],
                    "respond_timeout_s": timeout}}


async def test_a_held_request_gets_the_automations_first_answer(pool) -> None:
    response = await _post(pool, _registry(), _held("answers"), {"name": "ada"})
    assert response.status_code == 201 and response.json() == {"hello": "ada"}
    assert response.headers["x-trace"] == "t-1" and response.headers["content-type"] == "application/json"
    assert response.headers["content-length"] == str(len(response.content))  # the server's, not the job's


async def test_a_repeated_delivery_gets_the_same_answer_again(pool) -> None:
    registry = _registry()
    first = await _post(pool, registry, _held("answers"), {"name": "ada"})
    again = await _post(pool, registry, _held("answers"), {"name": "ada"})
    assert first.json() == again.json() == {"hello": "ada"} and again.status_code == 201


@pytest.mark.parametrize(("automation", "timeout", "status", "reply"), [
    ("silent", 10, 202, "none"), ("slow", 1, 202, "timed out"), ("breaks", 10, 500, None)])
async def test_a_job_that_does_not_answer_says_why(pool, automation: str, timeout: int, status: int,
                                                  reply: str | None) -> None:
    response = await _post(pool, _registry(), _held(automation, timeout), {"name": "ada"})
    assert response.status_code == status
    if reply is not None:
        assert response.json()["reply"] == reply and response.json()["jobs"][0]["automation"] == automation
    else:
        assert "failed before it answered" in response.json()["detail"]


async def test_a_source_without_respond_timeout_answers_at_once(pool) -> None:
    config = {"src": {"scheme": "bearer", "secret_env": "BEARER", "automations": ["answers"]}}
    response = await _post(pool, _registry(), config, {"name": "ada"})
    assert response.status_code == 202 and response.json().get("reply") is None


def test_a_held_source_names_exactly_one_automation_and_a_bounded_timeout() -> None:
    with pytest.raises(ConfigError, match="respond_timeout_s.*exactly one"):
        sources({"src": {"scheme": "bearer", "secret_env": "BEARER", "automations": ["a", "b"],
                         "respond_timeout_s": 5}}, ENV)
    with pytest.raises(ConfigError, match="from 0"):
        sources({"src": {"scheme": "bearer", "secret_env": "BEARER", "automations": ["a"],
                         "respond_timeout_s": 301}}, ENV)


def _scaffolded(tmp_path: Path, workflow: dict[str, Any]) -> Registry:
    (tmp_path / "wf").mkdir()
    (tmp_path / "wf" / "hook.json").write_text(json.dumps(workflow))
    into = tmp_path / "automations"
    scaffold_n8n(tmp_path / "wf" / "hook.json", automation="hook", into=into)
    return registry_of([into / "hook.py"], "reply")


def _webhook(mode: str, **extra: Any) -> dict[str, Any]:
    return {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": [0, 0],
            "parameters": {"path": "in", "httpMethod": "POST", "responseMode": mode, **extra}}


async def test_a_scaffolded_respond_to_webhook_node_answers_the_held_request(pool, tmp_path: Path) -> None:
    answer = {"name": "Answer", "type": "n8n-nodes-base.respondToWebhook", "typeVersion": 1.1, "position": [200, 0],
              "parameters": {"respondWith": "json", "responseBody": "={{ JSON.stringify({ got: $json.body.name }) }}",
                             "options": {"responseCode": 202, "responseHeaders": {"entries": [
                                 {"name": "X-From", "value": "n8n"}]}}}}
    registry = _scaffolded(tmp_path, {"name": "Hook", "nodes": [_webhook("responseNode"), answer],
                                      "connections": {"Hook": {"main": [[{"node": "Answer", "type": "main",
                                                                          "index": 0}]]}}})
    response = await _post(pool, registry, _held("hook"), {"name": "ada"})
    assert response.status_code == 202 and response.json() == {"got": "ada"} and response.headers["x-from"] == "n8n"


async def test_a_scaffolded_webhook_answering_when_the_last_node_finishes_sends_its_first_item(pool, tmp_path) -> None:
    mark = {"name": "Mark", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [200, 0], "parameters": {
        "assignments": {"assignments": [{"id": "a", "name": "seen", "value": "={{ $json.body.name }}", "type": "string"}]}}}
    registry = _scaffolded(tmp_path, {"name": "Hook", "nodes": [_webhook("lastNode", options={"responseCode": {
        "values": {"responseCode": "customCode", "customCode": 203}}}), mark],
                                      "connections": {"Hook": {"main": [[{"node": "Mark", "type": "main", "index": 0}]]}}})
    response = await _post(pool, registry, _held("hook"), {"name": "bob"})
    assert response.status_code == 203 and response.json() == {"seen": "bob"}

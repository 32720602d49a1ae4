"""A scaffolded workflow of AI nodes replayed in shadow through the real queue: each model call is an intent
answered with the legacy node's recorded output, which the node then outputs."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus
from harness.shadow.cases import Case, ReplayOptions, shadow_providers
from harness.shadow.replay import ShadowReplayer
from queue_core import registry as registry_module
from queue_core.provider import ProviderConfig
from queue_core.registry import Registry

LC = "@n8n/n8n-nodes-langchain."
RL = {"__rl": True, "mode": "list"}


def _to(node: str, kind: str = "main") -> list[dict[str, Any]]:
    return [{"node": node, "type": kind, "index": 0}]


WORKFLOW = {"name": "Mail triage", "nodes": [
    {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
    {"name": "Draft", "type": f"{LC}openAi", "typeVersion": 1.8, "position": [200, 0], "parameters": {
        "modelId": {**RL, "value": "gpt-4o"}, "jsonOutput": True,
        "messages": {"values": [{"content": "=Draft a reply to: {{ $json.text }}"}]}, "options": {}}},
    {"name": "Agent", "type": f"{LC}agent", "typeVersion": 2.1, "position": [400, 0], "parameters": {
        "promptType": "define", "text": "={{ $json.message.content.subject }}", "options": {}}},
    {"name": "Model", "type": f"{LC}lmChatOpenAi", "typeVersion": 1.2, "position": [400, 200], "parameters": {
        "model": {**RL, "value": "gpt-4.1"}, "options": {}}},
    {"name": "Weather", "type": f"{LC}toolHttpRequest", "typeVersion": 1.1, "position": [500, 200], "parameters": {
        "toolDescription": "Reads the weather", "url": "https://weather.example.test/now"}}],
    "connections": {"Start": {"main": [_to("Draft")]}, "Draft": {"main": [_to("Agent")]},
                    "Model": {"ai_languageModel": [_to("Agent", "ai_languageModel")]},
                    "Weather": {"ai_tool": [_to("Agent", "ai_tool")]}}}
DRAFT = {"index": 0, "message": {"role": "assistant", "content": {"subject": "Invoice", "message": "Attached."}},
         "logprobs": None, "finish_reason": "stop"}


def _registry() -> Registry:
    scaffold = build(parse_workflow(WORKFLOW, "triage.json"), "mail-triage", {})
    assert scaffold.todo == 0, scaffold.rows
    assert scaffold.steps == {"Start": "", "Draft": "draft", "Agent": "agent", "Model": "", "Weather": ""}
    saved = registry_module.default_registry
    registry_module.default_registry = registry = Registry()
    try:
        exec(compile(scaffold.source, "mail_triage.py", "exec"), {})
    finally:
        registry_module.default_registry = saved
    return registry


def test_each_model_call_is_an_intent_answered_with_the_nodes_recorded_output(fresh_db_url: str) -> None:
    trigger = RecordedTrigger("t1", datetime(2024, 6, 3, 9, 12, tzinfo=UTC), {}, {"text": "Send the invoice"},
                              "recorder")
    legacy = LegacyTrace("t1", TraceStatus.SUCCEEDED, Platform.N8N, path=["draft", "agent"],
                         outputs={"draft": DRAFT, "agent": {"output": "It is sunny; invoice attached."}})
    case = Case(1, "mail-triage", trigger, legacy)

    async def go() -> list[Any]:
        providers = shadow_providers({"openai": ProviderConfig("openai", base_url="https://api.openai.com")},
                                     ["openai", "weather-example-test"])
        async with ShadowReplayer(fresh_db_url, _registry(), providers,
                                  ReplayOptions(workers=1, concurrency=1)) as replayer:
            return await replayer.replay([case])

    (result,) = asyncio.run(go())
    assert result.status == "succeeded", result.error
    nodes = result.trace["nodes"]
    assert nodes["Draft"] == [[DRAFT]]
    assert nodes["Agent"] == [[{"output": "It is sunny; invoice attached."}]]
    calls = {c["step"]: c for c in result.trace["calls"]}
    assert calls["draft"]["body"]["messages"][-1] == {"content": "Draft a reply to: Send the invoice", "role": "user"}
    assert calls["agent"]["body"]["messages"] == [{"role": "user", "content": "Invoice"}]
    assert calls["agent"]["body"]["tools"][0]["function"]["name"] == "Weather"
    assert not any(step.startswith("agent:") for step in calls)  # the recorded output ends the loop: no tool runs

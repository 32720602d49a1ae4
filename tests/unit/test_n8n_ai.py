"""n8n's AI nodes as REST calls: request bodies, output shapes, the tool loop, shadow answers, sub-node accounting."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate import scaffold_n8n
from queue_core import registry as registry_module
from queue_core.compat import n8n
from queue_core.context import Trigger
from queue_core.errors import NodeFailed
from queue_core.registry import Registry

LC = "@n8n/n8n-nodes-langchain."
CHAT = "https://api.openai.com/v1/chat/completions"


def _completion(content: str | None, tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "c", "object": "chat.completion", "choices": [
        {"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls" if tool_calls else "stop"}]}


class _Ctx:
    """The part of a Context the AI runtime uses: ``call`` over httpx (respx answers), ``mode``."""

    def __init__(self, mode: str = "live", recorded: Any = None) -> None:
        self.job_id = uuid.UUID(int=0)
        self.mode, self.recorded = mode, recorded
        self.n8n_flows: list[Any] = []
        self.sent: list[tuple[str, Any, dict[str, Any]]] = []

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None, **kw: Any) -> Any:
        self.sent.append((step, json, kw))
        if self.recorded is not None:  # shadow: the gateway's answer is the legacy output of the step
            return httpx.Response(200, json=self.recorded)
        async with httpx.AsyncClient() as client:
            return await client.request(method, url, json=json, **kw)


def test_openai_message_body_renames_options_and_asks_for_json_with_a_first_system_message() -> None:
    body = n8n.ai.openai_message_body("gpt-4o", [{"content": "hi", "role": "user"}],
                                      {"maxTokens": 50, "topP": 0.9, "temperature": 0.3, "maxToolsIterations": 15},
                                      json_output=True)
    assert body == {"model": "gpt-4o", "response_format": {"type": "json_object"}, "max_completion_tokens": 50,
                    "top_p": 0.9, "temperature": 0.3,
                    "messages": [{"role": "system", "content": n8n.ai.JSON_SYSTEM}, {"content": "hi", "role": "user"}]}
    assert "response_format" not in n8n.ai.openai_message_body("m", [], {}, json_output=False)


def test_openai_message_items_are_the_choices_with_json_content_parsed_or_the_whole_answer() -> None:
    answer = _completion('{"subject": "Re"}')
    assert n8n.ai.openai_message_items(answer, json_output=True, simplify=True) == [
        {"json": {"index": 0, "message": {"role": "assistant", "content": {"subject": "Re"}}, "logprobs": None,
                  "finish_reason": "stop"}}]
    assert n8n.ai.openai_message_items(_completion("not json"), json_output=True, simplify=True)[0][
        "json"]["message"]["content"] == "not json"
    assert n8n.ai.openai_message_items(answer, json_output=False, simplify=False) == [{"json": answer}]


def test_openai_v2_response_body_drops_empty_fields_and_json_object_adds_the_system_input() -> None:
    body = n8n.ai.openai_response_body("gpt-4o", [{"role": "system", "content": "go"}],
                                       {"textFormat": {"textOptions": {"type": "json_object"}}})
    assert body == {"model": "gpt-4o", "parallel_tool_calls": True, "store": True, "background": False,
                    "text": {"format": {"type": "json_object"}},
                    "input": [{"role": "system", "content": [{"type": "input_text", "text": n8n.ai.JSON_SYSTEM}]},
                              {"role": "system", "content": [{"type": "input_text", "text": "go"}]}]}
    answer = {"object": "response", "output": [
        {"type": "reasoning"}, {"type": "message", "content": [{"type": "output_text", "text": '{"a": 1}'}]}]}
    assert n8n.ai.openai_response_items(answer, simplify=True, json_output=True) == [
        {"json": {"output": [{"type": "message", "content": [{"type": "output_text", "text": {"a": 1}}]}]}}]


def test_anthropic_and_gemini_bodies_carry_n8ns_defaults() -> None:
    assert n8n.ai.anthropic_body("claude", [{"content": "x", "role": "user"}], {"system": "be brief"}) == {
        "model": "claude", "messages": [{"content": "x", "role": "user"}], "tools": [], "max_tokens": 1024,
        "system": "be brief"}
    assert n8n.ai.gemini_body([{"content": "x", "role": "user"}], {"systemMessage": "s", "temperature": 0.1},
                              json_output=True) == {
        "tools": [], "contents": [{"parts": [{"text": "x"}], "role": "user"}],
        "generationConfig": {"temperature": 0.1, "responseMimeType": "application/json"},
        "systemInstruction": {"parts": [{"text": "s"}]}}
    answer = {"type": "message", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert n8n.ai.anthropic_items(answer, {"includeMergedResponse": True}, simplify=True) == [
        {"json": {"content": answer["content"], "merged_response": "ab"}}]


def test_a_chains_answer_is_its_trimmed_text_or_its_parsed_json() -> None:
    assert n8n.ai_chain.chain_text("  hi \n", json_output=False) == {"text": "hi"}
    assert n8n.ai_chain.chain_text('```json\n{"a": 1}\n```', json_output=True) == {"a": 1}
    assert n8n.ai_chain.chain_text("[1, 2]", json_output=True) == {"data": [1, 2]}
    assert n8n.ai_chain.chain_messages([{"type": "AIMessagePromptTemplate", "message": "m"}], "p") == [
        {"role": "assistant", "content": "m"}, {"role": "user", "content": "p"}]
    assert n8n.ai_chain.chat_body("gpt", [], {"temperature": 0.2, "maxTokens": -1, "responseFormat": "json_object"}) == {
        "model": "gpt", "temperature": 0.2, "stream": False, "response_format": {"type": "json_object"},
        "messages": []}


@respx.mock
def test_the_tool_loop_runs_each_tool_call_and_sends_its_result_back_until_an_answer() -> None:
    route = respx.post(CHAT).mock(side_effect=[
        httpx.Response(200, json=_completion(None, [{"id": "t1", "type": "function",
                                                     "function": {"name": "lookup", "arguments": '{"input": "ada"}'}}])),
        httpx.Response(200, json=_completion("Ada is 36."))])
    asked: list[Any] = []

    async def lookup(arg: Any) -> Any:
        asked.append(arg)
        return {"age": 36}

    ctx = _Ctx()
    request = {"model": "m", "messages": [{"role": "user", "content": "How old is Ada?"}], "tools": [{"type": "function"}]}
    text, recorded = asyncio.run(n8n.ai_chain.tool_loop(ctx, "Agent", request, provider="openai", url=CHAT, step="agent",
                                                        tools={"lookup": lookup}, max_iterations=10))
    assert (text, recorded, asked) == ("Ada is 36.", None, ["ada"])
    second = json.loads(route.calls[1].request.content)["messages"]
    assert second[1]["tool_calls"][0]["id"] == "t1"
    assert second[2] == {"role": "tool", "content": '{"age": 36}', "tool_call_id": "t1"}
    assert [s[0] for s in ctx.sent] == ["agent", "agent"]  # one step, memoised by occurrence


@respx.mock
def test_the_tool_loop_stops_at_the_iteration_limit_with_n8ns_words() -> None:
    respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion(None, [
        {"id": "t", "type": "function", "function": {"name": "nope", "arguments": "{}"}}])))
    text, _ = asyncio.run(n8n.ai_chain.tool_loop(_Ctx(), "A", {"messages": []}, provider="p", url=CHAT, step="s",
                                                 tools={}, max_iterations=2))
    assert text == n8n.ai_chain.MAX_ITERATIONS_OUTPUT


def test_in_shadow_a_recorded_node_output_is_the_items_and_live_it_fails_the_node() -> None:
    recorded = [{"output": "first"}, {"output": "second"}]
    got, items = n8n.ai.answer(_Ctx("shadow"), httpx.Response(200, json=recorded), "chat", 1, "Agent")
    assert (got, items) == (None, [{"json": {"output": "second"}}])
    with pytest.raises(NodeFailed, match="Agent"):
        n8n.ai.answer(_Ctx("live"), httpx.Response(200, json={"output": "x"}), "chat", 0, "Agent")


def _workflow(tmp_path: Path, nodes: list[dict[str, Any]], connections: dict[str, Any]) -> Any:
    start = {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0],
             "parameters": {}}
    data = {"name": "ai", "nodes": [start, *nodes],
            "connections": {"Start": {"main": [[{"node": nodes[0]["name"], "type": "main", "index": 0}]]},
                            **connections}}
    path = tmp_path / "ai.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="ai", into=tmp_path / "a", force=True)
    return written


def _run(written: Any, ctx: _Ctx, body: Any = None) -> dict[str, Any]:
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        exec(compile(written.path.read_text(encoding="utf-8"), str(written.path), "exec"), {})
        function = registry_module.default_registry.get("ai").fn
    finally:
        registry_module.default_registry = saved
    asyncio.run(function(ctx, Trigger("ai", None, {}, body, "test")))
    return {k: [[i["json"] for i in out] for out in v] for k, v in ctx.n8n_flows[0].outputs.items()}


def _model(name: str = "Model", target: str = "Chain") -> tuple[dict[str, Any], dict[str, Any]]:
    node = {"name": name, "type": f"{LC}lmChatOpenAi", "typeVersion": 1.2, "position": [0, 1],
            "parameters": {"model": {"__rl": True, "value": "gpt-4.1", "mode": "list"}, "options": {"temperature": 0}}}
    return node, {name: {"ai_languageModel": [[{"node": target, "type": "ai_languageModel", "index": 0}]]}}


@respx.mock
def test_a_basic_llm_chain_and_its_chat_model_translate_together_and_run_as_one_chat_call(tmp_path: Path) -> None:
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion("  Paris. ")))
    model, wiring = _model()
    chain = {"name": "Chain", "type": f"{LC}chainLlm", "typeVersion": 1.7, "position": [1, 0],
             "parameters": {"promptType": "define", "text": "=Capital of {{ $json.country }}?",
                            "messages": {"messageValues": [{"message": "Answer in one word."}]}}}
    written = _workflow(tmp_path, [chain, model], wiring)
    rows = {r.node: (r.status, r.why) for r in written.scaffold.rows}
    assert rows["Chain"][0] == rows["Model"][0] == "translated" and "sub-node (languageModel)" in rows["Model"][1]
    assert written.scaffold.steps["Model"] == ""  # its runs in n8n's history are the chain's call: no step
    outputs = _run(written, _Ctx(), {"country": "France"})
    assert outputs["Chain"] == [[{"text": "Paris."}]]
    assert json.loads(route.calls[0].request.content) == {"model": "gpt-4.1", "temperature": 0, "stream": False,
                                                          "messages": [{"role": "system", "content": "Answer in one word."},
                                                                       {"role": "user", "content": "Capital of France?"}]}


def test_a_root_with_a_memory_other_than_the_simple_memory_is_a_todo_and_so_are_its_sub_nodes(tmp_path: Path) -> None:
    model, wiring = _model(target="Agent")
    memory = {"name": "Memory", "type": f"{LC}memoryPostgresChat", "typeVersion": 1.3, "position": [0, 2],
              "parameters": {"contextWindowLength": 5}}
    agent = {"name": "Agent", "type": f"{LC}agent", "typeVersion": 2.1, "position": [1, 0],
             "parameters": {"promptType": "define", "text": "={{ $json.q }}"}}
    wiring["Memory"] = {"ai_memory": [[{"node": "Agent", "type": "ai_memory", "index": 0}]]}
    written = _workflow(tmp_path, [agent, model, memory], wiring)
    rows = {r.node: (r.status, r.why) for r in written.scaffold.rows}
    assert [rows[n][0] for n in ("Agent", "Model", "Memory")] == ["todo"] * 3
    assert "the memory memoryPostgresChat is not translated" in rows["Agent"][1]


def test_ai_connections_are_read_as_sub_nodes_and_a_sub_node_of_an_unreached_root_is_not_reached(tmp_path: Path) -> None:
    model, wiring = _model(target="Lonely")
    lonely = {"name": "Lonely", "type": f"{LC}chainLlm", "typeVersion": 1.7, "position": [1, 1], "parameters": {}}
    noop = {"name": "Noop", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "position": [1, 0], "parameters": {}}
    flow = parse_workflow({"name": "w", "nodes": [noop, lonely, model], "connections": wiring}, "w.json")
    assert [(s.source, s.kind, s.target) for s in flow.sub_nodes] == [("Model", "languageModel", "Lonely")]
    written = _workflow(tmp_path, [noop, lonely, model], wiring)
    rows = {r.node: r.status for r in written.scaffold.rows}
    assert rows["Lonely"] == rows["Model"] == "not reached"


@respx.mock
def test_an_openai_message_node_sends_n8ns_body_and_outputs_the_choices(tmp_path: Path) -> None:
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion('{"ok": true}')))
    node = {"name": "Ask", "type": f"{LC}openAi", "typeVersion": 1.8, "position": [1, 0], "parameters": {
        "modelId": {"__rl": True, "value": "gpt-4o", "mode": "list"}, "jsonOutput": True,
        "messages": {"values": [{"content": "=Say {{ $json.word }}"}]}, "options": {"temperature": 0.5}}}
    written = _workflow(tmp_path, [node], {})
    assert {r.node: r.status for r in written.scaffold.rows}["Ask"] == "translated"
    source = written.path.read_text(encoding="utf-8")
    assert "n8n.ai.message(flow, 'Ask'" in source and "json_output=True" in source
    outputs = _run(written, _Ctx(), {"word": "yes"})
    sent = json.loads(route.calls[0].request.content)
    assert sent == {"model": "gpt-4o", "temperature": 0.5, "response_format": {"type": "json_object"},
                    "messages": [{"role": "system", "content": n8n.ai.JSON_SYSTEM}, {"content": "Say yes", "role": "user"}]}
    assert outputs["Ask"] == [[{"index": 0, "message": {"role": "assistant", "content": {"ok": True}}, "logprobs": None,
                                "finish_reason": "stop"}]]


def test_in_shadow_the_generated_node_outputs_the_recorded_output_of_its_step(tmp_path: Path) -> None:
    model, wiring = _model(target="Agent")
    agent = {"name": "Agent", "type": f"{LC}agent", "typeVersion": 2.1, "position": [1, 0],
             "parameters": {"promptType": "define", "text": "={{ $json.q }}"}}
    written = _workflow(tmp_path, [agent, model], wiring)
    assert {r.node: r.status for r in written.scaffold.rows}["Agent"] == "translated"
    ctx = _Ctx("shadow", recorded={"output": "recorded answer"})
    assert _run(written, ctx, {"q": "hi?"})["Agent"] == [[{"output": "recorded answer"}]]
    assert ctx.sent[0][1]["messages"] == [{"role": "user", "content": "hi?"}]  # no system message unless set


def test_the_classifier_prompt_names_the_categories_and_their_schema_and_its_answer_routes_items() -> None:
    system = n8n.ai_chain.classifier_system("Sort into {categories}.", [("Hot", "buy now"), ("Cold", "")],
                                            multi_class=False, fallback="other")
    assert system.startswith("Sort into Hot, Cold.\n\tYou must format your output as a JSON value")
    assert '"Hot":{"type":"boolean","description":"Should be true if the input has category \\"Hot\\" (description: buy now)"}' in system
    assert '"required":["Hot","Cold","fallback"]' in system
    assert system.endswith("only one can be true\n\tIf no categories apply, select the \"fallback\" option.")
    assert n8n.ai_chain.classification('```json\n{"Hot": true, "Cold": false}\n```', ["Hot", "Cold"], "C") == {
        "Hot": True, "Cold": False}
    with pytest.raises(NodeFailed, match="Failed to parse"):
        n8n.ai_chain.classification('{"Hot": true}', ["Hot", "Cold"], "C")


def test_a_gemini_chat_models_body_has_the_system_instruction_apart_and_its_url_names_the_model() -> None:
    messages = n8n.ai_chain.chain_messages([{"message": "Be brief."}, {"type": "AIMessagePromptTemplate",
                                                                       "message": "Sure."}], "Hi")
    assert n8n.ai_chain.gemini_chat_body(messages, {"temperature": 0.2}) == {
        "generationConfig": {"stopSequences": [], "temperature": 0.2}, "safetySettings": [],
        "systemInstruction": {"role": "system", "parts": [{"text": "Be brief."}]},
        "contents": [{"role": "model", "parts": [{"text": "Sure."}]}, {"role": "user", "parts": [{"text": "Hi"}]}]}
    base = "https://generativelanguage.googleapis.com"
    assert n8n.ai_chain.gemini_url(base, "gemini-pro") == n8n.ai_chain.gemini_url(base, "models/gemini-pro") == \
        f"{base}/v1beta/models/gemini-pro:generateContent"

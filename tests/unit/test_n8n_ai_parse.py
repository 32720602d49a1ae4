"""n8n's output parsers and Simple Memory on AI roots: the schema n8n sends, the parsing, the fix call, the window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.ai_parser import parser_schema
from queue_core.compat import _n8n_ai_parse as parse
from queue_core.errors import NodeFailed, ParseFailure
from tests.unit.test_n8n_ai import CHAT, LC, _completion, _Ctx, _model, _run, _workflow

EXAMPLE = '{"subject": "s", "score": 1, "people": [{"name": "n"}], "meta": {"ok": true}}'


def _parser_node(version: float, **parameters: Any) -> Any:
    node = {"name": "P", "type": f"{LC}outputParserStructured", "typeVersion": version, "position": [0, 0],
            "parameters": parameters}
    return parse_workflow({"name": "w", "nodes": [node], "connections": {}}, "w.json").nodes["P"]


def test_a_json_example_gives_n8ns_schema_every_field_required_from_v1_3_wrapped_as_output() -> None:
    strict = parser_schema(_parser_node(1.3, jsonSchemaExample=EXAMPLE))
    assert strict["required"] == ["output"] and strict["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert strict["properties"]["output"] == {
        "type": "object", "properties": {
            "subject": {"type": "string"}, "score": {"type": "number"},
            "people": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}},
                                                  "required": ["name"], "additionalProperties": False}},
            "meta": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                     "additionalProperties": False}},
        "required": ["subject", "score", "people", "meta"], "additionalProperties": False}
    loose = parser_schema(_parser_node(1.2, jsonSchemaExample='{"a": "x"}'))
    assert "required" not in loose and "required" not in loose["properties"]["output"]


def test_a_manual_schema_is_written_back_as_zod_writes_it_and_v1_1_reads_json_schema() -> None:
    manual = json.dumps({"type": "object", "properties": {"s": {"description": "d", "type": "string"},
                                                          "n": {"type": "integer"}}, "required": ["s", "gone"]})
    got = parser_schema(_parser_node(1.2, schemaType="manual", inputSchema=manual))["properties"]["output"]
    assert got == {"type": "object", "properties": {"s": {"type": "string", "description": "d"},
                                                    "n": {"type": "integer"}},
                   "required": ["s"], "additionalProperties": False}
    default = parser_schema(_parser_node(1.1))["properties"]["output"]  # v1.1's default jsonSchema
    assert list(default["properties"]) == ["state", "cities"]


@pytest.mark.parametrize(("version", "parameters", "words"), [
    (1, {}, "v1"), (1.3, {"jsonSchemaExample": '{"a": null}'}, "null"),
    (1.3, {"jsonSchemaExample": '{"a": []}'}, "empty"), (1.3, {"jsonSchemaExample": "={{ $json.x }}"}, "expression"),
    (1.2, {"schemaType": "manual", "inputSchema": '{"type": "object", "oneOf": []}'}, "oneOf")])
def test_schemas_whose_form_is_not_proved_are_untranslatable_naming_why(version: float, parameters: dict[str, Any],
                                                                       words: str) -> None:
    with pytest.raises(Untranslatable, match=words):
        parser_schema(_parser_node(version, **parameters))


SCHEMA = {"type": "object", "properties": {"output": {"type": "object", "properties": {
    "subject": {"type": "string"}, "n": {"type": "integer"}}, "required": ["subject"],
    "additionalProperties": False}}, "required": ["output"], "additionalProperties": False}


def test_parsing_takes_the_fenced_json_drops_unknown_keys_and_unwraps_a_doubled_output() -> None:
    text = 'Sure:\n```json\n{"output": {"subject": "a", "extra": 1}}\n```'
    assert parse.parse(text, SCHEMA) == {"output": {"subject": "a"}}
    loose = {"type": "object", "properties": {"output": {}}}
    assert parse.parse('{"output": {"output": {"x": 1}}}', loose) == {"output": {"x": 1}}


@pytest.mark.parametrize(("text", "message"), [  # V8's JSON.parse messages (node 20)
    ("I cannot answer in JSON.", "Unexpected token 'I', \"I cannot a\"... is not valid JSON"),
    ("Sure", "Unexpected token 'S', \"Sure\" is not valid JSON"),
    ('{"a": 1', "Expected ',' or '}' after property value in JSON at position 7"),
    ("[1 2]", "Expected ',' or ']' after array element in JSON at position 3"),
    ('{"a":1}x', "Unexpected non-whitespace character after JSON at position 7"),
    ("{", "Expected property name or '}' in JSON at position 1"),
    ('{"a":tru}', "Unexpected token '}', \"{\"a\":tru}\" is not valid JSON"),
    ('{"aaaaaaaaaaaaaaaaaaaa": 1, "bbbbbbbbbbbbbbb": x}', "Unexpected token 'x', ...\"bbbbbbb\": x}\" is not valid JSON"),
    ("", "Unexpected end of JSON input")])
def test_a_failed_parse_says_what_javascript_says(text: str, message: str) -> None:
    with pytest.raises(ParseFailure) as info:
        parse.parse(text, SCHEMA)
    assert str(info.value) == message


def test_a_schema_mismatch_is_zods_issue_list() -> None:
    with pytest.raises(ParseFailure) as info:
        parse.parse('{"output": {"n": 1.5}}', SCHEMA)
    assert json.loads(str(info.value)) == [
        {"code": "invalid_type", "expected": "string", "received": "undefined", "path": ["output", "subject"],
         "message": "Required"},
        {"code": "invalid_type", "expected": "integer", "received": "float", "message": "Expected integer, received float",
         "path": ["output", "n"]}]


def test_the_fix_prompt_fills_its_three_values_and_reads_doubled_braces_as_braces() -> None:
    assert parse.fix_prompt("{{x}} {instructions}|{completion}|{error}", instructions="I", completion="C",
                            error="E") == "{x} I|C|E"


FIX = {"provider": "openai", "url": CHAT, "step": "chain:fix", "prompt": parse.FIX_PROMPT,
       "body": lambda prompt: {"model": "m", "messages": [{"role": "user", "content": prompt}]}}


@respx.mock
def test_auto_fixing_asks_the_fixing_model_once_with_the_error_and_parses_its_answer() -> None:
    import asyncio

    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion('{"output": {"subject": "ok"}}')))
    got = asyncio.run(parse.structured(_Ctx(), "Chain", "no JSON here", {"schema": SCHEMA, "fix": FIX}))
    assert got == {"output": {"subject": "ok"}}
    sent = json.loads(route.calls[0].request.content)["messages"][0]["content"]
    assert "Completion:\n--------------\nno JSON here\n" in sent
    assert "Unexpected token 'o', \"no JSON here\" is not valid JSON\n\nTroubleshooting URL: " in sent
    route.mock(return_value=httpx.Response(200, json=_completion("still not")))
    with pytest.raises(NodeFailed, match="Model output doesn't fit required format"):
        asyncio.run(parse.structured(_Ctx(), "Chain", "no JSON here", {"schema": SCHEMA, "fix": FIX}))
    with pytest.raises(NodeFailed, match="Model output doesn't fit required format"):
        asyncio.run(parse.structured(_Ctx(), "Chain", "no JSON", {"schema": SCHEMA}))


def _parser_wiring(target: str) -> tuple[dict[str, Any], dict[str, Any]]:
    node = {"name": "Parser", "type": f"{LC}outputParserStructured", "typeVersion": 1.3, "position": [0, 3],
            "parameters": {"jsonSchemaExample": '{"subject": "s"}'}}
    return node, {"Parser": {"ai_outputParser": [[{"node": target, "type": "ai_outputParser", "index": 0}]]}}


@respx.mock
def test_a_chain_with_a_parser_adds_the_instructions_to_its_prompt_and_outputs_the_parsed_object(tmp_path: Path) -> None:
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion('{"output": {"subject": "Hi"}}')))
    model, wiring = _model()
    parser, more = _parser_wiring("Chain")
    chain = {"name": "Chain", "type": f"{LC}chainLlm", "typeVersion": 1.7, "position": [1, 0],
             "parameters": {"promptType": "define", "text": "=Mail {{ $json.n }}", "hasOutputParser": True}}
    written = _workflow(tmp_path, [chain, model, parser], {**wiring, **more})
    assert {r.node: r.status for r in written.scaffold.rows}["Parser"] == "translated"
    assert _run(written, _Ctx(), {"n": 1})["Chain"] == [[{"output": {"subject": "Hi"}}]]
    prompt = json.loads(route.calls[0].request.content)["messages"][-1]["content"]
    assert prompt.startswith("Mail 1\nYou must format your output as a JSON value")
    assert prompt.endswith('```json\n{"type":"object","properties":{"output":{"type":"object","properties":{"subject":'
                           '{"type":"string"}},"required":["subject"],"additionalProperties":false}},"required":'
                           '["output"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}'
                           '\n```\n')


@respx.mock
def test_an_agent_with_a_parser_offers_its_format_tool_and_outputs_the_tools_arguments(tmp_path: Path) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "format_final_json_response",
                                                          "arguments": '{"output": {"subject": "Yo", "x": 2}}'}}
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion(None, [call])))
    model, wiring = _model(target="Agent")
    parser, more = _parser_wiring("Agent")
    agent = {"name": "Agent", "type": f"{LC}agent", "typeVersion": 2.2, "position": [1, 0], "parameters": {
        "promptType": "define", "text": "={{ $json.q }}", "hasOutputParser": True, "options": {"systemMessage": "Hi"}}}
    written = _workflow(tmp_path, [agent, model, parser], {**wiring, **more})
    assert _run(written, _Ctx(), {"q": "?"})["Agent"] == [[{"output": {"subject": "Yo"}}]]
    body = json.loads(route.calls[0].request.content)
    assert [t["function"]["name"] for t in body["tools"]] == ["format_final_json_response"]
    assert body["messages"][0] == {"role": "system", "content": "Hi\n\n" + parse.AGENT_INSTRUCTIONS}
    assert len(route.calls) == 1, "a call of the format tool ends the loop"


@respx.mock
def test_an_agents_simple_memory_puts_the_sessions_last_turns_before_the_prompt(tmp_path: Path) -> None:
    route = respx.post(CHAT).mock(side_effect=[httpx.Response(200, json=_completion(f"answer {n}")) for n in range(3)])
    model, wiring = _model(target="Agent")
    memory = {"name": "Memory", "type": f"{LC}memoryBufferWindow", "typeVersion": 1.3, "position": [0, 2],
              "parameters": {"sessionIdType": "customKey", "sessionKey": "={{ $json.user }}", "contextWindowLength": 1}}
    wiring["Memory"] = {"ai_memory": [[{"node": "Agent", "type": "ai_memory", "index": 0}]]}
    code = {"name": "Items", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [1, 0], "parameters": {
        "jsCode": "return [{json: {user: 'u', q: 'a'}}, {json: {user: 'v', q: 'b'}}, {json: {user: 'u', q: 'c'}}]"}}
    agent = {"name": "Agent", "type": f"{LC}agent", "typeVersion": 2.2, "position": [2, 0],
             "parameters": {"promptType": "define", "text": "={{ $json.q }}"}}
    wiring["Items"] = {"main": [[{"node": "Agent", "type": "main", "index": 0}]]}
    written = _workflow(tmp_path, [code, agent, model, memory], wiring)
    assert {r.node: r.status for r in written.scaffold.rows}["Memory"] == "translated"
    _run(written, _Ctx())
    sent = [json.loads(c.request.content)["messages"] for c in route.calls]
    assert sent[0] == [{"role": "user", "content": "a"}]
    assert sent[2] == [{"role": "user", "content": "b"}, {"role": "assistant", "content": "answer 1"},
                       {"role": "user", "content": "c"}], "one session (the first item's, as n8n), a window of 1"


@respx.mock
def test_the_wikipedia_tool_searches_reads_the_first_hits_and_joins_their_extracts() -> None:
    import asyncio

    from queue_core.compat._n8n_ai_tools import search_params, wikipedia

    assert search_params([("q", "a b&~*")]) == "q=a+b%26%7E*"  # as URLSearchParams writes it
    search = respx.get("https://en.wikipedia.org/w/api.php", params={"list": "search"}).mock(
        return_value=httpx.Response(200, json={"query": {"search": [{"title": f"T{n}"} for n in range(5)]}}))
    pages = respx.get("https://en.wikipedia.org/w/api.php", params={"prop": "extracts"}).mock(side_effect=lambda r: (
        httpx.Response(200, json={"query": {"pages": {"1": {"extract": "x" * 3000 + r.url.params["titles"]}}}})))
    got = asyncio.run(wikipedia(_Ctx(), "wikipedia", "a b", step="agent:wikipedia"))
    assert search.calls[0].request.url.query == b"action=query&list=search&srsearch=a+b&format=json"
    assert len(pages.calls) == 3, "the first three hits"
    assert got.startswith("Page: T0\nSummary: xxx") and len(got) == 4000


def test_a_streamed_completion_is_read_back_as_the_one_completion_it_makes() -> None:
    from queue_core.compat._n8n_ai import sse_completion

    chunks = [{"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
              {"id": "c", "choices": [{"index": 0, "delta": {"content": "Hel"}}]},
              {"id": "c", "choices": [{"index": 0, "delta": {"content": "lo", "tool_calls": [
                  {"index": 0, "id": "call_1", "function": {"name": "Think", "arguments": '{"in'}}]}}]},
              {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [
                  {"index": 0, "function": {"arguments": 'put": "x"}'}}]}, "finish_reason": "tool_calls"}]},
              {"id": "c", "choices": [], "usage": {"total_tokens": 3}}]
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    got = sse_completion(text)
    assert got is not None and got["object"] == "chat.completion"
    assert got["choices"] == [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Hello", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "Think", "arguments": '{"input": "x"}'}}]}}]
    assert sse_completion("not events") is None

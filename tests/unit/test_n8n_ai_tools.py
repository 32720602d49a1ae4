"""An agent's tools as n8n names and runs them (names, SerpApi), and the files n8n adds to its prompt."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest
import respx

from harness.platforms.n8n.translate.ai_tools import http_tool_name, tool_name
from queue_core.compat import n8n
from queue_core.compat._n8n_ai_tools import binary_message, serpapi, serpapi_result
from queue_core.errors import NodeFailed
from tests.unit.test_n8n_ai import CHAT, _completion, _Ctx


def test_tool_names_are_rewritten_as_n8n_rewrites_them() -> None:
    assert tool_name("Tool - Think") == "Tool_-_Think"  # nodeNameToToolName: each run of others as one _
    assert tool_name("Recherche (web) ✓") == "Recherche_web_"
    assert http_tool_name("Fetch page") == "Fetch_page"
    assert http_tool_name("Tool - Fetch URL") is None, "'-' is refused by the HTTP Request tool's check"
    assert http_tool_name("2nd") is None, "a digit first is refused"


def test_serpapi_results_are_read_as_langchain_reads_them() -> None:
    assert serpapi_result({"answer_box": {"answer": "42", "snippet": "s"}}) == "42"
    assert serpapi_result({"answer_box_list": [{"snippet_highlighted_words": ["a", "b"]}]}) == "a,b"
    assert serpapi_result({"answer_box": {"title": "T", "link": "http://x", "n": 3, "l": [1]}}) == '{"title":"T","n":3}'
    assert serpapi_result({"news_results": [], "organic_results": [{"snippet": "x"}]}) == "[]", "[] is truthy in JS"
    assert serpapi_result({"knowledge_graph": {"title": "Paris", "description": "Capital", "type": "City",
                                               "map_link": "m"}, "organic_results": [{"snippet": "Über"}]}) == \
        '["Capital","Paris type: City","Über"]'
    assert serpapi_result({}) == "No good search result found"
    with pytest.raises(NodeFailed, match="Got error from serpAPI: bad key"):
        serpapi_result({"error": "bad key"})


@respx.mock
def test_the_serpapi_call_sends_the_options_then_the_key_placeholder_then_the_query() -> None:
    route = respx.get("https://serpapi.com/search").mock(return_value=httpx.Response(200, json={
        "organic_results": [{"snippet": "found"}]}))
    got = asyncio.run(serpapi(_Ctx(), "serpapi", "a b&c", [["gl", "de"], ["no_cache", "true"]], step="s",
                              key="__auth_env__"))
    assert got == '["found"]'
    assert route.calls[0].request.url.query == b"gl=de&no_cache=true&api_key=__auth_env__&q=a+b%26c"


def test_an_item_s_images_and_text_files_become_one_user_message_after_the_prompt() -> None:
    text = base64.b64encode("naïve".encode()).decode()
    item = {"json": {}, "binary": {"a": {"mimeType": "image/png", "data": "iVBO"},
                                   "b": {"mimeType": "application/json", "data": text, "fileName": "x.json"},
                                   "c": {"mimeType": "application/pdf", "data": "JVBE"},
                                   "d": {"mimeType": "text/plain", "data": f"data:text/plain;base64,{text}"}}}
    assert binary_message(item) == {"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
        {"type": "text", "text": "File: x.json\nContent:\nnaïve"},
        {"type": "text", "text": "File: attachment\nContent:\nnaïve"}]}
    assert binary_message({"json": {}, "binary": {"c": {"mimeType": "application/pdf", "data": "JVBE"}}}) is None


@respx.mock
def test_an_agent_sends_the_item_s_image_after_the_prompt() -> None:
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion("a receipt")))
    flow = n8n.Flow(_Ctx())
    items = [{"json": {"q": "what is this?"}, "binary": {"data": {"mimeType": "image/jpeg", "data": "/9j/"}}}]
    got = asyncio.run(n8n.ai_chain.agent(flow, "Agent", items, provider="openai", url=CHAT, step="agent",
                                         body=lambda item, i: {"messages": [{"role": "user", "content": "q"}]}))
    assert got == [{"json": {"output": "a receipt"}}]
    assert json.loads(route.calls[0].request.content)["messages"] == [
        {"role": "user", "content": "q"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/"}}]}]


def test_an_agent_with_a_tool_n8n_refuses_fails_before_any_call() -> None:
    flow = n8n.Flow(_Ctx())
    with pytest.raises(NodeFailed, match="not a valid alphanumeric string"):
        asyncio.run(n8n.ai_chain.agent(flow, "Agent", [{"json": {}}], provider="openai", url=CHAT, step="agent",
                                       body=lambda item, i: {}, fails="The name of this tool is not a valid "
                                                                       "alphanumeric string"))


GMAIL_TOOL = {"name": "Ergebnisse per Mail schicken", "type": "n8n-nodes-base.gmailTool", "typeVersion": 2.1,
              "position": [2, 1], "parameters": {
                  "sendTo": "team@example.com", "emailType": "text", "options": {"appendAttribution": False},
                  "subject": "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Subject', `Titel`, 'string') }}",
                  "message": "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Message', 'Der Text', 'string') }}"}}


def test_an_app_tool_s_schema_comes_from_its_from_ai_calls_and_its_description_from_the_operation() -> None:
    from harness.platforms.n8n.definition import Node
    from harness.platforms.n8n.translate.ai_app_tools import description, rewritten, schema

    found: dict[str, tuple[str, str]] = {}
    params = rewritten(GMAIL_TOOL["parameters"], found)
    assert params["subject"] == '={{ $json["Subject"] }}'
    assert schema(found) == {"type": "object", "properties": {
        "Subject": {"type": "string", "description": "Titel"}, "Message": {"type": "string", "description": "Der Text"}},
        "required": ["Subject", "Message"], "additionalProperties": False,
        "$schema": "http://json-schema.org/draft-07/schema#"}
    node = Node("t", "n8n-nodes-base.gmail", 2.1, {})
    assert description(node, "gmail", {"resource": "message", "operation": "send"}) == "Send a message in Gmail"
    assert description(node, "gmail", {"descriptionType": "manual", "toolDescription": "Mails it"}) == "Mails it"


@respx.mock
def test_an_agent_runs_its_gmail_tool_as_the_gmail_node_s_call_with_the_model_s_arguments(tmp_path: Any) -> None:
    from tests.unit.test_n8n_ai import LC, _model, _run, _workflow

    call = {"id": "call_1", "type": "function", "function": {
        "name": "Ergebnisse_per_Mail_schicken", "arguments": json.dumps({"Subject": "Ideen", "Message": "Drei."})}}
    chat = respx.post(CHAT).mock(side_effect=[httpx.Response(200, json=_completion(None, [call])),
                                              httpx.Response(200, json=_completion("Sent."))])
    sent = respx.post("https://gmail.googleapis.com/gmail/v1/users/me/messages/send").mock(
        return_value=httpx.Response(200, json={"id": "m1", "threadId": "t1", "labelIds": ["SENT"]}))
    model, wiring = _model(target="Agent")
    agent = {"name": "Agent", "type": f"{LC}agent", "typeVersion": 2.1, "position": [1, 0],
             "parameters": {"promptType": "define", "text": "={{ $json.q }}", "options": {}}}
    wiring[GMAIL_TOOL["name"]] = {"ai_tool": [[{"node": "Agent", "type": "ai_tool", "index": 0}]]}
    written = _workflow(tmp_path, [agent, model, GMAIL_TOOL], wiring)
    rows = {r.node: r for r in written.scaffold.rows}
    assert rows["Agent"].status == "translated", rows["Agent"].why
    got = _run(written, _Ctx(), {"q": "Mail it"})
    assert got["Agent"] == [[{"output": "Sent."}]]
    first = json.loads(chat.calls[0].request.content)
    assert first["tools"][0]["function"]["name"] == "Ergebnisse_per_Mail_schicken"
    assert first["tools"][0]["function"]["description"] == "Send a message in Gmail"
    raw = json.loads(sent.calls[0].request.content)["raw"]
    mime = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
    assert "Subject: Ideen" in mime and "Drei." in mime and "team@example.com" in mime
    second = json.loads(chat.calls[1].request.content)["messages"]
    assert second[-1] == {"role": "tool", "content": '[{"id":"m1","threadId":"t1","labelIds":["SENT"]}]',
                          "tool_call_id": "call_1"}


@respx.mock
def test_openai_audio_transcribes_an_item_s_file_and_generates_speech_as_the_item_s_file(tmp_path: Any) -> None:
    from tests.unit.test_n8n_ai import LC, _run, _workflow

    heard = respx.post("https://api.openai.com/v1/audio/transcriptions").mock(
        return_value=httpx.Response(200, json={"text": "Hallo"}))
    spoken = respx.post("https://api.openai.com/v1/audio/speech").mock(
        return_value=httpx.Response(200, content=b"ID3audio", headers={"content-type": "audio/mpeg"}))
    make = {"name": "File", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [1, 0], "parameters": {
        "jsCode": "return [{json: {}, binary: {data: {data: 'T2dnUw==', mimeType: 'audio/ogg', fileName: 'v.oga'}}}]"}}
    listen = {"name": "Transcribe", "type": f"{LC}openAi", "typeVersion": 1.8, "position": [2, 0],
              "parameters": {"resource": "audio", "operation": "transcribe", "options": {"temperature": 0.5}}}
    say = {"name": "Say", "type": f"{LC}openAi", "typeVersion": 1.8, "position": [3, 0],
           "parameters": {"resource": "audio", "input": "={{ $json.text }}", "voice": "fable", "options": {}}}
    wiring = {"File": {"main": [[{"node": "Transcribe", "type": "main", "index": 0}]]},
              "Transcribe": {"main": [[{"node": "Say", "type": "main", "index": 0}]]}}
    written = _workflow(tmp_path, [make, listen, say], wiring)
    rows = {r.node: r for r in written.scaffold.rows}
    assert rows["Transcribe"].status == rows["Say"].status == "translated", (rows["Transcribe"].why, rows["Say"].why)
    got = _run(written, _Ctx(), {})
    form = heard.calls[0].request.content
    assert b'name="model"\r\n\r\nwhisper-1' in form and b'name="temperature"\r\n\r\n0.5' in form
    assert b'filename="v.oga"' in form and b"Content-Type: audio/ogg" in form and b"OggS" in form
    assert json.loads(spoken.calls[0].request.content) == {"model": "tts-1", "input": "Hallo", "voice": "fable",
                                                           "response_format": "mp3", "speed": 1}
    assert got["Say"] == [[{"mimeType": "audio/mp3", "fileType": "audio", "fileExtension": "mp3",
                            "fileName": "audio.mp3", "fileSize": "8 B"}]]

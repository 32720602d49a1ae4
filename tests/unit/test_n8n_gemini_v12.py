"""Google Gemini v1.1/v1.2 (described from n8n 2.x): text.message as n8n 2.x sends it, the audio operations a TODO."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.compat import n8n
from queue_core.errors import NodeFailed

LC = "@n8n/n8n-nodes-langchain."
ANSWER = {"candidates": [{"content": {"parts": [{"text": "Hel"}, {"text": "lo"}, {"inlineData": {}}], "role": "model"},
                          "finishReason": "STOP"}], "modelVersion": "m"}


def test_blank_messages_are_left_out_and_none_left_fails_the_node_as_n8n_2x() -> None:
    body = n8n.ai.gemini_body([{"content": "  ", "role": "user"}, {"content": "hi", "role": "user"}], {},
                              json_output=False, nonempty=True, node="G")
    assert body["contents"] == [{"parts": [{"text": "hi"}], "role": "user"}]
    with pytest.raises(NodeFailed, match="^G: A non-empty prompt is required.$"):
        n8n.ai.gemini_body([{"content": "\n", "role": "user"}], {}, json_output=False, nonempty=True, node="G")
    # v1 (proved on n8n 1.x) keeps every message
    assert len(n8n.ai.gemini_body([{"content": "", "role": "user"}], {}, json_output=False)["contents"]) == 1


def test_include_merged_response_joins_each_candidates_text_parts() -> None:
    (item,) = n8n.ai.gemini_items(ANSWER, simplify=True, merged=True)
    assert item["json"]["mergedResponse"] == "Hello"
    (whole,) = n8n.ai.gemini_items(ANSWER, simplify=False, merged=True)
    assert whole["json"]["modelVersion"] == "m" and whole["json"]["candidates"][0]["mergedResponse"] == "Hello"
    assert "mergedResponse" not in n8n.ai.gemini_items(ANSWER, simplify=True)[0]["json"]


def _scaffold(tmp_path: Path, version: float, parameters: dict[str, Any]) -> tuple[str, str]:
    workflow = {"name": "g", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Gemini", "type": f"{LC}googleGemini", "typeVersion": version, "position": [1, 0],
         "parameters": parameters}],
        "connections": {"Start": {"main": [[{"node": "Gemini", "type": "main", "index": 0}]]}}}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="g", into=tmp_path / "a", force=True)
    (row,) = [r for r in written.scaffold.rows if r.node == "Gemini"]
    return (row.status if row.status != "todo" else f"todo: {row.why}"), written.path.read_text(encoding="utf-8")


MODEL = {"__rl": True, "value": "models/gemini-2.5-flash", "mode": "id"}


def test_a_v1_2_text_message_is_translated_with_n8n_2xs_rules(tmp_path: Path) -> None:
    status, source = _scaffold(tmp_path, 1.2, {"modelId": MODEL, "messages": {"values": [{"content": "=Sum {{ $json.t }}"}]},
                                               "builtInTools": {}, "options": {"includeMergedResponse": True,
                                                                               "codeExecution": True}})
    assert status == "translated"
    assert "nonempty=True, node='Gemini'" in source and "merged=True" in source
    assert "codeExecution" not in source  # v1's option: n8n 2.x adds no tool for it from v1.1 on
    status, _ = _scaffold(tmp_path, 1.2, {"modelId": MODEL, "messages": {"values": [{"content": "x"}]},
                                          "builtInTools": {"googleSearch": True}})
    assert status == "todo: Gemini built-in tools and code execution are not translated"


def test_audio_of_binary_files_is_translated_and_audio_urls_stay_a_todo_naming_the_calls(tmp_path: Path) -> None:
    status, source = _scaffold(tmp_path, 1.2, {"resource": "audio", "operation": "analyze", "modelId": MODEL,
                                               "inputType": "binary", "options": {}})
    assert status == "translated"
    assert "await n8n.ai.gemini_media(flow, 'Gemini', items" in source and "\"What's in this audio?\"" in source
    status, _ = _scaffold(tmp_path, 1.2, {"resource": "audio", "operation": "transcribe", "modelId": MODEL,
                                          "audioUrls": "https://example.com/a.mp3"})
    assert status.startswith("todo: googleGemini audio.transcribe of audio URLs (inputType 'url': n8n downloads each "
                             "first) is not translated")
    assert "x-goog-upload-url" in status and "/v1beta/<model>:generateContent" in status
    status, _ = _scaffold(tmp_path, 1.2, {"resource": "audio", "operation": "analyze", "modelId": MODEL,
                                          "inputType": "binary", "text": " "})
    assert status.startswith("todo: googleGemini audio.analyze with an empty prompt fails in n8n")


class _Files:
    """A context answering the Files API and generateContent as Gemini does (the file ACTIVE after one poll)."""

    def __init__(self, mode: str = "live") -> None:
        self.mode, self.slept = mode, 0.0
        self.calls: list[tuple[str, str, Any, dict[str, Any]]] = []
        self.n8n_flows: list[Any] = []

    async def sleep(self, seconds: float) -> None:
        self.slept += seconds

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   headers: Any = None, content: bytes | None = None) -> httpx.Response:
        self.calls.append((method, url, json if content is None else {"bytes": len(content)}, dict(headers or {})))
        if self.mode != "live":
            return httpx.Response(200, json={"recorded": True}, headers={"X-Cutover-Recorded": "1"})
        if url.endswith("/upload/v1beta/files"):
            return httpx.Response(200, json={}, headers={"x-goog-upload-url": "https://g.test/upload/s1"})
        if url.endswith("/upload/s1"):
            return httpx.Response(200, json={"file": {"name": "files/f1", "uri": "u1", "mimeType": "audio/mpeg",
                                                      "state": "PROCESSING"}})
        if url.endswith("/files/f1"):
            return httpx.Response(200, json={"name": "files/f1", "uri": "u1", "mimeType": "audio/mpeg", "state": "ACTIVE"})
        return httpx.Response(200, json=ANSWER)


def _media(ctx: _Files, items: list[dict[str, Any]]) -> Any:
    flow = n8n.Flow(ctx)
    return asyncio.run(n8n.ai.gemini_media(
        flow, "G", items, provider="gemini", base="https://g.test", step="g", model=lambda item, i: "models/m",
        names=lambda item, i: "data", prompt=lambda item, i: "What?", config=lambda item, i: {"maxOutputTokens": None},
        simplify=True, headers={"x-goog-api-key": "k"}))


AUDIO = {"json": {}, "binary": {"data": {"data": base64.b64encode(b"abc").decode(), "mimeType": "audio/mpeg"}}}


def test_a_binary_file_is_uploaded_polled_and_asked_about_as_n8n_does() -> None:
    ctx = _Files()
    (item,) = _media(ctx, [AUDIO])
    assert item["json"]["content"]["parts"][0]["text"] == "Hel"
    assert [(m, u) for m, u, _, _ in ctx.calls] == [
        ("POST", "https://g.test/upload/v1beta/files"), ("POST", "https://g.test/upload/s1"),
        ("GET", "https://g.test/v1beta/files/f1"), ("POST", "https://g.test/v1beta/models/m:generateContent")]
    assert ctx.calls[0][3]["X-Goog-Upload-Header-Content-Length"] == "3" and ctx.calls[1][2] == {"bytes": 3}
    assert "x-goog-api-key" not in ctx.calls[1][3]  # n8n sends the bytes to the upload URL without the key
    assert ctx.calls[3][2] == {"contents": [{"role": "user", "parts": [
        {"fileData": {"fileUri": "u1", "mimeType": "audio/mpeg"}}, {"text": "What?"}]}], "generationConfig": {}}
    assert ctx.slept == n8n.ai.UPLOAD_POLL_SECONDS
    with pytest.raises(NodeFailed, match="expects the node's input data to contain a binary file 'data'"):
        _media(_Files(), [{"json": {}}])


def test_offline_the_first_answer_is_the_nodes_recorded_output() -> None:
    ctx = _Files("shadow")
    assert _media(ctx, [{"json": {}}]) == [{"json": {"recorded": True}}] and len(ctx.calls) == 1

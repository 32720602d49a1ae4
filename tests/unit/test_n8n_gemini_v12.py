"""Google Gemini v1.1/v1.2 (described from n8n 2.x): text.message as n8n 2.x sends it, the audio operations a TODO."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def test_audio_analysis_of_a_binary_file_stays_a_todo_naming_the_upload_and_the_call(tmp_path: Path) -> None:
    status, _ = _scaffold(tmp_path, 1.2, {"resource": "audio", "operation": "analyze", "modelId": MODEL,
                                          "inputType": "binary", "options": {}})
    assert status.startswith("todo: googleGemini audio.analyze is not translated: n8n uploads each binary input file")
    assert "x-goog-upload-url" in status and "/v1beta/<model>:generateContent" in status
    assert "\"What's in this audio?\" by default" in status

"""The AI node versions only n8n 2.x has (googleGemini v1.2, chainLlm v1.8/v1.9) against n8n ``runner.NEWER``,
its credentials pointed at the loopback stand-in provider (``ai_cases``, as ``test_ai_conformance``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import ai_cases, ai_server, runner
from tests.oracle.conftest import require_oracle
from tests.oracle.outcome import differences
from tests.oracle.test_ai_conformance import EXAMPLE, MAIL, PARSED, _chat_model, _parser
from tests.oracle.workflow import UNDER_TEST, Case

LC = ai_cases.LC
NEWER = runner.NEWER


def _gemini(tag: str, **parameters: Any) -> dict[str, Any]:
    return {"modelId": {"__rl": True, "value": f"models/{tag}", "mode": "id"}, "builtInTools": {}, **parameters}


CASES: list[tuple[Case, list[dict[str, Any]], str | None]] = [
    (Case("v2g1 googleGemini v1.2 text.message", f"{LC}googleGemini", 1.2, _gemini("v2g1-text", messages={"values": [
        {"content": "=Classify: {{ $json.text }}"}]}, options={"systemMessage": "You classify mail.", "temperature": 0.1}),
          [MAIL], n8n=NEWER), [], "googlePalmApi"),
    (Case("v2g2 googleGemini v1.2 merged, raw, blank message", f"{LC}googleGemini", 1.2, _gemini("v2g2-text", messages={
        "values": [{"content": " "}, {"content": "=Reply to {{ $json.from }}"}]}, simplify=False,
        options={"includeMergedResponse": True, "maxOutputTokens": 40}), [MAIL[:1]], n8n=NEWER), [], "googlePalmApi"),
    (Case("v2g3 googleGemini v1.2 json", f"{LC}googleGemini", 1.2, _gemini("v2g3-json", messages={"values": [
        {"content": "=Answer {{ $json.text }}"}]}, jsonOutput=True, options={}), [MAIL[:1]], n8n=NEWER), [],
     "googlePalmApi"),
    (Case("v2c1 chainLlm v1.9 define", f"{LC}chainLlm", 1.9, {
        "promptType": "define", "text": "=Mail: {{ $json.text }}",
        "messages": {"messageValues": [{"message": "You are a mail assistant."}]}}, [MAIL], n8n=NEWER),
     [_chat_model("v2c1", "text", temperature=0.4)], None),
    (Case("v2c2 chainLlm v1.9 structured parser", f"{LC}chainLlm", 1.9, {
        **PARSED, "messages": {"messageValues": [{"message": "Be brief."}]}}, [MAIL[:1]], n8n=NEWER),
     [_chat_model("v2c2", "struct"), _parser(jsonSchemaExample=EXAMPLE)], None),
    (Case("v2c3 chainLlm v1.8 auto", f"{LC}chainLlm", 1.8, {"promptType": "define", "text": "={{ $json.text }}"},
          [MAIL[:1]], n8n=NEWER), [_chat_model("v2c3", "text", maxTokens=64)], None),
]


@pytest.fixture(scope="module")
def results() -> Iterator[list[dict[str, Any]]]:
    require_oracle(NEWER)
    with ai_server.serving() as (base, seen):
        yield ai_cases.measure(CASES, base, seen)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0].id for c in CASES])
def test_a_newer_ai_node_version_gives_n8n_2xs_output_and_sends_its_requests(index: int,
                                                                            results: list[dict[str, Any]]) -> None:
    result = results[index]
    assert result["scaffold"].translated, f"{result['case'].id} is a TODO of the scaffold"
    assert result["n8n"].error is None, result["n8n"].error
    assert result["n8n_requests"], "n8n sent the stand-in nothing"
    if len(result["case"].inputs[0]) == 1:
        assert result["scaffold_requests"] == result["n8n_requests"]
    else:  # n8n runs items concurrently: the requests compared as a multiset
        assert sorted(map(repr, result["scaffold_requests"])) == sorted(map(repr, result["n8n_requests"]))
    found = differences(result["n8n"], result["scaffold"], [UNDER_TEST])
    assert not found, found

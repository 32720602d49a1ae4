"""The AI nodes against the real n8n, its credentials pointed at a loopback stand-in provider (``ai_cases``).

A translated case must give the node output n8n gives *and* send the stand-in the request bodies
n8n sent it (every model and tool call, in order; for several items as a multiset, since n8n runs a
chain's items in concurrent batches).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import ai_cases, ai_server, runner
from tests.oracle.conftest import require_oracle
from tests.oracle.outcome import differences
from tests.oracle.workflow import UNDER_TEST, Case

LC = ai_cases.LC
MAIL = [{"text": "Please send the invoice for March.", "from": "ana@example.com"},
        {"text": "Lunch on Friday?", "from": "bo@example.com"}]


def _rl(value: str) -> dict[str, Any]:
    return {"__rl": True, "value": value, "mode": "list", "cachedResultName": value}


def _chat_model(tag: str, answer: str, **options: Any) -> dict[str, Any]:
    return {"_kind": "languageModel", "name": "OpenAI Chat Model", "type": f"{LC}lmChatOpenAi", "typeVersion": 1.2,
            "parameters": {"model": _rl(f"{tag}-{answer}"), "options": options},
            "credentials": ai_cases._credential("openAiApi")}


def _chat_model_v1(tag: str, answer: str) -> dict[str, Any]:
    """The OpenAI Chat Model v1: the model a plain name, as older exports hold it."""
    return {"_kind": "languageModel", "name": "OpenAI Chat Model", "type": f"{LC}lmChatOpenAi", "typeVersion": 1,
            "parameters": {"model": f"{tag}-{answer}", "options": {"temperature": 0.3}},
            "credentials": ai_cases._credential("openAiApi")}


def _parser(version: float = 1.3, to: str = UNDER_TEST, name: str = "Structured Output Parser",
            **parameters: Any) -> dict[str, Any]:
    return {"_kind": "outputParser", "_to": to, "name": name, "type": f"{LC}outputParserStructured",
            "typeVersion": version, "parameters": parameters}


def _fixing(tag: str, answer: str = "struct", **options: Any) -> list[dict[str, Any]]:
    """An Auto-fixing parser on the node under test: a Structured Output Parser and a fixing model under it."""
    fixer = {"_kind": "outputParser", "name": "Auto-fixing Output Parser", "type": f"{LC}outputParserAutofixing",
             "typeVersion": 1, "parameters": {"options": options}}
    model = {**_chat_model(tag, answer), "name": "Fixing Model", "_to": fixer["name"]}
    return [fixer, _parser(to=fixer["name"], name="Inner Parser", jsonSchemaExample=EXAMPLE), model]


def _memory(version: float = 1.3, **parameters: Any) -> dict[str, Any]:
    return {"_kind": "memory", "name": "Simple Memory", "type": f"{LC}memoryBufferWindow", "typeVersion": version,
            "parameters": parameters}


CHATS = [{"chatInput": "Write an ADR on queues.", "sessionId": "s-9"}]  # what a Chat Trigger hands on
SESSIONS = [{"text": "My name is Ana.", "sessionId": "s-1"}, {"text": "What is my name?", "sessionId": "s-1"},
            {"text": "Who am I?", "sessionId": "s-2"}, {"text": "And now?", "sessionId": "s-1"}]
EXAMPLE = json.dumps({"subject": "Re: mail", "score": 3, "ratio": 0.5, "urgent": True, "tags": ["a"],
                      "people": [{"name": "x", "age": 2}], "meta": {"lang": "en"}}, indent=2)
MANUAL = json.dumps({"type": "object", "properties": {"subject": {"type": "string", "description": "the subject"},
                                                      "score": {"type": "integer"}}, "required": ["subject"]})
PARSED = {"promptType": "define", "text": "={{ $json.text }}", "hasOutputParser": True}
ASK = {"promptType": "define", "text": "={{ $json.text }}", "options": {}}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
RECEIPT = [{**MAIL[0], "_binary": {
    "data": {"data": PNG, "mimeType": "image/png", "fileName": "receipt.png", "fileExtension": "png"},
    "notes": {"data": "eyJ0b3RhbCI6ICLCpTEyMCJ9", "mimeType": "application/json", "fileName": "notes.json"},
    "scan": {"data": "JVBERi0=", "mimeType": "application/pdf", "fileName": "scan.pdf"}}}]


def _serpapi(**options: Any) -> dict[str, Any]:
    return {"_kind": "tool", "name": "SerpAPI Search", "type": f"{LC}toolSerpApi", "typeVersion": 1,
            "parameters": {"options": options}, "credentials": ai_cases._credential("serpApi")}
CASES: list[tuple[Case, list[dict[str, Any]], str | None]] = [
    (Case("c17 chainLlm v1.7 structured parser", f"{LC}chainLlm", 1.7, {
        **PARSED, "messages": {"messageValues": [{"message": "Be brief."}]}}, [MAIL[:1]]),
     [_chat_model("c17", "struct"), _parser(jsonSchemaExample=EXAMPLE)], None),
    (Case("c18 chainLlm v1.5 manual schema parser v1.2", f"{LC}chainLlm", 1.5, PARSED, [MAIL]),
     [_chat_model("c18", "struct"), _parser(1.2, schemaType="manual", inputSchema=MANUAL)], None),
    (Case("c19 chainLlm v1.7 auto-fixing (fixed)", f"{LC}chainLlm", 1.7, PARSED, [MAIL[:1]]),
     [_chat_model("c19", "broken"), *_fixing("c19")], None),
    (Case("c20 chainLlm v1.7 auto-fixing (fits)", f"{LC}chainLlm", 1.7, PARSED, [MAIL[:1]]),
     [_chat_model("c20", "struct"), *_fixing("c20")], None),
    (Case("c21 agent v2.2 parser tool", f"{LC}agent", 2.2, {**PARSED, "options": {"systemMessage": "You help."}},
          [MAIL[:1]]), [_chat_model("c21", "final"), _parser(jsonSchemaExample=EXAMPLE)], None),
    (Case("c22 agent v2.1 parser text answer", f"{LC}agent", 2.1, {**PARSED, "options": {}}, [MAIL[:1]]),
     [_chat_model("c22", "struct"), _parser(1.2, jsonSchemaExample='{"subject": "s"}')], None),
    (Case("c23 chainLlm v1.4 parser v1.1 default schema", f"{LC}chainLlm", 1.4, PARSED, [MAIL[:1]]),
     [_chat_model("c23", "struct"), _parser(1.1)], None),
    (Case("c24 chainLlm v1.7 auto-fixing a schema mismatch", f"{LC}chainLlm", 1.7, PARSED, [MAIL[:1]]),
     [_chat_model("c24", "wrongtype"), *_fixing("c24")], None),
    (Case("c25 chainLlm v1.7 parser autoFix", f"{LC}chainLlm", 1.7, PARSED, [MAIL[:1]]),
     [_chat_model("c25", "broken"), _parser(jsonSchemaExample=EXAMPLE, autoFix=True),
      {**_chat_model("c25", "struct"), "name": "Fixing Model", "_to": "Structured Output Parser"}], None),
    (Case("c27 agent v2.2 memory customKey", f"{LC}agent", 2.2, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {"systemMessage": "You remember."}}, [MAIL]),
     [_chat_model("c27", "text"), _memory(sessionIdType="customKey", sessionKey="=mail-{{ 1 + 1 }}")], None),
    (Case("c28 agent v2.1 memory fromInput window 1", f"{LC}agent", 2.1, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [SESSIONS]),
     [_chat_model("c28", "text"), _memory(contextWindowLength=1)], None),
    (Case("c29 agent v2.2 memory v1", f"{LC}agent", 2.2, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [SESSIONS[:2]]),
     [_chat_model("c29", "text"), _memory(1)], None),
    (Case("c30 agent v2.2 think tool", f"{LC}agent", 2.2, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [MAIL[:1]]),
     [_chat_model("c30", "tool"), {"_kind": "tool", "name": "Think", "type": f"{LC}toolThink", "typeVersion": 1.1,
                                   "parameters": {}}], None),
    (Case("c31 agent v2.1 think tool v1 and an http tool", f"{LC}agent", 2.1, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [MAIL[:1]]),
     [_chat_model("c31", "tool"), {"_kind": "tool", "name": "Plan", "type": f"{LC}toolThink", "typeVersion": 1,
                                   "parameters": {"description": "Plan first."}},
      {"_kind": "tool", "name": "Weather", "type": f"{LC}toolHttpRequest", "typeVersion": 1.1, "parameters": {
          "toolDescription": "Reads the weather", "url": "__BASE__/tool?city=Paris&case=c31"}}], None),
    (Case("c32 agent v2.2 wikipedia tool", f"{LC}agent", 2.2, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [MAIL[:1]]),
     [_chat_model("c32", "tool"), {"_kind": "tool", "name": "Wikipedia", "type": f"{LC}toolWikipedia",
                                   "typeVersion": 1, "parameters": {}}], None),
    (Case("c33 agent v1.7 tools agent", f"{LC}agent", 1.7, {
        "promptType": "define", "text": "={{ $json.text }}"}, [MAIL[:1]]), [_chat_model("c33", "text")], None),
    (Case("c34 agent v1.8 parser and think tool", f"{LC}agent", 1.8, {
        **PARSED, "options": {"systemMessage": "=You help {{ $json.from }}."}}, [MAIL[:1]]),
     [_chat_model("c34", "final"), _parser(jsonSchemaExample=EXAMPLE),
      {"_kind": "tool", "name": "Think", "type": f"{LC}toolThink", "typeVersion": 1.1, "parameters": {}}], None),
    (Case("c35 agent v1.9 memory", f"{LC}agent", 1.9, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [SESSIONS[:3]]),
     [_chat_model("c35", "text"), _memory(contextWindowLength=2)], None),
    (Case("c36 agent v2.2 serpapi tool", f"{LC}agent", 2.2, ASK, [MAIL[:1]]), [_chat_model("c36", "tool"), _serpapi()],
     None),
    (Case("c37 agent v1.7 serpapi tool options and memory", f"{LC}agent", 1.7, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {"systemMessage": "You search."}},
          [SESSIONS[:1]]),
     [_chat_model("c37", "tool"), _serpapi(gl="ch", hl="de", no_cache=True, device="mobile"), _memory()], None),
    (Case("c38 agent v2.1 think tool v1.1 named with other characters", f"{LC}agent", 2.1, ASK, [MAIL[:1]]),
     [_chat_model("c38", "tool"), {"_kind": "tool", "name": "Tool - Think (ünï)", "type": f"{LC}toolThink",
                                   "typeVersion": 1.1, "parameters": {"description": "Think it over."}}], None),
    (Case("c39 agent v2.2 wikipedia tool named with spaces", f"{LC}agent", 2.2, ASK, [MAIL[:1]]),
     [_chat_model("c39", "tool"), {"_kind": "tool", "name": "Wiki search", "type": f"{LC}toolWikipedia",
                                   "typeVersion": 1, "parameters": {}}], None),
    (Case("c40 agent v1.8 an item's image and text file", f"{LC}agent", 1.8, {
        "promptType": "define", "text": "=Analyze the information from the provided image.", "options": {}},
          [RECEIPT]), [_chat_model("c40", "text")], None),
    (Case("c41 agent v2.2 image with a parser", f"{LC}agent", 2.2, {
        **PARSED, "text": "Read the receipt.", "options": {"systemMessage": "You read receipts."}}, [RECEIPT]),
     [_chat_model("c41", "final"), _parser(jsonSchemaExample=EXAMPLE)], None),
    (Case("c42 agent v2.2 passthroughBinaryImages off", f"{LC}agent", 2.2, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {"passthroughBinaryImages": False}},
          [RECEIPT]), [_chat_model("c42", "text")], None),
    (Case("c45 agent v1.7 chat model v1, memory and serpapi", f"{LC}agent", 1.7, {
        "options": {"systemMessage": "You research."}}, [CHATS]),
     [_chat_model_v1("c45", "tool"), _memory(contextWindowLength=10), _serpapi()], None),
    (Case("c46 openAi v1.8 audio.transcribe", f"{LC}openAi", 1.8, {
        "resource": "audio", "operation": "transcribe", "options": {"language": "de", "temperature": 0.2}}, [[{
            "_binary": {"data": {"data": "T2dnUwACAAAAAAAAAAA=", "mimeType": "audio/ogg", "fileName": "c46-voice.oga",
                                 "fileExtension": "oga"}}}]]), [], "openAiApi"),
    (Case("c47 openAi v1.8 audio.generate", f"{LC}openAi", 1.8, {
        "resource": "audio", "model": "c47-tts", "input": "={{ $json.text }}", "voice": "fable", "options": {}},
          [MAIL]), [], "openAiApi"),
    (Case("c48 openAi v1.8 audio.generate options", f"{LC}openAi", 1.8, {
        "resource": "audio", "model": "c48-tts", "input": "Guten Tag", "options": {
            "response_format": "opus", "speed": 1.5, "binaryPropertyOutput": "voice"}}, [MAIL[:1]]), [], "openAiApi"),
    (Case("c26 agent v2.2 auto-fixing", f"{LC}agent", 2.2, {**PARSED, "options": {}}, [MAIL[:1]]),
     [_chat_model("c26", "broken"), *_fixing("c26")], None),
    (Case("c1 openAi v1.8 text.message", f"{LC}openAi", 1.8, {
        "modelId": _rl("c1-text"),
        "messages": {"values": [{"content": "You sort mail.", "role": "system"},
                                {"content": "=Mail from {{ $json.from }}: {{ $json.text }}"}]},
        "options": {"temperature": 0.3, "maxTokens": 50, "topP": 0.9}}, [MAIL]), [], "openAiApi"),
    (Case("c2 openAi v1.8 text.message json", f"{LC}openAi", 1.8, {
        "modelId": _rl("c2-json"), "messages": {"values": [{"content": "=Answer {{ $json.text }}", "role": "system"}]},
        "jsonOutput": True, "options": {}}, [MAIL]), [], "openAiApi"),
    (Case("c3 openAi v1.8 text.message raw", f"{LC}openAi", 1.8, {
        "modelId": _rl("c3-text"), "messages": {"values": [{"content": "Hello"}]}, "simplify": False,
        "options": {"frequency_penalty": 0.5}}, [MAIL[:1]]), [], "openAiApi"),
    (Case("c4 openAi v2 text.response json", f"{LC}openAi", 2, {
        "modelId": _rl("c4-json"), "responses": {"values": [{"role": "system", "content": "=Reply to {{ $json.text }}"}]},
        "builtInTools": {}, "options": {"textFormat": {"textOptions": {"type": "json_object"}}}}, [MAIL]), [],
     "openAiApi"),
    (Case("c5 anthropic v1 text.message", f"{LC}anthropic", 1, {
        "modelId": _rl("c5-text"), "messages": {"values": [{"content": "=Summarise: {{ $json.text }}"}]},
        "options": {"system": "You are brief.", "temperature": 0.2}}, [MAIL]), [], "anthropicApi"),
    (Case("c6 googleGemini v1 text.message", f"{LC}googleGemini", 1, {
        "modelId": {"__rl": True, "value": "models/c6-text", "mode": "id"},
        "messages": {"values": [{"content": "=Classify: {{ $json.text }}"}]},
        "options": {"systemMessage": "You classify mail.", "temperature": 0.1}}, [MAIL]), [], "googlePalmApi"),
    (Case("c7 chainLlm v1.7 define", f"{LC}chainLlm", 1.7, {
        "promptType": "define", "text": "=Mail: {{ $json.text }}",
        "messages": {"messageValues": [{"message": "You are a mail assistant."}]}}, [MAIL]),
     [_chat_model("c7", "text", temperature=0.4)], None),
    (Case("c8 chainLlm v1.7 json", f"{LC}chainLlm", 1.7, {"promptType": "define", "text": "={{ $json.text }}"},
          [MAIL[:1]]), [_chat_model("c8", "json", responseFormat="json_object")], None),
    (Case("c9 textClassifier v1", f"{LC}textClassifier", 1, {
        "inputText": "={{ $json.text }}",
        "categories": {"categories": [{"category": "High", "description": "needs an answer today"},
                                      {"category": "Low", "description": "can wait"}]}}, [MAIL]),
     [_chat_model("c9", "classify")], None),
    (Case("c12 textClassifier v1.1 other", f"{LC}textClassifier", 1.1, {
        "inputText": "={{ $json.text }}",
        "categories": {"categories": [{"category": "High", "description": "urgent \"now\""},
                                      {"category": "Low"}]},
        "options": {"multiClass": True, "fallback": "other",
                    "systemPromptTemplate": "Sort into {categories}. JSON only."}}, [MAIL]),
     [_chat_model("c12", "fallback")], None),
    (Case("c13 chainLlm v1.7 gemini", f"{LC}chainLlm", 1.7, {
        "promptType": "define", "text": "=Mail: {{ $json.text }}",
        "messages": {"messageValues": [{"message": "You sort mail."}]}}, [MAIL[:1]]),
     [{"_kind": "languageModel", "name": "Gemini Chat Model", "type": f"{LC}lmChatGoogleGemini", "typeVersion": 1,
       "parameters": {"modelName": "models/c13-text", "options": {"temperature": 0.2}},
       "credentials": ai_cases._credential("googlePalmApi")}], None),
    (Case("c14 openAi v1.3 text.message", f"{LC}openAi", 1.3, {
        "modelId": _rl("c14-text"), "messages": {"values": [{"content": "=Hello {{ $json.from }}"}]},
        "options": {"maxTokens": 20}}, [MAIL[:1]]), [], "openAiApi"),
    (Case("c15 chainLlm v1.5 auto", f"{LC}chainLlm", 1.5, {"promptType": "define", "text": "={{ $json.text }}"},
          [MAIL[:1]]), [_chat_model("c15", "text", maxTokens=64, topP=0.5)], None),
    (Case("c16 agent v2.2 system", f"{LC}agent", 2.2, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {"systemMessage": "=You help {{ $json.from }}"}},
          [MAIL[:1]]), [_chat_model("c16", "text", frequencyPenalty=0.1)], None),
    (Case("c10 agent v2.1 no tools", f"{LC}agent", 2.1, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {"systemMessage": "You answer mail."}},
          [MAIL[:1]]), [_chat_model("c10", "text")], None),
    (Case("c11 agent v2.1 http tool", f"{LC}agent", 2.1, {
        "promptType": "define", "text": "={{ $json.text }}", "options": {}}, [MAIL[:1]]),
     [_chat_model("c11", "tool"), {"_kind": "tool", "name": "Weather", "type": f"{LC}toolHttpRequest",
                                   "typeVersion": 1.1, "parameters": {
                                       "toolDescription": "Reads the weather", "url": "__BASE__/tool?city=Paris&case=c11"}}],
     None),
]


def _v3(tag: str, version: float, parameters: dict[str, Any], items: list[dict[str, Any]],
        subs: list[dict[str, Any]]) -> tuple[Case, list[dict[str, Any]], str | None]:
    """An AI Agent v3 case (n8n 1.123.81 has v3; v3.1 runs in the second oracle, n8n 2.41.1)."""
    return (Case(f"{tag} agent v{version:g}", f"{LC}agent", version, parameters, [items],
                 n8n=runner.NEWER if version >= 3.1 else None), subs, None)


V3_CASES = [
    _v3("c50", 3, ASK, MAIL[:1], [_chat_model("c50", "text")]),
    _v3("c51", 3.1, ASK, MAIL[:1], [_chat_model("c51", "text")]),
    _v3("c52", 3.1, {**ASK, "options": {"systemMessage": "=You help {{ $json.from }}."}}, MAIL[:1],
        [_chat_model("c52", "tool"), {"_kind": "tool", "name": "Think", "type": f"{LC}toolThink",
                                      "typeVersion": 1.1, "parameters": {}}]),
    _v3("c53", 3.1, ASK, MAIL[:1], [_chat_model("c53", "tool"), {
        "_kind": "tool", "name": "Wiki search", "type": f"{LC}toolWikipedia", "typeVersion": 1, "parameters": {}}]),
    _v3("c54", 3.1, {**ASK, "options": {"systemMessage": "You search."}}, MAIL[:1],
        [_chat_model("c54", "tool"), _serpapi(hl="de")]),
    _v3("c55", 3, ASK, MAIL[:1], [_chat_model("c55", "tool"), {"_kind": "tool", "name": "Think",
                                                               "type": f"{LC}toolThink", "typeVersion": 1.1,
                                                               "parameters": {}}]),
    _v3("c56", 3.1, {**PARSED, "options": {}}, MAIL[:1], [_chat_model("c56", "final"),
                                                          _parser(jsonSchemaExample=EXAMPLE)]),
    _v3("c57", 3, {**PARSED, "options": {"systemMessage": "You help."}}, MAIL[:1], [
        _chat_model("c57", "final"), _parser(jsonSchemaExample=EXAMPLE)]),
    _v3("c58", 3.1, ASK, RECEIPT, [_chat_model("c58", "text")]),
    _v3("c59", 3, ASK, MAIL[:1], [_chat_model("c59", "tool"), {"_kind": "tool", "name": "Plan it", "type": f"{LC}toolThink",
                                                               "typeVersion": 1, "parameters": {}}]),
    _v3("c60", 3, ASK, MAIL[:1], [_chat_model("c60", "tool"), {
        "_kind": "tool", "name": "Wiki search", "type": f"{LC}toolWikipedia", "typeVersion": 1, "parameters": {}}]),
]
CASES += V3_CASES


def _gmail_tool(version: float = 2.1, **parameters: Any) -> dict[str, Any]:
    """A Gmail node as the agent's tool (gmailTool): subject and message from the model ($fromAI)."""
    return {"_kind": "tool", "name": "Mail the summary", "type": "n8n-nodes-base.gmailTool", "typeVersion": version,
            "parameters": {"sendTo": "team@example.com", "emailType": "text",
                           "subject": "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Subject', `The title`, "
                                      "'string') }}",
                           "message": "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Message', `The text`, "
                                      "'string') }}", "options": {"appendAttribution": False}, **parameters},
            "credentials": ai_cases._credential("gmailOAuth2")}


CASES += [
    (Case("c62 agent v2.2 gmail tool", f"{LC}agent", 2.2, {**ASK, "options": {"systemMessage": "You mail."}},
          [MAIL[:1]]), [_chat_model("c62", "fields"), _gmail_tool()], None),
    _v3("c63", 3.1, ASK, MAIL[:1], [_chat_model("c63", "fields"), _gmail_tool(2.1)]),
]

# n8n fails these at the node under test before any request: the scaffold leaves them a TODO saying why
FAILING: list[tuple[Case, list[dict[str, Any]], str | None]] = [
    (Case("c43 agent v1.7 http tool name n8n refuses (the ADR Researcher's shape)", f"{LC}agent", 1.7, {
        "options": {"systemMessage": "You research."}}, [CHATS]),
     [_chat_model_v1("c43", "tool"), _memory(contextWindowLength=10), _serpapi(),
      {"_kind": "tool", "name": "Tool - Fetch URL", "type": f"{LC}toolHttpRequest", "typeVersion": 1.1,
       "parameters": {"name": "fetch_documentation", "description": "Fetch content from a URL."}}], None),
    (Case("c44 agent v2.2 http tool name starting with a digit", f"{LC}agent", 2.2, ASK, [MAIL[:1]]),
     [_chat_model("c44", "tool"), {"_kind": "tool", "name": "2 Weather", "type": f"{LC}toolHttpRequest",
                                   "typeVersion": 1.1, "parameters": {"toolDescription": "Reads the weather",
                                                                      "url": "__BASE__/tool?case=c44"}}], None),
]


@pytest.fixture(scope="module")
def measured() -> Iterator[list[dict[str, Any]]]:
    require_oracle()
    with ai_server.serving() as (base, seen):
        yield ai_cases.measure(CASES + FAILING, base, seen)


@pytest.fixture(scope="module")
def results(measured: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return measured[:len(CASES)]


@pytest.mark.parametrize("index", range(len(FAILING)), ids=[c[0].id for c in FAILING])
def test_an_agent_n8n_fails_is_a_todo_naming_the_refused_tool(index: int, measured: list[dict[str, Any]]) -> None:
    result = measured[len(CASES) + index]
    assert result["n8n"].error is not None and result["n8n"].error_node == UNDER_TEST, result["n8n"].describe()
    assert "not a valid alphanumeric string" in result["n8n"].error
    assert result["n8n_requests"] == []
    assert not result["scaffold"].translated, f"{result['case'].id}: translated, though n8n refuses to run it"
    assert result["scaffold_requests"] == []


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0].id for c in CASES])
def test_a_translated_ai_node_gives_n8n_s_output_and_sends_n8n_s_requests(index: int,
                                                                           results: list[dict[str, Any]]) -> None:
    result = results[index]
    # Every case here is a node version the scaffold claims: one it leaves a TODO is a regression
    # (an xfail would let a scaffold that translates none of them pass the suite).
    assert result["scaffold"].translated, f"{result['case'].id} is a TODO of the scaffold"
    assert result["n8n"].error is None, result["n8n"].error
    assert result["n8n_requests"], "n8n sent the stand-in nothing"
    if len(result["case"].inputs[0]) == 1:  # one item: every call in n8n's order (an agent's loop)
        assert result["scaffold_requests"] == result["n8n_requests"]
    else:  # n8n runs a chain's items in concurrent batches: the requests compared as a multiset
        assert sorted(map(repr, result["scaffold_requests"])) == sorted(map(repr, result["n8n_requests"]))
    found = differences(result["n8n"], result["scaffold"], [UNDER_TEST])
    assert not found, found


def test_the_gmail_tool_cases_reached_gmail_on_both_sides(results: list[dict[str, Any]]) -> None:
    mailed = [r for r in results if "gmail tool" in r["case"].id or r["case"].id.startswith("c63")]
    assert len(mailed) == 2
    for result in mailed:
        for side in ("n8n_requests", "scaffold_requests"):
            sent = [body for path, body in result[side] if path.endswith("/messages/send")]
            assert sent and sent[0]["to"] == "team@example.com" and sent[0]["type"] == "text/plain", (side, sent)

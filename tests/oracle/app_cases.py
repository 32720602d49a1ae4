"""An app node against the real n8n: Telegram sendMessage, its credential's base URL the loopback server.

n8n's Telegram credential has a base URL (``baseUrl``, ``https://api.telegram.org`` by default),
so n8n's own node can be pointed at ``http_server`` (route ``/bot<token>/<method>``, which answers
with the method, the token and the JSON body it received). The scaffold runs the same workflow
file; its context sends each call to the same server, with the gateway's bot-token placeholder
(``__auth_env__``) replaced by the token as the gateway replaces it on the wire. Both outputs are
Telegram's answer, so they are equal only when the two sides sent the same path and body.

The cases are fixed (not drawn): v1, v1.1 and v1.2, with and without a URL in the text (n8n turns
the link preview off for text without one), Markdown and HTML parse modes. Attribution is off:
n8n's attribution link carries the n8n instance's id, which the scaffold cannot know.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from queue_core.context import Trigger
from queue_core.gateway.binary import encode as multipart_encode

from tests.oracle import runner
from tests.oracle.scaffolded import run_with
from tests.oracle.outcome import Outcome, differences
from tests.oracle.workflow import START, UNDER_TEST, input_name

TOKEN = "123456:oracle-token"
# What test_app_conformance holds equal to n8n here: (typeVersion, resource.operation), for proved.py.
PROVED = [(1.0, "message.sendMessage"), (1.1, "message.sendMessage"), (1.2, "message.sendMessage"),
          (1.2, "message.sendAudio"), (1.2, "message.sendDocument"), (1.2, "file.get")]
CREDENTIAL_ID = "oracleTelegram01"
SECRET_SEGMENT = "__auth_env__"  # queue_core.gateway.request.SECRET_SEGMENT


def credentials(base: str) -> list[dict[str, Any]]:
    """Return the Telegram credential n8n imports: the token and the loopback base URL."""
    return [{"id": CREDENTIAL_ID, "name": f"oracle telegram {base}", "type": "telegramApi",
             "data": {"accessToken": TOKEN, "baseUrl": base}}]


def _document(base: str, version: float, parameters: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    source = "return " + json.dumps([{"json": item} for item in items]) + ";"
    return {"name": "oracle", "nodes": [
        {"name": START, "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": input_name(0), "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0],
         "parameters": {"jsCode": source}},
        {"name": UNDER_TEST, "type": "n8n-nodes-base.telegram", "typeVersion": version, "position": [400, 0],
         "parameters": parameters,
         "credentials": {"telegramApi": {"id": CREDENTIAL_ID, "name": f"oracle telegram {base}"}}}],
        "connections": {START: {"main": [[{"node": input_name(0), "type": "main", "index": 0}]]},
                        input_name(0): {"main": [[{"node": UNDER_TEST, "type": "main", "index": 0}]]}},
        "settings": {"executionOrder": "v1"}}


def telegram_documents(base: str) -> list[tuple[str, dict[str, Any]]]:
    """Return (case id, workflow document) of the fixed Telegram sendMessage cases."""
    off = {"appendAttribution": False}
    cases = [
        (1.0, {"chatId": "42", "text": "={{ $json.text }}"}),
        (1.1, {"chatId": "={{ $json.chat }}", "text": "={{ $json.text }}", "additionalFields": off}),
        (1.2, {"chatId": "42", "text": "={{ $json.text }}", "additionalFields": {**off, "parse_mode": "HTML"}}),
        (1.2, {"chatId": "42", "text": "=see {{ $json.text }}",
               "additionalFields": {**off, "disable_notification": True}}),
    ]
    items = [{"text": "hello", "chat": 7}, {"text": "https://example.test/page", "chat": 8}]
    return [(f"telegram v{v:g} sendMessage #{i + 1}", _document(base, v, params, items))
            for i, (v, params) in enumerate(cases)]


class _TelegramContext:
    """A context whose calls go to the loopback server: the Telegram host swapped, the token put in the path."""

    def __init__(self, base: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.base = base

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   params: Any = None, headers: Any = None, data: Any = None, files: Any = None) -> httpx.Response:
        target = url.replace("https://api.telegram.org", self.base).replace(SECRET_SEGMENT, TOKEN)
        async with httpx.AsyncClient() as client:
            if files is not None:  # the gateway's own multipart body (queue_core.gateway.binary)
                form = multipart_encode(data, files)
                headers = {**(headers or {}), "Content-Type": form.content_type}
                response = await client.request(method, target, content=form.body, params=params, headers=headers)
            else:
                response = await client.request(method, target, json=json, params=params, headers=headers)
        response.raise_for_status()
        return response


def _scaffold_run(document: dict[str, Any], workdir: Path, base: str) -> Outcome:
    return run_with(document, workdir, _TelegramContext(base))


def telegram_file_documents(base: str) -> list[tuple[str, dict[str, Any]]]:
    """Return (case id, workflow document) of the fixed Telegram cases with binary data: sendAudio and
    sendDocument with Binary File (the input items carry ``data``, a CSV file), file.get with Download."""
    from tests.oracle.http_cases import _binary_input

    cases = [
        ("sendAudio binary", {"operation": "sendAudio", "chatId": "={{ $json.chat }}", "binaryData": True,
                              "additionalFields": {"caption": "listen"}}),
        ("sendDocument binary file name", {"operation": "sendDocument", "chatId": "42", "binaryData": True,
                                           "additionalFields": {"fileName": "renamed.csv", "disable_notification": True}}),
        ("file get download", {"resource": "file", "fileId": "={{ $json.text }}", "additionalFields": {}}),
        ("file get mime type", {"resource": "file", "fileId": "F1", "additionalFields": {"mimeType": "audio/x-test"}}),
    ]
    items = [{"text": "hello", "chat": 7}]
    return [(f"telegram v1.2 {label}", _binary_input(_document(base, 1.2, params, items), ("data",)))
            for label, params in cases]


def measure(base: str, files: bool = False) -> list[tuple[str, Outcome, Outcome, list[str]]]:
    """Run every Telegram case in n8n (one batch, with the credential) and in the scaffold; return the differences.

    ``files``: the cases with binary data (``telegram_file_documents``) instead of sendMessage's.
    """
    cases = telegram_file_documents(base) if files else telegram_documents(base)
    documents = [{**doc, "id": runner.workflow_id(i)} for i, (_, doc) in enumerate(cases)]
    oracle, _ = runner.cached_run(documents, credentials=credentials(base))
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-app-") as tmp:
        for index, ((case_id, _), document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
            got = _scaffold_run(document, Path(tmp) / str(index), base)
            found = differences(expected, got, [n["name"] for n in document["nodes"]]) if got.translated else []
            results.append((case_id, expected, got, found))
    return results

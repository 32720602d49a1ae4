"""Respond to Webhook (v1 … v1.5) and the Webhook's "When Last Node Finishes": the HTTP answer, n8n against the scaffold.

Each case is a workflow ``Webhook -> Input 1 (a Code node returning literal items) -> Node under
test`` (the Respond to Webhook node; none for a Webhook answering with its last node). n8n runs as
a server (``n8n start`` on a loopback port, every workflow active) and each case's webhook is
called once with a POST; the answer's status, its content type, the headers the node sets, and
its body are kept. The scaffold side runs the same workflow file's generated module with a
context that keeps what ``ctx.respond`` was given, rendered as ``cutover serve`` renders a held
request's answer (``queue_core.server.reply.reply_of`` / ``Reply.rendered``).

Compared: status; content type up to its parameters (n8n says ``application/json; charset=utf-8``,
cutover ``application/json``: the charset is a parameter both write as UTF-8); every header the
node sets (``responseHeaders``, ``location``); the body — as JSON when the answer is JSON, else its
bytes.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from psycopg import sql

from queue_core.server.reply import reply_of

from tests.oracle import runner
from tests.oracle.datatable_cases import _free_port, wait_started
from tests.oracle.scaffolded import _OfflineContext, scaffolded
from tests.oracle.workflow import UNDER_TEST, _code_node

NODE = "n8n-nodes-base.respondToWebhook"
VERSIONS = (1, 1.1, 1.2, 1.3, 1.4, 1.5)
WEBHOOK = "Webhook"
ITEMS = [{"name": "ada", "n": 1, "deep": {"x": [1, 2]}}, {"name": "bo", "n": 2.5, "ok": True}]
_HEADERS = {"entries": [{"name": "X-Custom", "value": "={{ $json.name }}"}, {"name": "Cache-Control", "value": "no-store"}]}


@dataclass(frozen=True)
class RespondCase:
    """One workflow: the webhook's parameters, the items its Code node returns, the node under test (or none)."""

    id: str
    webhook: dict[str, Any]
    items: list[dict[str, Any]]
    node: dict[str, Any] | None = None  # {"typeVersion": …, "parameters": …}
    webhook_version: float = 2

    @property
    def version(self) -> float | None:
        return None if self.node is None else float(self.node["typeVersion"])


@dataclass
class Answer:
    """What a caller got: status, content type (no parameters), the headers a node set, the body."""

    status: int
    content_type: str
    headers: dict[str, str]
    body: Any


def _respond(version: float, params: dict[str, Any]) -> dict[str, Any]:
    return {"typeVersion": version, "parameters": params}


_RESPONSE_NODE = {"httpMethod": "POST", "responseMode": "responseNode", "options": {}}
# (label, respond node parameters, items); every one runs on every version
_RESPOND_PARAMS: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    ("default", {}, ITEMS),
    ("first", {"respondWith": "firstIncomingItem"}, ITEMS),
    ("first key", {"respondWith": "firstIncomingItem", "options": {"responseKey": "data.inner"}}, ITEMS),
    ("all", {"respondWith": "allIncomingItems"}, ITEMS),
    ("all key code", {"respondWith": "allIncomingItems", "options": {"responseKey": "rows", "responseCode": 201}}, ITEMS),
    ("json", {"respondWith": "json", "responseBody": '={ "who": "{{ $json.name }}", "n": {{ $json.n }} }'}, ITEMS),
    ("json default body", {"respondWith": "json"}, ITEMS),
    ("json expression object", {"respondWith": "json", "responseBody": "={{ $json.deep }}"}, ITEMS),
    ("json headers", {"respondWith": "json", "responseBody": '{"a": 1}',
                      "options": {"responseHeaders": _HEADERS, "responseCode": 202}}, ITEMS),
    ("json content type", {"respondWith": "json", "responseBody": '{"a": [1, "x"]}',
                           "options": {"responseHeaders": {"entries": [
                               {"name": "Content-Type", "value": "application/vnd.api+json"}]}}}, ITEMS),
    ("text", {"respondWith": "text", "responseBody": "=hello {{ $json.name }}"}, ITEMS),
    ("text html", {"respondWith": "text", "responseBody": "<b>hi</b>", "options": {
        "responseHeaders": {"entries": [{"name": "content-type", "value": "text/html"}]}}}, ITEMS),
    ("text empty", {"respondWith": "text"}, ITEMS),
    ("text looks json", {"respondWith": "text", "responseBody": '{"a": 1}'}, ITEMS),
    ("noData", {"respondWith": "noData"}, ITEMS),
    ("noData code", {"respondWith": "noData", "options": {"responseCode": 204}}, ITEMS),
    ("redirect", {"respondWith": "redirect", "redirectURL": "=https://example.com/{{ $json.name }}"}, ITEMS),
    ("redirect 302", {"respondWith": "redirect", "redirectURL": "https://example.com/",
                      "options": {"responseCode": 302}}, ITEMS),
    ("first empty json", {"respondWith": "firstIncomingItem"}, [{}]),
    ("response output", {"respondWith": "json", "responseBody": '{"ok": true}', "enableResponseOutput": True}, ITEMS),
]
_LAST_NODE: list[tuple[str, float, dict[str, Any]]] = [
    ("lastNode first", 2, {"httpMethod": "POST", "responseMode": "lastNode", "options": {}}),
    ("lastNode all", 2, {"httpMethod": "POST", "responseMode": "lastNode", "responseData": "allEntries", "options": {}}),
    ("lastNode field", 2, {"httpMethod": "POST", "responseMode": "lastNode", "responseData": "firstEntryJson",
                           "options": {"responsePropertyName": "name"}}),
    ("lastNode noData", 2, {"httpMethod": "POST", "responseMode": "lastNode", "responseData": "noData", "options": {}}),
    ("lastNode code v2", 2, {"httpMethod": "POST", "responseMode": "lastNode", "responseData": "allEntries",
                             "options": {"responseCode": {"values": {"responseCode": 201}}}}),
    ("lastNode v1", 1, {"httpMethod": "POST", "responseMode": "lastNode", "responseCode": 202, "options": {}}),
    ("lastNode v1 all", 1, {"httpMethod": "POST", "responseMode": "lastNode", "responseData": "allEntries"}),
    ("lastNode v2.1", 2.1, {"httpMethod": "POST", "responseMode": "lastNode", "options": {}}),
]


def respond_cases() -> list[RespondCase]:
    """Return every case: each Respond to Webhook parameter set on every version, then the last-node answers."""
    out = []
    for version in VERSIONS:
        for label, params, items in _RESPOND_PARAMS:
            out.append(RespondCase(f"respondToWebhook v{version:g} {label}", _RESPONSE_NODE, items,
                                   _respond(version, params), webhook_version=2 if version >= 1.1 else 1))
    for label, version, params in _LAST_NODE:
        out.append(RespondCase(f"webhook v{version:g} {label}", params, ITEMS, None, webhook_version=version))
    return out


def document(case: RespondCase, index: int) -> dict[str, Any]:
    """Return the case's n8n workflow (export format), active, its webhook at ``/webhook/respond<index>``."""
    path = f"respond{index}"
    version = case.webhook_version
    nodes: list[dict[str, Any]] = [
        {"name": WEBHOOK, "type": "n8n-nodes-base.webhook", "typeVersion": int(version) if version == int(version) else version,
         "position": [0, 0], "webhookId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"cutover-respond-{path}")),
         "parameters": {**case.webhook, "path": path}},
        _code_node("Input 1", case.items, [200, 0])]
    connections: dict[str, Any] = {WEBHOOK: {"main": [[{"node": "Input 1", "type": "main", "index": 0}]]}}
    if case.node is not None:
        version = case.node["typeVersion"]
        nodes.append({"name": UNDER_TEST, "type": NODE, "typeVersion": int(version) if version == int(version) else version,
                      "position": [400, 0], "parameters": case.node["parameters"]})
        connections["Input 1"] = {"main": [[{"node": UNDER_TEST, "type": "main", "index": 0}]]}
    return {"id": runner.workflow_id(index), "name": f"oracle {case.id}", "active": True, "nodes": nodes,
            "connections": connections, "settings": {"executionOrder": "v1"}, "pinData": {}}


def _media(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _body(content: bytes, content_type: str) -> Any:
    if _media(content_type).endswith("json") and content:
        return json.loads(content)
    return content.decode("utf-8", "replace")


_SET_HEADERS = ("location", "x-custom", "cache-control")


def _answer(response: httpx.Response) -> Answer:
    media = response.headers.get("content-type", "")
    kept = {k: response.headers[k] for k in _SET_HEADERS if k in response.headers}
    return Answer(response.status_code, _media(media), kept, _body(response.content, media))


def _call(port: int, paths: list[str], process: subprocess.Popen[bytes]) -> list[Answer]:
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(timeout=60, follow_redirects=False) as client:
        wait_started(client, base, paths[0], process)
        return [_answer(client.post(f"{base}/webhook/{path}", json={"hello": "world"})) for path in paths]


def run_n8n(documents: list[dict[str, Any]]) -> list[Answer]:
    """Import the documents into a fresh n8n, start it on a loopback port, call every webhook once."""
    import os

    database = runner.Database.from_env()
    name = f"n8n_oracle_respond_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="cutover-n8n-respond-") as tmp:
        folder = Path(tmp)
        workflows = folder / "workflows"
        workflows.mkdir()
        for doc in documents:
            (workflows / f"{doc['id']}.json").write_text(json.dumps(doc), encoding="utf-8")
        env = {**runner._environment(folder / "n8n", database, name), "N8N_PORT": str(port),
               "N8N_LISTEN_ADDRESS": "127.0.0.1", "N8N_HOST": "127.0.0.1", "N8N_RUNNERS_BROKER_PORT": str(_free_port())}
        runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        process = None
        try:
            runner._n8n(["import:workflow", "--separate", f"--input={workflows}"], env, 300)
            runner._n8n(["update:workflow", "--all", "--active=true"], env, 300)
            process = subprocess.Popen([str(runner.n8n_binary()), "start"], env=env, cwd=str(runner.install_dir()),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return _call(port, [d["nodes"][0]["parameters"]["path"] for d in documents], process)
        finally:
            if process is not None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
            runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


class _RespondContext(_OfflineContext):
    """The offline context, keeping the first ``ctx.respond`` answer as ``Context.respond`` stores it."""

    def __init__(self) -> None:
        super().__init__()
        self.answer: dict[str, Any] | None = None

    async def respond(self, status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> None:
        if self.answer is None:
            self.answer = {"status": status, "headers": {str(k): str(v) for k, v in (headers or {}).items()},
                           "body": body}


def run_scaffold(doc: dict[str, Any], workdir: Path) -> tuple[Answer | None, bool, str | None]:
    """Scaffold ``doc``, run its module on a webhook delivery; return the answer, whether the node under
    test (or, with none, the webhook's answer) is translated, and the run's error."""
    import asyncio

    from queue_core.context import Trigger

    function, translated = scaffolded(doc, workdir)
    if not any(n["name"] == UNDER_TEST for n in doc["nodes"]):
        translated = "respond_last" in (workdir / "automations").joinpath("oracle.py").read_text(encoding="utf-8")
    ctx = _RespondContext()
    error = None
    try:
        asyncio.run(function(ctx, Trigger("oracle", None, {"content-type": "application/json"}, {"hello": "world"},
                                          "webhook")))
    except Exception as exc:  # noqa: BLE001 - a crash of generated code is an outcome, compared
        error = f"{type(exc).__name__}: {exc}"
    if ctx.answer is None:
        return None, translated, error
    reply = reply_of(ctx.answer)
    content, media = reply.rendered()
    media = reply.headers.get("content-type", media)  # as cutover serve answers (queue_core.server.api)
    headers = {**reply.headers, **({"content-type": media} if media is not None else {})}
    answer = _answer(httpx.Response(reply.status, headers=headers, content=content))
    return answer, translated, error


def measure(cases: list[RespondCase]) -> list[tuple[RespondCase, Answer, Answer | None, bool, list[str]]]:
    """Run every case on both sides; return (case, n8n's answer, the scaffold's, translated, differences)."""
    documents = [document(case, i) for i, case in enumerate(cases)]
    oracle = run_n8n(documents)
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-respond-") as tmp:
        for index, (case, doc, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
            got, translated, error = run_scaffold(doc, Path(tmp) / str(index))
            found: list[str] = []
            if got is None:
                found.append(f"the scaffold did not answer ({error})")
            else:
                for part in ("status", "content_type", "headers", "body"):
                    if getattr(expected, part) != getattr(got, part):
                        found.append(f"{part}: n8n {getattr(expected, part)!r}, the scaffold {getattr(got, part)!r}")
            results.append((case, expected, got, translated, found))
    return results

"""A loopback stand-in for the AI providers: fixed answers, and every request body kept for comparison.

Both sides of an AI case call it: the real n8n (its OpenAI, Anthropic and Gemini credentials'
base URLs point here) and the scaffolded module (its calls' provider base URLs are swapped for
this one). Routes, by what n8n's nodes call:

- ``…/chat/completions`` (OpenAI chat, LangChain's ChatOpenAI): a chat completion;
- ``…/responses`` (OpenAI v2 text.response): a response with one message;
- ``/v1/messages`` (Anthropic): a message;
- ``/v1beta/<model>:generateContent`` (Gemini): one candidate;
- ``GET /tool?…&case=<case>`` (an agent's HTTP tool): a fixed reading, the query echoed;
- ``GET /w/api.php`` (Wikipedia's API, n8n's fetch redirected by ``redirect_fetch.js``): two hits, an extract;
- ``POST /v1/audio/transcriptions`` (a multipart form, kept as its parts; the case the file name's prefix): a text;
- ``POST /v1/audio/speech``: ``SPEECH``, audio bytes;
- ``GET /search`` (SerpApi, redirected alike): a knowledge graph and organic results (``SERP``), the query kept.
- ``/upload/…`` and ``GET /v1beta/files/…``: Gemini's Files API (``ai_files``).

A case names its model ``<case>-<answer>``: ``<case>`` tells its requests apart from the other
cases' (n8n runs cases concurrently), ``<answer>`` picks the answer's text from ``ANSWERS``
(``tool``: a first answer asking for the first tool offered, then text; ``final``: the agent's
``format_final_json_response`` tool called with ``FINAL``; ``struct``: that JSON in a fenced block). It binds 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from email import policy
from email.parser import BytesParser
from urllib.parse import parse_qsl

from tests.oracle import ai_files

ANSWERS = {
    "text": "  The stand-in model answers.  ",
    "json": '{"subject": "Re: your mail", "message": "Thank you."}',
    "classify": '{"High": true, "Low": false}',
    "fallback": '{"High": true, "Low": true, "fallback": false}',
    "tool": "The tool said what it said.",
    "struct": 'Here it is:\n```json\n{"output": {"subject": "Re: mail", "score": 3, "ratio": 0.5, "urgent": true, '
              '"tags": ["a"], "people": [{"name": "x", "age": 2}], "meta": {"lang": "en"}}}\n```',
    "broken": "I cannot answer in JSON.",
    "wrongtype": '{"output": {"subject": 5, "score": "three"}}',
    "final": "unused: a first answer calling format_final_json_response, then this text",
    "fields": "unused: a first answer calling the first tool with each of its properties filled, then this text",
}
FINAL = {"output": {"subject": "Re: mail", "score": 3, "ratio": 0.5, "urgent": True, "tags": ["a"],
                    "people": [{"name": "x", "age": 2}], "meta": {"lang": "en"}}}


SERP = {"search_metadata": {"status": "Success"}, "knowledge_graph": {
    "title": "Zürich", "type": "City in Switzerland", "description": "Zürich is a city.", "population": "421,878",
    "website_link": "https://example.org", "header_images": [{"image": "x"}]},
    "organic_results": [{"position": 1, "title": "Zürich", "snippet": "The largest city — ünïcode.", "link": "https://x"}]}


SPEECH = b"ID3\x04\x00stand-in audio \xff\xfb"


def form_parts(content_type: str, raw: bytes) -> list[dict[str, Any]]:
    """Return a multipart form's parts in order: name, file name, content type and text (the bytes as latin-1)."""
    message = BytesParser(policy=policy.HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    return [{"name": part.get_param("name", header="content-disposition"),
             "filename": part.get_filename(), "type": part.get_content_type() if part.get("content-type") else None,
             "value": (part.get_payload(decode=True) or b"").decode("latin-1")} for part in message.iter_parts()]


def mime_fields(body: dict[str, Any]) -> dict[str, Any]:
    """Return what a Gmail send's MIME message says (its ``raw``, base64url): addressees, subject, type, text.

    The two sides build the message with different libraries (boundaries, Message-ID, Date and line
    folding differ), so what is compared is what the message says, not its bytes.
    """
    raw = str(body.get("raw", ""))
    message = BytesParser(policy=policy.default).parsebytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    part = message.get_body(("plain", "html"))
    return {"to": message.get("to"), "cc": message.get("cc"), "subject": message.get("subject"),
            "type": part.get_content_type() if part else None,
            "text": part.get_content().strip() if part else None, **({k: v for k, v in body.items() if k != "raw"})}


ENTRA_TOKEN = {"token_type": "Bearer", "expires_in": 3600, "expires_on": 4102444800, "access_token": "oracle-entra-token"}


@dataclass
class StandInRequests:
    """The requests the stand-in answered: (case, path, body) in arrival order."""

    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    auth: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # Azure: (case, api-key, Authorization)

    def auth_of(self, case: str) -> list[tuple[str | None, str | None]]:
        """Return one case's Azure OpenAI calls' credentials (the api-key and Authorization headers), in order."""
        with self.lock:
            return [(key, bearer) for c, key, bearer in self.auth if c == case]

    def of(self, case: str) -> list[tuple[str, Any]]:
        """Return one case's requests (path, body), in order."""
        with self.lock:
            return [(path, body) for c, path, body in self.requests if c == case]

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()
            self.auth.clear()


def _model(path: str, body: Any) -> str:
    if ":generateContent" in path:
        return path.rsplit("/", 1)[-1].split(":", 1)[0]
    return str(body.get("model", "")) if isinstance(body, dict) else ""


def _wants_tool(body: dict[str, Any]) -> bool:
    asked = any(m.get("role") == "tool" for m in body.get("messages") or [] if isinstance(m, dict))
    return bool(body.get("tools")) and not asked


def answer(path: str, body: Any) -> dict[str, Any]:
    """Return the stand-in's answer to one request (a function of the path and body only)."""
    model = _model(path, body)
    kind = model.rsplit("-", 1)[-1]
    text = ANSWERS.get(kind, ANSWERS["text"])
    if path.endswith("/chat/completions"):
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
        finish = "stop"
        if kind == "tool" and _wants_tool(body):
            name = body["tools"][0]["function"]["name"]
            message = {"role": "assistant", "content": None, "refusal": None, "annotations": [], "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(
                    {"input": f"{model.rsplit('-', 1)[0]} ping"})}}]}
            finish = "tool_calls"
        if kind == "fields" and _wants_tool(body):  # an app tool: each schema property "<case> <property>"
            function = body["tools"][0]["function"]
            arguments = {k: f"{model.rsplit('-', 1)[0]} {k}" for k in function["parameters"].get("properties", {})}
            message = {"role": "assistant", "content": None, "refusal": None, "annotations": [], "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": function["name"],
                                                                  "arguments": json.dumps(arguments)}}]}
            finish = "tool_calls"
        if kind == "final" and body.get("tools"):  # the agent's output-parser tool, called with a fitting answer
            message = {"role": "assistant", "content": None, "refusal": None, "annotations": [], "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "format_final_json_response",
                                                                  "arguments": json.dumps(FINAL)}}]}
            finish = "tool_calls"
        return {"id": "chatcmpl-standin", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    if path.endswith("/responses"):
        return {"id": "resp_standin", "object": "response", "created_at": 0, "status": "completed", "model": model,
                "output": [{"id": "msg_standin", "type": "message", "status": "completed", "role": "assistant",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}
    if path.endswith("/v1/messages"):
        return {"id": "msg_standin", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}
    return {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": model}


def events(completion: dict[str, Any]) -> str:
    """A chat completion as the server-sent events of a streamed one (role, content, tool calls, finish, usage)."""
    head = {k: completion[k] for k in ("id", "created", "model")}
    message = completion["choices"][0]["message"]
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if message.get("content"):
        deltas.append({"content": message["content"]})
    for index, call in enumerate(message.get("tool_calls") or []):
        deltas.append({"tool_calls": [{"index": index, **call}]})
    chunks = [{**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
              for d in deltas]
    chunks.append({**head, "object": "chat.completion.chunk",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": completion["choices"][0]["finish_reason"]}]})
    chunks.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": completion["usage"]})
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def wikipedia(fields: dict[str, str]) -> dict[str, Any]:
    """Wikipedia's API as the stand-in answers it: two hits for a search, a short extract for a page."""
    if fields.get("list") == "search":
        return {"batchcomplete": "", "query": {"searchinfo": {"totalhits": 2}, "search": [
            {"ns": 0, "title": f"{fields.get('srsearch')} One", "pageid": 1},
            {"ns": 0, "title": f"{fields.get('srsearch')} Two", "pageid": 2}]}}
    title = fields.get("titles", "")
    return {"batchcomplete": "", "query": {"pages": {"7": {"pageid": 7, "ns": 0, "title": title,
                                                          "extract": f"About {title}: ünïcode & more."}}}}


def _handler(seen: StandInRequests) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            return None

        def _base(self) -> str:
            return f"http://127.0.0.1:{self.server.server_address[1]}"  # type: ignore[index]

        def _send(self, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response_only(200)
            for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            """A tool's call: an HTTP tool's (a fixed reading) or Wikipedia's API (its search, a page's extract);
            or a Gemini file's state (``ai_files``)."""
            if self.path.startswith("/v1beta/files/"):
                case, file = ai_files.get(self.path.split("?", 1)[0])
                with seen.lock:
                    seen.requests.append((case, self.path.split("?", 1)[0], None))
                self._send(file)
                return
            path, _, query = self.path.partition("?")
            fields = dict(parse_qsl(query))
            case = fields.get("case") or (fields.get("srsearch") or fields.get("titles") or fields.get("q") or "").split(
                " ", 1)[0]
            with seen.lock:
                seen.requests.append((case, path, query))
            got = wikipedia(fields) if path == "/w/api.php" else SERP if path == "/search" else {"reading": 21,
                                                                                                  "query": query}
            data = json.dumps(got).encode()
            self.send_response_only(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def _send_bytes(self, data: bytes, content_type: str) -> None:
            self.send_response_only(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            if self.path.startswith("/upload/"):  # Gemini's Files API (ai_files)
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else b""
                if self.path.startswith("/upload/v1beta/files"):
                    headers, opened = ai_files.start(self._base(), self.headers)
                    self._send(opened, headers)
                    return
                case, kept, filed = ai_files.finish(self._base(), self.path.split("?", 1)[0], data)
                with seen.lock:
                    seen.requests.append((case, "/upload/session", kept))
                self._send(filed)
                return
            length = int(self.headers.get("Content-Length") or 0)
            data_ = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            if path.endswith("/audio/transcriptions"):  # a multipart form: its parts, the case the file's prefix
                parts = form_parts(str(self.headers.get("Content-Type")), data_)
                case = next((str(p["filename"]).split("-", 1)[0] for p in parts if p["filename"]), "")
                with seen.lock:
                    seen.requests.append((case, path, parts))
                return self._send_bytes(json.dumps({"text": "The stand-in heard you."}).encode(), "application/json")
            if path.endswith("/messages/send"):  # Gmail: the MIME message read back, the case its subject's prefix
                sent = mime_fields(json.loads(data_))
                with seen.lock:
                    seen.requests.append((str(sent["subject"]).split(" ", 1)[0], path, sent))
                return self._send_bytes(json.dumps({"id": "m-standin", "threadId": "t-standin",
                                                    "labelIds": ["SENT"]}).encode(), "application/json")
            if path.endswith("/audio/speech"):
                body_ = json.loads(data_)
                with seen.lock:
                    seen.requests.append((str(body_.get("model", "")).rsplit("-", 1)[0], path, body_))
                return self._send_bytes(SPEECH, "audio/mpeg")
            raw = data_.decode("utf-8", "replace")
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw
            path = self.path.split("?", 1)[0]
            if path.endswith("/oauth2/token"):  # the Entra ID token of the Azure OpenAI Chat Model (client credentials)
                return self._send_bytes(json.dumps(ENTRA_TOKEN).encode(), "application/json")
            model = _model(path, body)
            with seen.lock:
                if path.startswith("/openai/deployments/"):  # Azure OpenAI: the query (api-version) and the secret
                    seen.auth.append((model.rsplit("-", 1)[0], self.headers.get("api-key"),
                                      self.headers.get("Authorization")))
                seen.requests.append((model.rsplit("-", 1)[0], self.path if path.startswith("/openai/deployments/")
                                      else path, body))
            got = answer(path, body)
            streamed = isinstance(body, dict) and body.get("stream") is True and "choices" in got
            data = (events(got) if streamed else json.dumps(got)).encode()
            self.send_response_only(200)
            self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def serving() -> Iterator[tuple[str, StandInRequests]]:
    """Serve on a free loopback port; yield its base URL and what it has seen."""
    seen = StandInRequests()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(seen))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()

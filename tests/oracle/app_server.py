"""The loopback stand-in for an app's API: it records every request and answers each case's canned replies.

Both sides of an app case send their requests here: the real n8n (every outbound HTTP(S) request
moved here by ``app_redirect.js``, which adds ``x-oracle-origin``, the scheme and host it was
going to) and the scaffolded module (``app_oracle``'s context, which sets the same header). A
request belongs to the case whose *mark* (``oracle-case-<n>-``, in the case's token, see
``app_oracle.mark``) it carries anywhere in its path, query, headers or body (a JWT in the body
is decoded first); one with no mark is kept under case ``None``.

Each case's replies (``Reply``) are tried in order; the first whose method and path match
answers (its status, JSON or text body and headers); a request no reply matches is answered
404 ``{"error": "no canned reply"}``, so a case that forgot a route fails visibly on both sides.
A reply with ``times`` answers that many requests and then gives way to the next matching one
(a first page, then the last). The server binds 127.0.0.1 only, on a free port.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.oracle.http_server import read_multipart

MARK = re.compile(r"oracle-case-(\d+)-")
ORIGIN = "x-oracle-origin"


@dataclass(frozen=True)
class Reply:
    """One canned answer: for ``method`` and a request path matching ``path`` (``fnmatch``: ``*`` spans ``/``)."""

    method: str
    path: str
    body: Any = None  # JSON (a dict or list), or text when ``content_type`` is not JSON
    status: int = 200
    content_type: str = "application/json; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    times: int | None = None  # answer this many matching requests, then let the next reply answer

    def matches(self, method: str, path: str) -> bool:
        return self.method.upper() == method.upper() and fnmatch.fnmatchcase(unquote(path), self.path)


@dataclass
class Seen:
    """One request as the stand-in read it (what a case compares)."""

    case: int | None
    method: str
    origin: str  # scheme and host it was going to
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # every header, names in lower case
    content_type: str  # without parameters
    body: Any  # JSON parsed; a form as name -> values; multipart as fields and file digests; else text
    status: int = 0  # what the stand-in answered

    def describe(self) -> dict[str, Any]:
        return {"method": self.method, "url": f"{self.origin}{self.path}", "query": self.query,
                "content_type": self.content_type, "body": self.body}


@dataclass
class StandIn:
    """The cases' replies and every request seen, shared with the server's threads."""

    replies: dict[int, list[Reply]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    used: dict[tuple[int, int], int] = field(default_factory=dict)  # (case, reply index) -> answered
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, case: int | None) -> list[Seen]:
        """Return one case's requests, in arrival order."""
        with self.lock:
            return [s for s in self.seen if s.case == case]

    def reset(self) -> None:
        """Forget the requests seen and the replies' counts (before the other side runs)."""
        with self.lock:
            self.seen.clear()
            self.used.clear()

    def answer(self, case: int | None, method: str, path: str) -> Reply | None:
        with self.lock:
            for index, reply in enumerate(self.replies.get(case, []) if case is not None else []):
                if not reply.matches(method, path):
                    continue
                count = self.used.get((case, index), 0)
                if reply.times is not None and count >= reply.times:
                    continue
                self.used[(case, index)] = count + 1
                return reply
        return None


def _jwt_claims(text: str) -> str:
    """Return the decoded payloads of the JWTs in ``text`` (a service account's token request carries one)."""
    out = []
    for token in re.findall(r"eyJ[\w-]+\.([\w-]+)\.[\w-]*", text):
        try:
            out.append(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("utf-8", "replace"))
        except ValueError:
            continue
    return " ".join(out)


def case_of(path: str, headers: dict[str, str], raw: bytes) -> int | None:
    """Return the case a request belongs to: the mark it carries (see the module's docstring)."""
    text = " ".join([unquote(path), *headers.values(), raw.decode("utf-8", "replace")])
    found = MARK.search(text) or MARK.search(_jwt_claims(text))
    return int(found.group(1)) if found else None


def read_body(content_type: str, raw: bytes) -> Any:
    """Return a body as a case compares it: JSON parsed, a form by name, a multipart form by part, else text."""
    if not raw:
        return None
    kind = content_type.split(";", 1)[0].strip().lower()
    text = raw.decode("utf-8", "replace")
    if kind.endswith("json"):
        try:
            return json.loads(text)
        except ValueError:
            return text
    if kind == "application/x-www-form-urlencoded":
        return parse_qs(text, keep_blank_values=True)
    if kind.startswith("multipart/"):
        return read_multipart(content_type, raw)
    return text


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            return None

        def _body(self) -> bytes:
            length = self.headers.get("Content-Length")
            if length is not None:
                return self.rfile.read(int(length))
            if "chunked" not in (self.headers.get("Transfer-Encoding") or "").lower():
                return b""
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()

        def _handle(self) -> None:
            raw = self._body()
            parts = urlsplit(self.path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            content_type = headers.get("content-type", "")
            case = case_of(self.path, headers, raw)
            seen = Seen(case, self.command, headers.get(ORIGIN, ""), parts.path,
                        parse_qs(parts.query, keep_blank_values=True), headers,
                        content_type.split(";", 1)[0].strip().lower(), read_body(content_type, raw))
            reply = state.answer(case, self.command, parts.path)
            if reply is None:
                status, kind, data, extra = 404, "application/json", json.dumps({"error": "no canned reply"}).encode(), ()
            else:
                body = reply.body
                data = body.encode() if isinstance(body, str) else body if isinstance(body, bytes) \
                    else json.dumps(body).encode()
                status, kind, extra = reply.status, reply.content_type, reply.headers
            seen.status = status
            with state.lock:
                state.seen.append(seen)
            self.send_response_only(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            for name, value in extra:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

    return Handler


@contextmanager
def serving(state: StandIn) -> Iterator[str]:
    """Serve ``state`` on a free loopback port for the block; yield the base URL (``http://127.0.0.1:<port>``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

"""A loopback HTTP server both sides of an HTTP Request case call: the same answers to n8n and to the scaffold.

Routes (every answer JSON unless said):

- ``/echo`` (any method): the request as seen — method, path, query (name -> list of values),
  the headers a case may set (content-type, authorization, x-api-key, x-case), and the body text
  (a form body parsed, name -> list of values, as a server reads it);
- ``/status/<code>``: ``{"status": code}`` with that status;
- ``/redirect``: 302 to ``/echo?from=redirect``;
- ``/text``: a text/plain body;
- ``/list``: a JSON array of two objects;
- ``/bot<token>/<method>``: Telegram's Bot API shape, ``{"ok": true, "result": {method, token, body}}``
  (an app node whose credential's base URL is this server calls it).

It binds 127.0.0.1 only, on ``PORT`` when free (so the oracle's cached outcomes, keyed by the
workflow and so by its URLs, are reused) else on a free port.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PORT = 48123
ECHOED = ("content-type", "authorization", "x-api-key", "x-case")


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        return None

    def _answer(self, status: int, body: object, content_type: str = "application/json",
                headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body, sort_keys=True).encode()
        self.send_response_only(status)  # no Date or Server header: both sides see the same answer
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Server", "oracle")
        self.send_header("Connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if parts.path == "/echo":
            seen = {name: self.headers[name] for name in ECHOED if self.headers.get(name) is not None}
            if "x-www-form-urlencoded" in (self.headers.get("content-type") or ""):
                body = parse_qs(body)  # a form is read as a server reads it: "a+b" and "a%20b" are one value
            self._answer(200, {"method": self.command, "path": parts.path, "query": parse_qs(parts.query),
                               "headers": seen, "body": body})
        elif parts.path.startswith("/status/"):
            code = int(parts.path.rsplit("/", 1)[1])
            self._answer(code, {"status": code})
        elif parts.path == "/redirect":
            self._answer(302, {"moved": True}, headers={"Location": "/echo?from=redirect"})
        elif parts.path == "/text":
            self._answer(200, "plain words", "text/plain")
        elif parts.path == "/list":
            self._answer(200, [{"n": 1}, {"n": 2}])
        elif parts.path.startswith("/bot") and parts.path.count("/") == 2:  # Telegram's Bot API shape
            token, method = parts.path[len("/bot"):].split("/")
            sent = json.loads(body) if body and "json" in (self.headers.get("content-type") or "") else body
            self._answer(200, {"ok": True, "result": {"method": method, "token": token, "body": sent}})
        else:
            self._answer(404, {"error": "no such route"})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@contextmanager
def serving() -> Iterator[str]:
    """Serve on loopback for the block; yield the base URL (``http://127.0.0.1:<port>``)."""
    server = ThreadingHTTPServer(("127.0.0.1", PORT if _free(PORT) else 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

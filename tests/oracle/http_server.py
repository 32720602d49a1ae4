"""A loopback HTTP server both sides of an HTTP Request case call: the same answers to n8n and to the scaffold.

Routes (every answer JSON unless said):

- ``/echo`` (any method): the request as seen — method, path, query (name -> list of values),
  the headers a case may set (content-type, authorization, x-api-key, x-case), and the body text
  (a form body parsed, name -> list of values, as a server reads it);
- ``/status/<code>``: ``{"status": code}`` with that status;
- ``/redirect``: 302 to ``/echo?from=redirect``;
- ``/text``: a text/plain body;
- ``/list``: a JSON array of two objects;
- ``/file/<name>``: the bytes of ``FILE`` (not text: a PNG signature, a NUL, every byte value), typed by
  the name's extension (``application/octet-stream`` for none); ``/file/attached/<name>`` adds
  ``Content-Disposition: attachment; filename="<name>"`` (and answers ``image/png``);
- ``/upload``: a multipart form as the server read it: ``{"fields": {name: value}, "files": {name:
  {"filename", "contentType", "size", "sha256"}}}`` (the bytes each side sent, by digest);
- ``/bot<token>/<method>``: Telegram's Bot API shape, ``{"ok": true, "result": {method, token, body}}``
  (a multipart body as ``/upload`` reads it; ``getFile`` adds ``file_path``, which ``/file/bot<token>/…`` serves)
  (an app node whose credential's base URL is this server calls it).

It binds 127.0.0.1 only, on ``PORT`` when free (so the oracle's cached outcomes, keyed by the
workflow and so by its URLs, are reused) else on a free port.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import socket
from email.parser import BytesParser
from email.policy import HTTP
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PORT = 48123
ECHOED = ("content-type", "authorization", "x-api-key", "x-case")
FILE = b"\x89PNG\r\n\x1a\n\x00" + bytes(range(256)) * 5  # 1,289 bytes, not UTF-8


def read_multipart(content_type: str, body: bytes) -> dict[str, Any]:
    """Return a multipart body as ``/upload`` answers it (fields by value, files by digest)."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields: dict[str, Any] = {}
    files: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields[str(name)] = data.decode("utf-8", "replace")
        else:
            files[str(name)] = {"filename": filename, "contentType": part.get_content_type(), "size": len(data),
                                "sha256": hashlib.sha256(data).hexdigest()}
    return {"fields": fields, "files": files}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        return None

    def _answer(self, status: int, body: object, content_type: str = "application/json",
                headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) \
            else json.dumps(body, sort_keys=True).encode()
        self.send_response_only(status)  # no Date or Server header: both sides see the same answer
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Server", "oracle")
        self.send_header("Connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _chunked(self) -> bytes:
        """Read a chunked body (a streamed multipart form has no Content-Length)."""
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
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else self._chunked()
        body: Any = raw.decode("utf-8", "replace")
        if parts.path == "/upload":
            self._answer(200, read_multipart(self.headers.get("content-type") or "", raw))
        elif parts.path.startswith("/file/attached/"):
            name = parts.path.rsplit("/", 1)[1]
            self._answer(200, FILE, "image/png", {"Content-Disposition": f'attachment; filename="{name}"'})
        elif parts.path.startswith("/file/"):
            kind = mimetypes.guess_type(parts.path)[0] or "application/octet-stream"
            self._answer(200, FILE, kind)
        elif parts.path == "/echo":
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
            kind = self.headers.get("content-type") or ""
            sent = json.loads(body) if body and "json" in kind else read_multipart(kind, raw) \
                if kind.startswith("multipart/") else body
            result = {"method": method, "token": token, "body": sent}
            if method == "getFile":  # where Telegram keeps the file: /file/bot<token>/<file_path>
                result["file_path"] = "voice/file_7.oga"
            self._answer(200, {"ok": True, "result": result})
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

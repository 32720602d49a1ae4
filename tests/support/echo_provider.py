"""A provider on 127.0.0.1 that echoes the credentials it receives, as careless real APIs do.

Any method and path; the status is the path's number (``/401``, ``/500``), else 200. The JSON
body quotes the ``Authorization`` header in ``error`` ("invalid credentials: Bearer …") and the
``X-Api-Key`` header in ``echo``. The ``echo`` fixture yields its base URL.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self._answer()

    def _answer(self) -> None:
        path = self.path.strip("/")
        body = json.dumps({"error": f"invalid credentials: {self.headers.get('authorization')}",
                           "echo": {"x-api-key": self.headers.get("x-api-key")}}).encode()
        self.send_response(int(path) if path.isdigit() else 200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:  # quiet: the tests grep stderr for secrets
        pass


@pytest.fixture
def echo() -> Iterator[str]:
    """Run the echoing provider for one test; yield its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()

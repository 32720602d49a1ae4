"""RSS Read (v1, v1.1, v1.2) against the real n8n: both sides fetch feeds from one loopback server.

The server serves ``feed_documents.FEEDS`` and ``/feeds/echo.xml``, an RSS feed whose one item
holds the request's ``User-Agent`` and ``Accept`` headers (so what each side asked with is part of
the output compared, and n8n's cached outcomes stay valid), and answers 404 elsewhere. The scaffold
runs the same workflow file; its context sends each call to the URL as the gateway would, so its
items are ``n8n.rss_items`` of the same bytes n8n's rss-parser read.
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from queue_core.context import Trigger

from tests.oracle import runner
from tests.oracle.scaffolded import run_with
from tests.oracle.feed_documents import FEEDS
from tests.oracle.outcome import Outcome, differences
from tests.oracle.workflow import START, UNDER_TEST, input_name

PORT = 48131
VERSIONS = (1.0, 1.1, 1.2)
CUSTOM = "media:thumbnail, yt:videoId,media:group"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        return None

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        path = urlsplit(self.path).path
        if path == "/feeds/echo.xml":
            agent, accept = (self.headers.get(h) or "" for h in ("User-Agent", "Accept"))
            body = (f'<rss version="2.0"><channel><item><title>{agent}</title><description>{accept}</description>'
                    "</item></channel></rss>").encode()
            content_type = "application/rss+xml"
        elif path in FEEDS:
            content_type, body = FEEDS[path]
        else:
            content_type, body = "text/plain", b"no such feed"
        self.send_response_only(200 if path in FEEDS or path == "/feeds/echo.xml" else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving() -> Iterator[str]:
    """Serve the feeds on loopback for the block; yield the base URL."""
    with socket.socket() as probe:
        free = probe.connect_ex(("127.0.0.1", PORT)) != 0
    server = ThreadingHTTPServer(("127.0.0.1", PORT if free else 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _document(version: float, parameters: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    source = "return " + json.dumps([{"json": item} for item in items]) + ";"
    return {"name": "oracle", "nodes": [
        {"name": START, "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": input_name(0), "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0],
         "parameters": {"jsCode": source}},
        {"name": UNDER_TEST, "type": "n8n-nodes-base.rssFeedRead", "typeVersion": version, "position": [400, 0],
         "parameters": parameters}],
        "connections": {START: {"main": [[{"node": input_name(0), "type": "main", "index": 0}]]},
                        input_name(0): {"main": [[{"node": UNDER_TEST, "type": "main", "index": 0}]]}},
        "settings": {"executionOrder": "v1"}}


def feed_cases(base: str) -> list[tuple[str, dict[str, Any]]]:
    """Return (case id, workflow document) of the fixed RSS Read cases."""
    two = [{"n": 1}, {"n": 2}]  # v1 reads the feed once, v1.1+ once per item
    cases: list[tuple[str, dict[str, Any]]] = []
    for version in VERSIONS:
        for path in [*FEEDS, "/feeds/echo.xml", "/feeds/missing.xml"]:
            cases.append((f"rssFeedRead v{version:g} {path}", _document(version, {"url": base + path}, two)))
        computed = [{"base": base, "name": "rss2.xml"}, {"base": base, "name": "atom.xml"}]
        cases.append((f"rssFeedRead v{version:g} computed URL", _document(
            version, {"url": "={{ $json.base }}/feeds/{{ $json.name }}", "options": {}}, computed)))
        for path in ("/feeds/rss2.xml", "/feeds/atom.xml"):
            cases.append((f"rssFeedRead v{version:g} {path} custom fields", _document(
                version, {"url": base + path, "options": {"customFields": CUSTOM}}, two[:1])))
    return cases


class _FeedContext:
    """A context whose calls go straight to the loopback server, as the gateway sends them live."""

    def __init__(self, base: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.providers = {"feeds": base}

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, headers: Any = None) -> httpx.Response:
        async with httpx.AsyncClient() as client:
            response = await client.request(method, url, headers=headers)
        response.raise_for_status()
        return response


def _scaffold_run(document: dict[str, Any], workdir: Path, base: str) -> Outcome:
    return run_with(document, workdir, _FeedContext(base))


def measure(base: str) -> list[tuple[str, Outcome, Outcome, list[str]]]:
    """Run every RSS Read case in n8n (one batch) and in the scaffold; return the differences."""
    cases = feed_cases(base)
    documents = [{**doc, "id": runner.workflow_id(i)} for i, (_, doc) in enumerate(cases)]
    oracle, _ = runner.cached_run(documents)
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-rss-") as tmp:
        for index, ((case_id, _), document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
            got = _scaffold_run(document, Path(tmp) / str(index), base)
            found = differences(expected, got, [n["name"] for n in document["nodes"]]) if got.translated else []
            results.append((case_id, expected, got, found))
    return results

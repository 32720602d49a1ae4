"""A small real HTTP provider on 127.0.0.1 for gateway tests and benchmarks.

It behaves like a careful third-party API:

- enforces its own rate limit (a token bucket of ``limit`` per ``window`` seconds, bursting to
  ``limit``) and answers excess requests with 429 and ``Retry-After``;
- honours idempotency keys: the first request with a key applies its effect (appends to
  ``effects``) and stores the response; later requests with that key get the stored response and
  apply nothing; a request racing one in progress waits for it;
- can be told to fail the next N requests with a status, or to apply the effect and then stall
  for a while before answering (so the client times out after the effect happened).

``GET /_stats`` returns the counters as JSON (not rate limited), for use across processes.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class _State:
    limit: int | None
    window: float
    tokens: float = 0.0
    refreshed: float = field(default_factory=time.monotonic)
    fail_next: list[int] = field(default_factory=list)
    stall_next: list[float] = field(default_factory=list)
    stored: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    key_locks: dict[str, threading.Lock] = field(default_factory=dict)
    effects: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Seen] = field(default_factory=list)
    throttled: int = 0
    served: int = 0
    in_progress: int = 0
    max_in_progress: int = 0


class FakeProvider:
    """The fake provider; ``with FakeProvider(limit=10).running() as fp: fp.url``."""

    def __init__(self, *, limit: int | None = None, window: float = 1.0, port: int = 0,
                 keep_requests: bool = True, latency: float = 0.0) -> None:
        self.state = _State(limit=limit, window=window, tokens=float(limit or 0))
        self.latency = latency  # seconds every answer takes, like a real API's processing time
        self.lock = threading.Lock()
        self.keep_requests = keep_requests
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread: threading.Thread | None = None

    @contextmanager
    def running(self) -> Iterator[FakeProvider]:
        """Serve in a background thread for the duration of the block."""
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
            self._thread.join()

    # -- test controls ------------------------------------------------------------------------

    def fail_next(self, n: int, status: int = 500) -> None:
        """Answer the next ``n`` (non-stats) requests with ``status`` and no effect."""
        with self.lock:
            self.state.fail_next.extend([status] * n)

    def stall_next(self, n: int, seconds: float) -> None:
        """Apply the next ``n`` effects, then wait ``seconds`` before answering."""
        with self.lock:
            self.state.stall_next.extend([seconds] * n)

    @property
    def effects(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.state.effects)

    @property
    def requests(self) -> list[Seen]:
        with self.lock:
            return list(self.state.requests)

    @property
    def throttled(self) -> int:
        with self.lock:
            return self.state.throttled

    def stats(self) -> dict[str, Any]:
        with self.lock:
            s = self.state
            return {"served": s.served, "throttled": s.throttled, "effects": len(s.effects),
                    "requests": len(s.requests), "max_in_progress": s.max_in_progress}

    # -- request handling ---------------------------------------------------------------------

    def _take_token(self) -> float:
        """Spend a token; return 0 when granted, else the seconds until one is available."""
        s = self.state
        if s.limit is None:
            return 0.0
        now = time.monotonic()
        s.tokens = min(float(s.limit), s.tokens + (now - s.refreshed) * s.limit / s.window)
        s.refreshed = now
        if s.tokens >= 1.0:
            s.tokens -= 1.0
            return 0.0
        return (1.0 - s.tokens) * s.window / s.limit

    def handle(self, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            if self.keep_requests:
                self.state.requests.append(seen)
            wait = self._take_token()
            if wait > 0:
                self.state.throttled += 1
                headers = {"Retry-After": str(max(1, math.ceil(wait))),
                           "RateLimit-Policy": f"{self.state.limit};w={self.state.window:g}",
                           "RateLimit": f"limit={self.state.limit}, remaining=0, reset={max(1, math.ceil(wait))}"}
                return 429, headers, b'{"error": "rate limited"}'
            if self.state.fail_next:
                return self.state.fail_next.pop(0), {}, b'{"error": "injected failure"}'
            self.state.served += 1
        key = seen.headers.get("idempotency-key")
        if seen.method == "GET" or key is None:
            return 200, {}, json.dumps({"path": seen.path, "ok": True}).encode()
        with self._key_lock(key):
            with self.lock:
                if key in self.state.stored:
                    status, body = self.state.stored[key]
                    return status, {"Idempotent-Replayed": "true"}, body
                effect = {"key": key, "path": seen.path, "body": json.loads(seen.body or b"null")}
                self.state.effects.append(effect)
                body = json.dumps({"id": len(self.state.effects), "effect": effect}).encode()
                self.state.stored[key] = (201, body)
                stall = self.state.stall_next.pop(0) if self.state.stall_next else 0.0
            if stall:
                time.sleep(stall)
            return 201, {}, body

    def _key_lock(self, key: str) -> threading.Lock:
        with self.lock:
            return self.state.key_locks.setdefault(key, threading.Lock())


def _handler_for(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.path == "/_stats":
                status, headers, payload = 200, {}, json.dumps(provider.stats()).encode()
            else:
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with provider.lock:
                    provider.state.in_progress += 1
                    provider.state.max_in_progress = max(provider.state.max_in_progress, provider.state.in_progress)
                try:
                    if provider.latency:
                        time.sleep(provider.latency)
                    status, headers, payload = provider.handle(seen)
                finally:
                    with provider.lock:
                        provider.state.in_progress -= 1
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            try:
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve_in_process(limit: int | None, window: float, ready: Any, stop: Any, latency: float = 0.0) -> None:
    """Run a FakeProvider until ``stop`` (an Event) is set; put its URL on ``ready`` (a Queue)."""
    provider = FakeProvider(limit=limit, window=window, keep_requests=False, latency=latency)
    with provider.running():
        ready.put(provider.url)
        stop.wait()

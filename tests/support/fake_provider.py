"""A small real HTTP provider on 127.0.0.1 for gateway tests and benchmarks.

It behaves like a careful third-party API:

- enforces its own rate limit by its own receive clock and answers excess requests with 429,
  ``Retry-After`` and ``RateLimit`` headers. By default a sliding window, the strictest way real
  providers count: a request is refused when more than ``limit`` requests (refused ones
  included) arrived in the last ``window`` seconds. ``counting="token_bucket"`` is a bucket of
  ``limit`` refilled at ``limit`` per ``window`` instead (what lenient providers do);
- honours idempotency keys: the first request with a key applies its effect (appends to
  ``effects``) and stores the response; later requests with that key get the stored response and
  apply nothing; a request racing one in progress waits for it;
- can be told to fail the next N requests with a status, or to apply the effect and then stall
  for a while before answering (so the client times out after the effect happened).

``GET /_stats`` returns the counters as JSON (not rate limited), for use across processes,
with the most requests it received in any ``window`` and in any 1 s (``worst_window``,
``worst_1s``); ``GET /_times`` every receive time, and those of the admitted requests.
"""

from __future__ import annotations

import bisect
import json
import math
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
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
    counting: str = "sliding"
    tokens: float = 0.0
    refreshed: float = field(default_factory=time.monotonic)
    recent: deque[float] = field(default_factory=deque)  # receive times within the last window
    received: list[float] = field(default_factory=list)  # every receive time (monotonic seconds)
    admitted: list[float] = field(default_factory=list)  # the receive times of those not refused
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
                 keep_requests: bool = True, latency: float = 0.0, counting: str = "sliding") -> None:
        if counting not in ("sliding", "token_bucket"):
            raise ValueError(f"counting must be 'sliding' or 'token_bucket', not {counting!r}")
        self.state = _State(limit=limit, window=window, counting=counting, tokens=float(limit or 0))
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

    @property
    def received(self) -> list[float]:
        """The receive time of every request (``time.monotonic()`` of this process)."""
        with self.lock:
            return list(self.state.received)

    def stats(self) -> dict[str, Any]:
        with self.lock:
            s = self.state
            received = list(s.received)
            return {"served": s.served, "throttled": s.throttled, "effects": len(s.effects),
                    "requests": len(s.requests), "received": len(received), "max_in_progress": s.max_in_progress,
                    "window": s.window, "limit": s.limit, "worst_window": worst_window(received, s.window),
                    "worst_1s": worst_window(received, 1.0),
                    "first_at": received[0] if received else None, "last_at": received[-1] if received else None}

    # -- request handling ---------------------------------------------------------------------

    def _take_token(self, now: float) -> float:
        """Admit one request received at ``now``; return 0 when admitted, else the seconds until
        one would be."""
        s = self.state
        if s.limit is None:
            return 0.0
        if s.counting == "sliding":  # every request counts, refused ones too: the strictest reading
            while s.recent and s.recent[0] <= now - s.window:
                s.recent.popleft()
            s.recent.append(now)
            if len(s.recent) <= s.limit:
                return 0.0
            # until so many have aged out that one more would be admitted
            return max(s.recent[len(s.recent) - s.limit] + s.window - now, 0.001)
        s.tokens = min(float(s.limit), s.tokens + (now - s.refreshed) * s.limit / s.window)
        s.refreshed = now
        if s.tokens >= 1.0:
            s.tokens -= 1.0
            return 0.0
        return (1.0 - s.tokens) * s.window / s.limit

    def handle(self, seen: Seen, received_at: float | None = None) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            now = time.monotonic() if received_at is None else received_at
            self.state.received.append(now)
            if self.keep_requests:
                self.state.requests.append(seen)
            wait = self._take_token(now)
            if wait > 0:
                self.state.throttled += 1
                headers = {"Retry-After": str(max(1, math.ceil(wait))),
                           "RateLimit-Policy": f"{self.state.limit};w={self.state.window:g}",
                           "RateLimit": f"limit={self.state.limit}, remaining=0, reset={max(1, math.ceil(wait))}"}
                return 429, headers, b'{"error": "rate limited"}'
            if self.state.fail_next:
                return self.state.fail_next.pop(0), {}, b'{"error": "injected failure"}'
            self.state.served += 1
            self.state.admitted.append(now)
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
            elif self.path == "/_times":  # every receive time, and those admitted (monotonic s)
                with provider.lock:
                    times = {"received": provider.state.received, "admitted": provider.state.admitted}
                    status, headers, payload = 200, {}, json.dumps(times).encode()
            else:
                received_at = time.monotonic()  # the provider's receive clock: headers and body are in
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with provider.lock:
                    provider.state.in_progress += 1
                    provider.state.max_in_progress = max(provider.state.max_in_progress, provider.state.in_progress)
                try:
                    if provider.latency:
                        time.sleep(provider.latency)
                    status, headers, payload = provider.handle(seen, received_at)
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


def worst_window(times: Sequence[float], window: float) -> int:
    """Return the most of ``times`` (sorted) that fall in any half-open interval of ``window`` s."""
    worst = 0
    for i, t in enumerate(times):
        worst = max(worst, bisect.bisect_left(times, t + window, lo=i) - i)
    return worst


def serve_in_process(limit: int | None, window: float, ready: Any, stop: Any, latency: float = 0.0,
                     counting: str = "sliding") -> None:
    """Run a FakeProvider until ``stop`` (an Event) is set; put its URL on ``ready`` (a Queue)."""
    provider = FakeProvider(limit=limit, window=window, keep_requests=False, latency=latency, counting=counting)
    with provider.running():
        ready.put(provider.url)
        stop.wait()

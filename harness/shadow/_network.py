"""The replay's network guard: no Python-level internet connection or DNS lookup while it runs."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from psycopg.conninfo import conninfo_to_dict

from harness.errors import ReplayNetworkBlockedError

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def _host_allowed(host: Any, allowed: frozenset[str]) -> bool:
    if host is None:
        return True
    text = host.decode() if isinstance(host, bytes) else str(host)
    return text in allowed or text in _LOOPBACK_NAMES and "localhost" in allowed


_guard_lock = threading.Lock()


@contextmanager
def network_guard(allowed_hosts: Iterable[str] = (), blocked: list[str] | None = None) -> Iterator[list[str]]:
    """Refuse internet connections and DNS lookups made from Python while the block runs.

    ``allowed_hosts`` may still be resolved (the database host: the async driver resolves it in
    Python before libpq connects). Unix sockets are untouched. Every refused destination is
    appended to the yielded list. Not reentrant across threads: one guard at a time.
    """
    seen = blocked if blocked is not None else []
    allowed = frozenset(allowed_hosts)
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def refuse(destination: str) -> ReplayNetworkBlockedError:
        seen.append(destination)
        return ReplayNetworkBlockedError(destination)

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise refuse(f"connect {address!r}")
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise refuse(f"connect {address!r}")
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _host_allowed(host, allowed):
            raise refuse(f"resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    with _guard_lock:
        socket.socket.connect = connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
        socket.getaddrinfo = getaddrinfo
        try:
            yield seen
        finally:
            socket.socket.connect = real_connect  # type: ignore[method-assign]
            socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
            socket.getaddrinfo = real_getaddrinfo


def database_hosts(db_url: str) -> frozenset[str]:
    """Return the host names a conninfo connects to (for :func:`network_guard`)."""
    params = conninfo_to_dict(db_url)
    hosts = {h for key in ("host", "hostaddr") for h in str(params.get(key) or "").split(",") if h}
    return frozenset(hosts | {"localhost"})

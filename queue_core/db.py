"""Connection pools configured the way the queue needs them, and how a worker splits its budget."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .errors import ConfigError

# A pool retries a failed connection attempt with exponential backoff (1 s, 2 s, 4 s, …) for
# ``reconnect_timeout``, 5 minutes by default: after a 40 s outage its next attempt came 19.5 s
# after the database was back. Giving an attempt up after RECONNECT_S instead caps the backoff;
# the next caller that waits for a connection starts a new attempt at once.
RECONNECT_S = 2.0


def _kwargs(application_name: str | None, connect_timeout_s: float | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"autocommit": True}
    if application_name:
        kwargs["application_name"] = application_name[:63]
    if connect_timeout_s is not None:
        kwargs["connect_timeout"] = max(2, math.ceil(connect_timeout_s))  # libpq's floor is 2 s
    return kwargs


def pool(conninfo: str, *, min_size: int = 1, max_size: int = 10, timeout_s: float = 30.0,
         reconnect_s: float = 5 * 60.0, application_name: str | None = None,
         connect_timeout_s: float | None = None) -> AsyncConnectionPool:
    """Return an unopened async pool (use ``async with``) that checks each connection on checkout.

    The check costs one round trip per checkout and buys recovery from a server restart or a
    terminated backend: a dead connection is replaced instead of failing the caller.
    ``timeout_s``: how long a checkout waits; ``reconnect_s``: how long one reconnection attempt
    backs off before it is given up (RECONNECT_S bounds recovery after an outage to seconds).
    """
    return AsyncConnectionPool(
        conninfo,
        min_size=min(min_size, max_size),
        max_size=max_size,
        open=False,
        timeout=timeout_s,
        reconnect_timeout=reconnect_s,
        check=AsyncConnectionPool.check_connection,
        kwargs=_kwargs(application_name, connect_timeout_s),
    )


def worker_pool(conninfo: Any, *, max_size: int, timeout_s: float,
                application_name: str | None = None) -> AsyncConnectionPool:
    """Return an unopened pool for a worker's own statements (claims, outcomes, heartbeats).

    No health check on checkout (a round trip per statement on the hot path): a dead connection
    fails one statement, which the worker retries, and the pool replaces it. Checkouts wait at
    most ``timeout_s``, connection attempts as long, and reconnection backs off at most
    RECONNECT_S, so a worker notices an outage within ``timeout_s`` and resumes within seconds
    of the database's return. ``conninfo``: a string, or what AsyncConnectionPool accepts.
    """
    return AsyncConnectionPool(
        conninfo, min_size=1, max_size=max_size, open=False, timeout=timeout_s,
        reconnect_timeout=RECONNECT_S, kwargs=_kwargs(application_name, timeout_s),
    )


@dataclass(frozen=True)
class ConnectionPlan:
    """How a worker process spends its ``--db-connections``: ``lanes + spare`` on its own
    statements (one per producer lane, the spare ones for heartbeats, wake-ups and vacuums),
    ``listener`` (0 or 1) on LISTEN, ``jobs`` on its jobs' steps and the gateway."""

    lanes: int
    own: int
    listener: int
    jobs: int

    @property
    def total(self) -> int:
        return self.own + self.listener + self.jobs


MIN_CONNECTIONS = 3


def default_connections(concurrency: int) -> int:
    """The default ``--db-connections``: a few for the worker itself, up to ten for its jobs."""
    return min(concurrency, 10) + 4


def plan_connections(total: int, *, concurrency: int, lanes: int = 2, listen: bool = True) -> ConnectionPlan:
    """Split ``total`` connections between a worker's lanes, heartbeats, listener and jobs.

    The listener is dropped (the worker polls) below four connections; a second lane needs
    six. Raises ConfigError below MIN_CONNECTIONS (a lane, a heartbeat, a job connection).
    """
    if total < MIN_CONNECTIONS:
        raise ConfigError(f"a worker needs at least {MIN_CONNECTIONS} connections, got {total}",
                          field="db-connections")
    listener = 1 if listen and total >= 4 else 0
    rest = total - listener
    n = max(1, min(lanes, concurrency, (rest - 1) // 2))
    spare = 2 if rest - n >= 4 else 1
    return ConnectionPlan(lanes=n, own=n + spare, listener=listener, jobs=rest - n - spare)

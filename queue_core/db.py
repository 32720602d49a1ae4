"""Connection pools configured the way the queue needs them, and how a worker splits its budget."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from .errors import ConfigError, DatabaseUnreachableError

# A pool retries a failed connection attempt with exponential backoff (1 s, 2 s, 4 s, …) for
# ``reconnect_timeout``, 5 minutes by default: after a 40 s outage its next attempt came 19.5 s
# after the database was back. Giving an attempt up after RECONNECT_S instead caps the backoff;
# the next caller that waits for a connection starts a new attempt at once.
RECONNECT_S = 2.0


# How long the first connection of a command may take before it is reported as unreachable.
CHECK_TIMEOUT_S = 5.0
_SEVERITY = re.compile(r"^(FATAL|ERROR|PANIC):\s+")


def _params(conninfo: str) -> dict[str, Any]:
    try:
        return dict(conninfo_to_dict(conninfo))
    except psycopg.ProgrammingError as exc:  # its message never quotes the URL, nor its password
        raise ConfigError(f"not a valid connection string: {exc}", field="DATABASE_URL") from None


def where(conninfo: str) -> str:
    """Return ``host:port/dbname`` of ``conninfo`` for messages: never its user's password.

    Unset parts are libpq's defaults (a local socket, 5432, the user's name), named as such.
    """
    params = _params(conninfo)
    host = params.get("host") or params.get("hostaddr") or "localhost"
    port = params.get("port") or "5432"
    dbname = params.get("dbname") or params.get("user") or "(the user's name)"
    return f"{host}:{port}/{dbname}"


def server_reason(exc: psycopg.Error) -> str:
    """Return the server's (or the network's) own words from a failed connection attempt."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    first = lines[0] if lines else type(exc).__name__
    reason = first.rpartition(" failed: ")[2] if " failed: " in first else first
    reason = _SEVERITY.sub("", reason)
    hint = next((line for line in lines[1:] if not line.startswith(("connection to server", "Multiple"))), None)
    return f"{reason} ({hint[0].lower()}{hint[1:]})" if hint else reason


def unreachable(exc: psycopg.Error, conninfo: str, *, origin: str = "DATABASE_URL") -> DatabaseUnreachableError:
    """Return the error saying which database could not be reached, and the server's reason."""
    user = _params(conninfo).get("user")
    return DatabaseUnreachableError(where(conninfo), server_reason(exc), user=user, origin=origin)


def check_reachable(conninfo: str, *, timeout_s: float = CHECK_TIMEOUT_S, origin: str = "DATABASE_URL") -> None:
    """Open and close one connection to ``conninfo`` within about ``timeout_s`` seconds.

    Raises DatabaseUnreachableError naming host, port, database and the server's message (a
    refused port, a database that does not exist, a failed password), instead of the pool's
    PoolTimeout after its checkout timeout. Blocks: call it before the event loop or a pool.
    """
    try:
        with psycopg.connect(conninfo, connect_timeout=max(2, math.ceil(timeout_s))):
            pass
    except psycopg.OperationalError as exc:
        raise unreachable(exc, conninfo, origin=origin) from None


PREPARE_ENV = "CUTOVER_PREPARE_THRESHOLD"
"""Environment variable: after how many runs psycopg prepares a statement on a connection
(psycopg's ``prepare_threshold``; ``off`` never prepares). Unset: psycopg's default, 5."""

PSYCOPG_PREPARE_THRESHOLD = 5


def prepare_threshold(env: Mapping[str, str] | None = None) -> int | None:
    """Return the ``prepare_threshold`` every pool of :func:`pool` and :func:`worker_pool` gives
    its connections, from :data:`PREPARE_ENV` in ``env`` (default: the process environment).

    ``off`` (or ``none``) returns None: nothing is prepared, not even the statements the queue
    asks to prepare. That is what PgBouncer in transaction pooling mode before 1.21 needs (a
    prepared statement lives on one server connection, and the next transaction may get
    another). Raises ConfigError for anything but ``off``, ``none`` or an integer >= 0.
    """
    raw = (os.environ if env is None else env).get(PREPARE_ENV, "").strip()
    if not raw:
        return PSYCOPG_PREPARE_THRESHOLD
    if raw.lower() in ("off", "none"):
        return None
    if raw.isdigit():
        return int(raw)
    raise ConfigError(f"expected off or a whole number of runs (psycopg's default is 5), got {raw!r}",
                      source="environment", field=PREPARE_ENV)


def _kwargs(application_name: str | None, connect_timeout_s: float | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": prepare_threshold()}
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

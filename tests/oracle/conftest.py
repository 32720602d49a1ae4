"""The oracle suite's one n8n run per session, and its not-run policy.

Without Node.js, npm, the n8n install (``tests/oracle/install.sh``) or a Postgres server, the
tests that need n8n are reported as skipped with the reason and the command that fixes it, so
the README's ``pytest`` passes on a fresh machine and never installs anything; where ``CI`` is set
(``.ci/run`` installs n8n first) the same absence fails them instead.

Every case is generated and run once per session (``measured``): all of them in one n8n batch,
then each one scaffolded and run. Under pytest-xdist the first worker to get there measures and
the others read its result, so n8n still runs once.
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.oracle import conformance, runner


def _postgres_missing() -> str | None:
    database = runner.Database.from_env()
    try:
        with psycopg.connect(database.admin_url, connect_timeout=5):
            return None
    except psycopg.Error as exc:
        return (f"the n8n oracle keeps its state in Postgres and could not connect "
                f"({exc.__class__.__name__}); set DATABASE_URL to a server it may create databases on")


def require_oracle(version: str = runner.VERSION) -> None:
    """Skip (fail, where ``CI`` is set) when n8n ``version`` cannot run here, saying why."""
    reason = runner.missing(version) or _postgres_missing()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the n8n conformance suite must run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[conformance.Result], dict[str, Any]]]:
    """Return every case's result (n8n and scaffold) and how the run went, measured once."""
    require_oracle()
    base = tmp_path_factory.getbasetemp()
    # Under xdist every worker's base is a directory of the session's own: share that one.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    done = shared / "oracle-results.pickle"
    with open(shared / "oracle-results.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                results = conformance.measure()
                done.write_bytes(pickle.dumps(results))
            value: tuple[list[conformance.Result], dict[str, Any]] = pickle.loads(done.read_bytes())
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    yield value


def committed_table() -> dict[str, Any]:
    """Return the committed conformance table (tests/oracle/conformance.json)."""
    import json

    path: Path = conformance.TABLE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"nodes": {}}

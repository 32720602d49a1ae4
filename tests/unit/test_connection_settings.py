"""The connection settings a transaction pooler (PgBouncer) needs: no prepared statements, and
LISTEN on a connection of its own (queue_core.db.prepare_threshold, queue_core.config.listen_url)."""

from __future__ import annotations

import pytest

from queue_core import config, db
from queue_core.errors import ConfigError, DatabaseUnreachableError


@pytest.mark.parametrize(("raw", "threshold"), [
    (None, 5), ("", 5), ("off", None), ("OFF", None), ("none", None), ("0", 0), ("12", 12),
])
def test_the_prepare_threshold_comes_from_the_environment(raw: str | None, threshold: int | None) -> None:
    env = {} if raw is None else {db.PREPARE_ENV: raw}
    assert db.prepare_threshold(env) == threshold


@pytest.mark.parametrize("raw", ["-1", "five", "1.5"])
def test_a_bad_prepare_threshold_names_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="expected off or a whole number") as info:
        db.prepare_threshold({db.PREPARE_ENV: raw})
    assert (info.value.source, info.value.field) == ("environment", "CUTOVER_PREPARE_THRESHOLD")


def test_every_pool_gives_its_connections_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(db.PREPARE_ENV, "off")
    assert db.pool("dbname=x").kwargs["prepare_threshold"] is None
    assert db.worker_pool("dbname=x", max_size=2, timeout_s=1).kwargs["prepare_threshold"] is None
    monkeypatch.delenv(db.PREPARE_ENV)
    assert db.pool("dbname=x").kwargs["prepare_threshold"] == 5


def test_the_listener_uses_the_database_url_unless_told_otherwise() -> None:
    assert config.listen_url("dbname=app", {}) == "dbname=app"
    assert config.listen_url("dbname=app", {config.LISTEN_ENV: "off"}) is None


def test_an_unreachable_listen_url_is_named_as_such() -> None:
    with pytest.raises(DatabaseUnreachableError) as info:
        config.listen_url("dbname=app", {config.LISTEN_ENV: "postgresql://app:secret@127.0.0.1:1/app"})
    assert info.value.origin == "CUTOVER_LISTEN_URL" and info.value.where == "127.0.0.1:1/app"
    assert "secret" not in str(info.value)


def test_a_bad_prepare_threshold_stops_a_command_before_it_connects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(db.PREPARE_ENV, "always")
    monkeypatch.setenv("DATABASE_URL", "postgresql://app@127.0.0.1:1/app")  # never reached
    with pytest.raises(ConfigError, match="CUTOVER_PREPARE_THRESHOLD") as info:
        config.database_url()
    assert not isinstance(info.value, DatabaseUnreachableError)

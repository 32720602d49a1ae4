"""Migrations: a fresh migrate equals the checked-in schema; concurrent migrators are safe."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import psycopg
import pytest

from queue_core import migrate as mig
from queue_core.errors import MigrationError
from queue_core.states import ErrorKind, JobStatus, Mode, StepStatus

SNAPSHOT = Path(mig.__file__).with_name("schema.txt")


def test_fresh_migrate_equals_the_checked_in_schema(fresh_db_url):
    described = mig.describe_schema(fresh_db_url)
    if os.environ.get("CUTOVER_UPDATE_SCHEMA") == "1":
        SNAPSHOT.write_text(described)
    assert described == SNAPSHOT.read_text(), (
        "the migrated schema differs from queue_core/schema.txt; if the migration is intended, "
        "regenerate it with CUTOVER_UPDATE_SCHEMA=1 pytest tests/integration/test_migrate.py"
    )


@pytest.mark.parametrize(
    ("enum", "pytype"),
    [("job_status", JobStatus), ("step_status", StepStatus), ("job_mode", Mode), ("error_kind", ErrorKind)],
)
def test_python_state_enums_equal_the_sql_enums(db_url, enum, pytype):
    with psycopg.connect(db_url) as conn:
        (labels,) = conn.execute("SELECT enum_range(NULL::" + enum + ")::text[]").fetchone()
    assert labels == [member.value for member in pytype]


def test_migrate_twice_applies_nothing_the_second_time(db_url):
    assert mig.migrate(db_url) == []


def test_concurrent_migrators_apply_each_migration_once():
    from queue_core import provision

    srv = provision.server()
    url = provision.ensure_database(srv, "cutover_migrate_race")
    provision.drop_database(url)
    with psycopg.connect(srv.url, autocommit=True) as conn:
        conn.execute('CREATE DATABASE "cutover_migrate_race"')
    results: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(len(mig.migrate(url)))
        except BaseException as exc:  # collected and asserted on below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    provision.drop_database(url)
    assert errors == []
    assert sorted(results) == [0, 0, 0, len(mig.available())]


def test_edited_migration_is_refused_by_checksum(fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE number = 1")
    with pytest.raises(MigrationError, match="0001_core.sql: already applied with different contents"):
        mig.migrate(fresh_db_url)


def test_ledger_refuses_updates_and_deletes(db_url):
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger (job_id, kind, actor) VALUES (gen_random_uuid(), 'x', 'test')")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("UPDATE ledger SET kind = 'y'")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM ledger")

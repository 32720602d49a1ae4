"""Apply the numbered SQL migrations in ``queue_core/migrations`` under an advisory lock.

Files are named ``NNNN_description.sql``; each is applied once, in its own transaction, and
recorded in ``schema_migrations``. Concurrent migrators (several test workers, two deploys)
serialise on one advisory lock, so each migration runs exactly once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from .errors import MigrationError

# An arbitrary constant: every cutover migrator takes this lock, nothing else does.
_LOCK_KEY = 0x637574_6F766572 & 0x7FFFFFFFFFFFFFFF
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def available() -> list[Migration]:
    """Return the packaged migrations in order; raise MigrationError on a misnamed or duplicate file."""
    found: dict[int, Migration] = {}
    for entry in resources.files("queue_core").joinpath("migrations").iterdir():
        if not entry.name.endswith(".sql"):
            continue
        m = _FILE.match(entry.name)
        if not m:
            raise MigrationError("name must look like 0001_description.sql", file=entry.name)
        number = int(m.group(1))
        if number in found:
            raise MigrationError(f"number {number} is used twice", file=entry.name)
        found[number] = Migration(number, m.group(2), entry.read_text("utf-8"))
    return [found[n] for n in sorted(found)]


def migrate(conninfo: str) -> list[Migration]:
    """Apply every migration not yet recorded; return those applied now.

    Takes a session advisory lock so that concurrent callers apply each migration once. A
    migration whose recorded checksum differs from the packaged file is refused: the database
    was migrated by a different release.
    """
    applied_now: list[Migration] = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " number integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {
                n: c for n, c in conn.execute("SELECT number, checksum FROM schema_migrations")
            }
            for mig in available():
                if mig.number in done:
                    if done[mig.number] != mig.checksum:
                        raise MigrationError(
                            "already applied with different contents (checksum mismatch); "
                            "migrations must never be edited once released",
                            file=f"{mig.number:04d}_{mig.name}.sql",
                        )
                    continue
                try:
                    with conn.transaction():
                        conn.execute(mig.sql.encode())
                        conn.execute(
                            "INSERT INTO schema_migrations (number, name, checksum)"
                            " VALUES (%s, %s, %s)",
                            (mig.number, mig.name, mig.checksum),
                        )
                except psycopg.Error as exc:
                    raise MigrationError(str(exc).strip(), file=f"{mig.number:04d}_{mig.name}.sql") from exc
                applied_now.append(mig)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return applied_now


def describe_schema(conninfo: str) -> str:
    """Return a stable text description of the public schema: enums, tables, columns, indexes, views.

    Used to prove that a fresh migrate equals the checked-in ``queue_core/schema.sql``. Independent
    of the server version (no pg_dump), so it is the same on Postgres 15 and 18.
    """
    with psycopg.connect(conninfo, autocommit=True) as conn:
        lines: list[str] = []
        for name, labels in conn.execute(
            "SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder)"
            " FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid"
            " JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public'"
            " GROUP BY t.typname ORDER BY t.typname"
        ):
            lines.append(f"ENUM {name} ({', '.join(labels)})")
        for table, column, dtype, nullable, default in conn.execute(
            "SELECT c.table_name, c.column_name,"
            " CASE WHEN c.data_type = 'USER-DEFINED' THEN c.udt_name ELSE c.data_type END,"
            " c.is_nullable, coalesce(c.column_default, '')"
            " FROM information_schema.columns c JOIN information_schema.tables t"
            " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
            " WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'"
            " ORDER BY c.table_name, c.ordinal_position"
        ):
            null = "" if nullable == "YES" else " NOT NULL"
            dflt = f" DEFAULT {default}" if default else ""
            lines.append(f"COLUMN {table}.{column} {dtype}{null}{dflt}")
        for (indexdef,) in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"
        ):
            lines.append(f"INDEX {indexdef}")
        for (name,) in conn.execute(
            "SELECT table_name FROM information_schema.views WHERE table_schema = 'public'"
            " ORDER BY table_name"
        ):
            lines.append(f"VIEW {name}")
        for (name,) in conn.execute(
            "SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE connamespace = 'public'::regnamespace AND contype IN ('c', 'f', 'u')"
            " ORDER BY conname"
        ):
            lines.append(f"CONSTRAINT {name}")
    return "\n".join(lines) + "\n"

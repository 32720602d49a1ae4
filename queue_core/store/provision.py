"""The provisioner's statements (queue_core.provision): a server's ping, the template database's
lock and flag, and creating, copying and dropping databases.

Synchronous, on a connection the provisioner holds (they run before any schema exists, often in
autocommit for the DDL). A database's name is an identifier, which cannot be a bind parameter:
the DDL statements of queries/provision.sql hold ``{name}``/``{template}`` placeholders, filled
here with ``psycopg.sql.Identifier`` (quoted by psycopg, never text pasted in).
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql

from .._sql import q


def ping(conn: Connection[Any]) -> None:
    """One trivial statement: the server answers."""
    conn.execute(q("provision", "ping"))


def lock_template(conn: Connection[Any], lock: int) -> None:
    """Take the session advisory lock that serialises building the template."""
    conn.execute(q("provision", "template_lock"), {"lock": lock})


def unlock_template(conn: Connection[Any], lock: int) -> None:
    conn.execute(q("provision", "template_unlock"), {"lock": lock})


def is_template(conn: Connection[Any], name: str) -> bool | None:
    """Whether database ``name`` is marked a template; None when it does not exist."""
    row = conn.execute(q("provision", "is_template"), {"name": name}).fetchone()
    return None if row is None else bool(row[0])


def database_exists(conn: Connection[Any], name: str) -> bool:
    return conn.execute(q("provision", "database_exists"), {"name": name}).fetchone() is not None


def create_database(conn: Connection[Any], name: str) -> None:
    conn.execute(_named("create_database", name=name))


def create_database_from_template(conn: Connection[Any], name: str, template: str) -> None:
    """A file copy of the migrated ``template``: no migration run."""
    conn.execute(_named("create_database_from_template", name=name, template=template))


def mark_template(conn: Connection[Any], name: str) -> None:
    """Mark ``name`` a template that takes no connections (a copy needs it to have none)."""
    conn.execute(_named("mark_template", name=name))


def drop_database(conn: Connection[Any], name: str) -> None:
    """Drop ``name`` if it exists, disconnecting anyone still in it."""
    conn.execute(_named("drop_database_force", name=name))


def _named(query: str, **identifiers: str) -> sql.Composed:
    """A whole statement of queries/provision.sql with its database names filled in as quoted
    identifiers (DDL takes no bind parameters for them)."""
    return sql.SQL(q("provision", query)).format(**{k: sql.Identifier(v) for k, v in identifiers.items()})

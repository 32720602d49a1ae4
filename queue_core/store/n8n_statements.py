"""The statements of migrated n8n Postgres nodes, in parts (queries/n8n_postgres.sql).

Not the queue's own tables: these are what a scaffolded Postgres node sends to its SQL provider
(``queue_core.compat._n8n_postgres`` composes them; ``queue_core.gateway.sql`` runs them). A
part's placeholders are filled with ``psycopg.sql`` values (identifiers quoted by psycopg, other
parts); a row's values are never among them, they are bound parameters.
"""

from __future__ import annotations

from psycopg import sql

from .._sql import q


def part(name: str, **parts: sql.Composable) -> sql.Composed:
    """Return the named part with its placeholders filled by ``parts``."""
    return sql.SQL(q("n8n_postgres", name)).format(**parts)

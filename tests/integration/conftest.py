"""Fixtures shared by the integration tests of budgets and the gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from psycopg_pool import AsyncConnectionPool


@pytest.fixture
async def budget_pool(db_url: str) -> AsyncIterator[AsyncConnectionPool]:
    """An autocommit pool on the module's database, with every provider budget removed."""
    async with AsyncConnectionPool(db_url, min_size=1, max_size=4, open=False,
                                   kwargs={"autocommit": True}) as pool:
        async with pool.connection() as conn:
            await conn.execute("TRUNCATE provider_budgets")
        yield pool

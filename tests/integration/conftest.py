"""Fixtures shared by the integration tests of budgets and the gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from psycopg_pool import AsyncConnectionPool


@asynccontextmanager
async def fresh_budget_pool(db_url: str, *, min_size: int = 1, max_size: int = 4) -> AsyncIterator[AsyncConnectionPool]:
    """An autocommit pool on ``db_url``, with every provider budget removed."""
    async with AsyncConnectionPool(db_url, min_size=min_size, max_size=max_size, open=False,
                                   kwargs={"autocommit": True}) as pool:
        async with pool.connection() as conn:
            await conn.execute("TRUNCATE provider_budgets")
        yield pool


@pytest.fixture
async def budget_pool(db_url: str) -> AsyncIterator[AsyncConnectionPool]:
    """An autocommit pool on the module's database, with every provider budget removed."""
    async with fresh_budget_pool(db_url) as pool:
        yield pool

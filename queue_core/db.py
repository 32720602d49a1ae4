"""Connection pools configured the way the queue needs them."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool


def pool(conninfo: str, *, min_size: int = 1, max_size: int = 10) -> AsyncConnectionPool:
    """Return an unopened async pool (use ``async with``) that checks each connection on checkout.

    The check costs one round trip per checkout and buys recovery from a server restart or a
    terminated backend: a dead connection is replaced instead of failing the caller.
    """
    return AsyncConnectionPool(
        conninfo,
        min_size=min_size,
        max_size=max_size,
        open=False,
        check=AsyncConnectionPool.check_connection,
        kwargs={"autocommit": True},
    )

"""Helpers for the control-plane tests: an in-process app over the test pool, tokens, clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from psycopg_pool import AsyncConnectionPool

from queue_core.server import create_app, create_token
from queue_core.server.source import Source, load_sources

ALL_SCOPES = ("control", "enqueue", "read", "replay")


async def reset_control_tables(pool: AsyncConnectionPool) -> None:
    """Empty tokens, pauses and the control audit (the ``pool`` fixture empties the job tables)."""
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE api_tokens, pauses, control_events")


@asynccontextmanager
async def client(app: FastAPI, token: str | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client talking to ``app`` in process, with ``token`` as bearer when given."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://cutover.test", headers=headers) as c:
        yield c


async def tokens(pool: AsyncConnectionPool) -> dict[str, str]:
    """Create one token per scope (named after it) and one with every scope (``all``)."""
    made = {scope: await create_token(pool, scope, (scope,)) for scope in ALL_SCOPES}
    made["all"] = await create_token(pool, "all", ALL_SCOPES)
    return made


def sources(table: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Source]:
    """Parse ``{name: source table}`` as ``[tool.cutover.sources]`` would be."""
    return load_sources({"sources": dict(table)}, environ)


def app_for(pool: AsyncConnectionPool, **kwargs: Any) -> FastAPI:
    return create_app(pool=pool, **kwargs)

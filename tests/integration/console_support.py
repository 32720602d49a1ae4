"""Helpers of the console tests: tokens by role, a signed-in client, a form's CSRF token, jobs in a state."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from psycopg_pool import AsyncConnectionPool

from queue_core import JobSpec, Queue
from queue_core.server import create_token

ROLES = {"reader": ("read",), "operator": ("read", "control"), "replayer": ("read", "replay"),
         "enqueuer": ("enqueue",), "admin": ("read", "control", "replay")}


async def reset(pool: AsyncConnectionPool) -> dict[str, str]:
    """Empty the control and console tables; create one token per role."""
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE api_tokens, pauses, control_events, console_sessions")
    return {name: await create_token(pool, name, scopes) for name, scopes in ROLES.items()}


@asynccontextmanager
async def browser(app: FastAPI, base: str = "http://cutover.test") -> AsyncIterator[httpx.AsyncClient]:
    """A cookie-keeping client that does not follow redirects (the tests read them)."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base) as c:
        yield c


async def sign_in(c: httpx.AsyncClient, token: str) -> httpx.Response:
    answer = await c.post("/console/login", data={"token": token, "next": "/console/runs"})
    assert answer.status_code == 303, answer.text
    return answer


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page holds no CSRF token"
    return found.group(1)


async def job(pool: AsyncConnectionPool, automation: str = "orders", *, status: str = "pending",
              error: str | None = None, kind: str | None = None, payload: Any = None) -> uuid.UUID:
    job_id = await Queue(pool).enqueue(JobSpec(automation, payload if payload is not None else {"n": 1}))
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET status = %s::job_status, last_error = %s, error_kind = %s::error_kind, "
                           "finished_at = CASE WHEN %s IN ('dead', 'failed', 'succeeded') THEN now() END WHERE id = %s",
                           (status, error, kind, status, job_id))
    return job_id


async def status_of(pool: AsyncConnectionPool, job_id: uuid.UUID) -> str:
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT status::text FROM jobs WHERE id = %s", (job_id,))).fetchone()
    assert row is not None
    return str(row[0])


async def ledger_kinds(pool: AsyncConnectionPool, job_id: uuid.UUID) -> list[tuple[str, str | None]]:
    async with pool.connection() as conn:
        rows = await (await conn.execute("SELECT kind, actor FROM ledger WHERE job_id = %s ORDER BY seq", (job_id,))).fetchall()
    return [(r[0], r[1]) for r in rows]

"""A live ``ctx.call`` costs two database round trips: begin (spend the budget, put the call on
record) and settle (step row, ledger event and the budget's answer), with a rate budget or without.

Statements are counted by a cursor class on the pool's connections (psycopg's ``cursor_factory``);
the provider answers on loopback (httpx.MockTransport). The gateway's clock is fixed, so the
operator's provider pauses are read once, on the first call, and not again a second later.
"""

from __future__ import annotations

from typing import Any

import httpx
import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from queue_core import Context, JobSpec, Queue, Registry, automation
from queue_core.gateway import Gateway
from queue_core.provider import parse_provider

registry = Registry()
STATEMENTS: list[str] = []


@automation("calls", registry=registry)
async def calls(ctx, trigger):  # driven through its Context by the tests
    raise AssertionError("not run by a worker in these tests")


class CountingCursor(psycopg.AsyncCursor[Any]):
    async def execute(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        STATEMENTS.append(str(query))
        return await super().execute(query, *args, **kwargs)


PROVIDERS = {"plain": parse_provider("plain", {"base_url": "https://plain.test"}),
             "rated": parse_provider("rated", {"base_url": "https://rated.test", "rate": "500/1s"})}


async def _claimed(pool: AsyncConnectionPool, gateway: Gateway) -> Context:
    queue = Queue(pool, registry=registry)
    await queue.enqueue(JobSpec("calls", {}))
    (job,) = await queue.claim("w", 1, lease_s=60, automations=["calls"])
    return Context(job, pool, worker="w", gateway=gateway, registry=registry)


@pytest.fixture
async def counted(db_url):
    async with AsyncConnectionPool(db_url, min_size=1, max_size=2, open=False,
                                   kwargs={"autocommit": True, "cursor_factory": CountingCursor}) as pool:
        async with pool.connection() as conn:
            await conn.execute("TRUNCATE jobs, steps, ledger, provider_budgets CASCADE")
        yield pool


@pytest.mark.parametrize("provider", ["plain", "rated"])
async def test_a_live_call_costs_two_statements_with_or_without_a_rate_budget(counted, provider):
    answer = httpx.MockTransport(lambda request: httpx.Response(200, json={"id": "x"}))
    async with Gateway(PROVIDERS, counted, transport=answer, clock=lambda: 1_700_000_000.0) as gw:
        ctx = await _claimed(counted, gw)
        await ctx.call(provider, "POST", "/things", step="warm-up", json={})  # pauses read, rows made
        STATEMENTS.clear()
        for n in range(5):
            await ctx.call(provider, "POST", "/things", step=f"call-{n}", json={"n": n})
    assert len(STATEMENTS) == 10


async def test_an_answer_that_tightens_the_budget_is_logged_before_its_call_in_the_same_statement(counted):
    def tighten_on_the_second(request: httpx.Request) -> httpx.Response:
        spent = {"RateLimit-Limit": "500", "RateLimit-Remaining": "0", "RateLimit-Reset": "1"}
        return httpx.Response(200, json={"id": "x"}, headers=spent if b"tightened" in request.content else {})

    answer = httpx.MockTransport(tighten_on_the_second)
    async with Gateway(PROVIDERS, counted, transport=answer, clock=lambda: 1_700_000_000.0) as gw:
        ctx = await _claimed(counted, gw)
        await ctx.call("rated", "POST", "/things", step="warm-up", json={})
        STATEMENTS.clear()
        await ctx.call("rated", "POST", "/things", step="tightened", json={"tightened": True})
        assert len(STATEMENTS) == 2
    async with counted.connection() as conn:
        kinds = [r[0] for r in await (await conn.execute(
            "SELECT kind FROM ledger WHERE job_id = %s ORDER BY seq", (ctx.job_id,))).fetchall()]
        (reason,) = await (await conn.execute(
            "SELECT reason FROM provider_budgets WHERE provider = 'rated'")).fetchone()
    assert kinds[-2:] == ["budget_tightened", "call"]
    assert "remaining=0" in reason

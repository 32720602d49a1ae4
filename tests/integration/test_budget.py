"""Rate budgets in real Postgres: atomic spending, all-or-nothing windows, tightening."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from queue_core.budget import ACCOUNT_SCOPE, Budget, scope_key_for
from queue_core.provider import ProviderConfig, Tightening, parse_provider
from tests.integration.conftest import fresh_budget_pool

SLOW = {"base_url": "https://p.test", "headroom": 0.0}


def provider(name: str, rate: str | list[str], **extra: object) -> ProviderConfig:
    return parse_provider(name, {**SLOW, "rate": rate, **extra})


@pytest.fixture
async def budget_pool(db_url: str) -> AsyncIterator[AsyncConnectionPool]:
    """Like the shared fixture (tests/integration/conftest.py), with 8 connections for races."""
    async with fresh_budget_pool(db_url, min_size=8, max_size=8) as pool:
        yield pool


async def test_checkout_grants_the_burst_then_refuses_with_the_delay_until_a_token(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "3/3s")
    grants = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(3)]
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert all(g.granted for g in grants)
    assert not refused.granted and 0 < refused.delay <= 1.0 and "3/3s" in (refused.reason or "")


async def test_concurrent_spenders_never_spend_more_than_the_bucket_holds(budget_pool) -> None:
    # 20 per hour: the refill during the test is a tiny fraction of a token.
    cfg = provider("p", "20/1h")
    spenders = [Budget(budget_pool) for _ in range(4)]  # four "workers" sharing one database
    results = await asyncio.gather(*(spenders[i % 4].checkout(cfg, ACCOUNT_SCOPE) for i in range(200)))
    assert sum(r.granted for r in results) == 20


async def test_spenders_in_two_pools_share_one_budget(db_url: str, budget_pool) -> None:
    cfg = provider("p", "15/1h")
    async with AsyncConnectionPool(db_url, min_size=4, max_size=4, open=False, kwargs={"autocommit": True}) as other:
        a, b = Budget(budget_pool), Budget(other)
        results = await asyncio.gather(*(x.checkout(cfg, ACCOUNT_SCOPE) for _ in range(40) for x in (a, b)))
    assert sum(r.granted for r in results) == 15


async def test_a_call_spends_from_every_window_or_from_none(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", ["5/1h", "3/1d"])
    results = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(6)]
    states = {s.window_seconds: s for s in await budget.states("p")}
    assert [r.granted for r in results] == [True, True, True, False, False, False]
    assert states[3600.0].tokens == pytest.approx(2.0, abs=0.01)  # refused calls took nothing
    assert states[86400.0].tokens == pytest.approx(0.0, abs=0.01)


async def test_key_scoped_budgets_are_separate_per_scope_key(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "2/1h", scope="key")
    tenant_a = scope_key_for(cfg, "tenant-a", None)
    tenant_b = scope_key_for(cfg, None, "sk_live_secret")
    spent_a = [(await budget.checkout(cfg, tenant_a)).granted for _ in range(3)]
    spent_b = [(await budget.checkout(cfg, tenant_b)).granted for _ in range(3)]
    assert spent_a == spent_b == [True, True, False]
    assert "sk_live_secret" not in tenant_b


async def test_a_provider_without_rates_is_granted_without_touching_the_database(budget_pool) -> None:
    budget = Budget(budget_pool)
    assert (await budget.checkout(parse_provider("free", {"base_url": "https://f.test"}), ACCOUNT_SCOPE)).granted
    assert await budget.states("free") == []


async def test_retry_after_blocks_the_budget_and_records_the_reason(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "100/1s")
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429, retry-after=30", block_for=30.0, remaining=0))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    [state] = await budget.states("p")
    assert not refused.granted and 29.0 < refused.delay <= 30.0
    assert "retry-after=30" in (refused.reason or "") and state.reason == "HTTP 429, retry-after=30"


async def test_a_bare_429_drains_the_tokens_but_refill_continues(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "10/1h")
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429", remaining=0))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert not refused.granted and 300 < refused.delay <= 360  # one token of 10/h


async def test_tightening_lowers_the_effective_limit_but_never_above_the_configured_one(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", ["10/1s", "100/1m"])
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("policy says 4/s", limit=4, window=1.0))
    lowered = {s.window_seconds: s.effective_limit for s in await budget.states("p")}
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("policy says 1000/s", limit=1000, window=1.0))
    raised = {s.window_seconds: s.effective_limit for s in await budget.states("p")}
    assert lowered == {1.0: 4, 60.0: 100}
    assert raised == {1.0: 10, 60.0: 100}


async def test_the_database_refuses_an_effective_limit_above_the_configured_one(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "10/1s")
    await budget.ensure(cfg, ACCOUNT_SCOPE)
    async with budget_pool.connection() as conn:
        with pytest.raises(psycopg.errors.CheckViolation):
            await conn.execute("UPDATE provider_budgets SET effective_limit = 11 WHERE provider = 'p'")


async def test_a_tightened_limit_slows_the_refill(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "3600/1h")  # one token a second
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("policy 360/h", limit=360, window=3600.0, remaining=0))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert not refused.granted and 9.0 < refused.delay <= 10.0  # one token every 10 s now


async def test_a_changed_configuration_resets_the_row(budget_pool) -> None:
    await Budget(budget_pool).checkout(provider("p", "5/1h"), ACCOUNT_SCOPE)
    await Budget(budget_pool).tighten(provider("p", "5/1h"), ACCOUNT_SCOPE, Tightening("x", limit=2, window=3600.0))
    fresh = Budget(budget_pool)  # a new process with a new configuration
    await fresh.checkout(provider("p", "50/1h"), ACCOUNT_SCOPE)
    [state] = await fresh.states("p")
    assert (state.configured_limit, state.effective_limit, state.reason) == (50, 50, None)


# -- reservations: a grant may be a slot ahead of the refill, never further than the horizon -----


async def test_reservations_are_slots_one_refill_interval_apart_up_to_the_horizon(budget_pool) -> None:
    # 3 an hour, no headroom: a burst of 3, then one token every 1,200 s (the test's own
    # duration refills a negligible fraction of a token).
    budget, cfg = Budget(budget_pool), provider("p", "3/1h")
    checkouts = [await budget.checkout(cfg, ACCOUNT_SCOPE, horizon=3000.0) for _ in range(6)]
    assert [c.granted for c in checkouts] == [True, True, True, True, True, False]
    assert [c.delay for c in checkouts[:5]] == pytest.approx([0, 0, 0, 1200, 2400], abs=1.0)
    assert checkouts[5].delay == pytest.approx(3600 - 3000, abs=1.0)  # until a slot within the horizon


async def test_concurrent_reservations_in_two_pools_never_exceed_the_rate(db_url: str, budget_pool) -> None:
    cfg = provider("p", "10/1h")  # a burst of 10, then one token every 360 s
    async with AsyncConnectionPool(db_url, min_size=4, max_size=4, open=False, kwargs={"autocommit": True}) as other:
        a, b = Budget(budget_pool), Budget(other)
        results = await asyncio.gather(*(x.checkout(cfg, ACCOUNT_SCOPE, horizon=1440.0)
                                         for _ in range(40) for x in (a, b)))
    slots = sorted(r.delay for r in results if r.granted)
    # Calls made at these slots keep to 10 an hour: the burst, then one per refill interval.
    assert slots == pytest.approx([0.0] * 10 + [360.0, 720.0, 1080.0, 1440.0], abs=1.0)
    assert all(r.delay == pytest.approx(360.0, abs=1.0) for r in results if not r.granted)


async def test_a_reservation_waits_for_the_slowest_window_and_takes_from_all_or_none(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", ["2/1h", "3/1d"])  # one every 1,800 s; 28,800 s
    results = [await budget.checkout(cfg, ACCOUNT_SCOPE, horizon=3600.0) for _ in range(4)]
    states = {s.window_seconds: s for s in await budget.states("p")}
    assert [(r.granted, round(r.delay, -1)) for r in results] == [
        (True, 0), (True, 0), (True, 1800), (False, 28800 - 3600)]
    assert states[3600.0].tokens == pytest.approx(-1.0, abs=0.01)  # one slot reserved ahead
    assert states[86400.0].tokens == pytest.approx(0.0, abs=0.01)  # the refusal took nothing


async def test_a_blocked_budget_refuses_even_a_slot_within_the_horizon(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "100/1s")
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429, retry-after=30", block_for=30.0))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE, horizon=1.0)
    assert not refused.granted and 29.0 < refused.delay <= 30.0 and "blocked" in (refused.reason or "")

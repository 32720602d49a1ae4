"""Rate budgets in real Postgres: "N/Ts" is at most N grants in any window of T seconds.

Measured on the database's own grant times, across connections and processes: from the first
second on, after idle time and after a 429; every window of a multi-window config at once. Then
the explicit alternatives (aligned fixed windows, a token bucket with its stated burst), and
what tightening does.
"""

from __future__ import annotations

import asyncio
import bisect
import multiprocessing
import random
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from queue_core.budget import ACCOUNT_SCOPE, SUBBUCKETS, Budget, scope_key_for
from queue_core.provider import DEFAULT_GUARD, ProviderConfig, Tightening, parse_provider
from tests.integration.conftest import fresh_budget_pool
from tests.support.spender import Hammer, hammer

BASE = {"base_url": "https://p.test"}


def provider(name: str, rate: str | list[str], **extra: object) -> ProviderConfig:
    return parse_provider(name, {**BASE, "rate": rate, **extra})


def worst(times: Sequence[float], window: float) -> int:
    """The most of ``times`` in any half-open interval of ``window`` seconds."""
    times = sorted(times)
    return max((bisect.bisect_left(times, t + window, lo=i) - i for i, t in enumerate(times)), default=0)


def between(times: Sequence[float], start: float, end: float) -> int:
    return sum(start <= t < end for t in times)


@pytest.fixture
async def budget_pool(db_url: str) -> AsyncIterator[AsyncConnectionPool]:
    """Like the shared fixture (tests/integration/conftest.py), with 8 connections for races."""
    async with fresh_budget_pool(db_url, min_size=8, max_size=8) as pool:
        yield pool


# -- the sliding window: never more than N in any window of T --------------------------------------


def test_spenders_in_three_processes_never_get_more_than_n_in_any_window(db_url: str) -> None:
    """Saturated from the first second, again after idle time, and after a 429: the grant times
    (the database's clock, every process together) never hold more than N in any window of T,
    not even of T + guard; after the 429 nothing is granted beyond what ages out."""
    asyncio.run(_truncate(db_url))
    table = {**BASE, "rate": "10/1s"}
    t0 = time.time() + 2.5  # every process is up and connected first
    # saturated; idle 1.3 s (> T + guard); one window's worth; idle; a 429 at t0 + 4; saturated
    phases = ((t0, t0 + 1.6), (t0 + 2.9, t0 + 3.4), (t0 + 4.05, t0 + 5.6))
    tighten_at = t0 + 4.0
    plans = [Hammer(db_url, table, loops=4, phases=phases, tighten_at=tighten_at if i == 0 else None, seed=i)
             for i in range(3)]
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        grants = sorted(t for times in pool.map(hammer, plans) for t in times)
    [state] = asyncio.run(_states(db_url))
    tightened = state.tightened_at.timestamp()
    assert worst(grants, 1.0) <= 10 and worst(grants, 1.0 + DEFAULT_GUARD) <= 10
    # The whole window at once, no burst on top and none held back: from the first grant on
    # (a loaded machine may start the processes late), and after the idle time.
    first = grants[0]
    after_idle = min(g for g in grants if g >= t0 + 2.9)
    assert between(grants, first, first + 1.0) == 10 and between(grants, after_idle, after_idle + 1.0) == 10
    # After the 429 nothing is granted but what ages out of the window it saw (normally nothing:
    # the window was empty, and a token bucket would have refilled right away).
    aged_out = between(grants, tightened - 1.0 - DEFAULT_GUARD - (1.0 + DEFAULT_GUARD) / SUBBUCKETS, tightened)
    assert between(grants, tightened, tightened + 1.0) <= aged_out
    assert len(grants) >= 30


async def _truncate(db_url: str) -> None:
    async with fresh_budget_pool(db_url):
        pass


async def _states(db_url: str) -> list[Any]:
    async with AsyncConnectionPool(db_url, min_size=1, max_size=1, open=False, kwargs={"autocommit": True}) as pool:
        return await Budget(pool).states("p")


async def test_concurrent_connections_honour_both_windows_of_a_two_window_config_at_once(budget_pool) -> None:
    # 4 per 0.5 s alone would allow 16 per 2 s; the 2 s window allows 10.
    cfg = provider("p", ["4/500ms", "10/2s"])
    spenders = [Budget(budget_pool) for _ in range(8)]
    grants: list[float] = []
    end = time.time() + 4.3

    async def loop(budget: Budget, rng: random.Random) -> None:
        while time.time() < end:
            checkout = await budget.checkout(cfg, ACCOUNT_SCOPE)
            if checkout.granted:
                grants.append(checkout.granted_at)  # type: ignore[arg-type]
            else:
                await asyncio.sleep(min(checkout.delay * rng.choice((1.0, rng.random())), 0.3) + 0.0005)

    await asyncio.gather(*(loop(b, random.Random(i)) for i, b in enumerate(spenders)))
    assert worst(grants, 0.5) <= 4 and worst(grants, 2.0) <= 10
    assert worst(grants, 0.5) == 4 and worst(grants, 2.0) == 10  # each window binds in turn
    assert 20 <= len(grants) <= 30  # 10 per 2 s (+ guard and a sub-bucket), over 4.3 s


async def test_a_sliding_window_refuses_with_the_exact_wait_until_its_oldest_call_ages_out(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "3/3s")
    grants = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(3)]
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert all(g.granted for g in grants) and [g.remaining for g in grants] == [{3.0: 2}, {3.0: 1}, {3.0: 0}]
    assert not refused.granted and "3/3s" in (refused.reason or "")
    width = (3.0 + DEFAULT_GUARD) / SUBBUCKETS  # the oldest sub-bucket counts in full
    assert 3.0 - 0.3 < refused.delay <= 3.0 + DEFAULT_GUARD + width
    await asyncio.sleep(refused.delay + 0.002)
    again = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert again.granted and again.granted_at - grants[0].granted_at >= 3.0 + DEFAULT_GUARD  # type: ignore[operator]


async def test_concurrent_spenders_never_spend_more_than_the_window_holds(budget_pool) -> None:
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
    assert (states[3600.0].spent, states[3600.0].tokens) == (3, 2.0)  # refused calls took nothing
    assert (states[86400.0].spent, states[86400.0].tokens) == (3, 0.0)
    # the day window decides: its oldest sub-bucket (432 s wide) ages out whole
    assert 86399 < results[-1].delay <= 86400 + DEFAULT_GUARD + (86400 + DEFAULT_GUARD) / SUBBUCKETS


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
    assert (await budget.checkout(parse_provider("free", BASE), ACCOUNT_SCOPE)).granted
    assert await budget.states("free") == []


# -- fixed windows and token buckets: configured explicitly -----------------------------------------


async def test_a_fixed_window_allows_n_per_aligned_window_and_closes_a_guard_early(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "3/2s", algorithm="fixed", guard=0.1)
    await budget.ensure(cfg, ACCOUNT_SCOPE)
    await asyncio.sleep(2.0 - time.time() % 2.0 + 0.05)  # just after an aligned window opened
    results = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(3)]
    before = time.time()
    results.append(await budget.checkout(cfg, ACCOUNT_SCOPE))
    after = time.time()
    assert [r.granted for r in results] == [True, True, True, False]
    # until the next aligned window, as seen from either side of the refused checkout
    assert 2.0 - after % 2.0 - 0.001 <= results[-1].delay <= min(1.95, 2.0 - before % 2.0 + 0.001)
    await asyncio.sleep(results[-1].delay + 0.01)
    assert (await budget.checkout(cfg, ACCOUNT_SCOPE)).granted
    await asyncio.sleep(2.0 - time.time() % 2.0 - 0.05)  # in the last 0.1 s of the window: closed
    closing = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert not closing.granted and closing.delay <= 0.1


async def test_a_token_bucket_grants_its_stated_burst_then_the_refill(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "4/1h", algorithm="token_bucket", burst=2)
    results = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(3)]
    assert [r.granted for r in results] == [True, True, False]
    assert 890 < results[-1].delay <= 900  # one token of 4/h


async def test_token_bucket_reservations_are_slots_one_refill_interval_apart_up_to_the_horizon(budget_pool) -> None:
    # 3 an hour, a burst of 3, then one token every 1,200 s.
    budget, cfg = Budget(budget_pool), provider("p", "3/1h", algorithm="token_bucket", burst=3)
    checkouts = [await budget.checkout(cfg, ACCOUNT_SCOPE, horizon=3000.0) for _ in range(6)]
    assert [c.granted for c in checkouts] == [True, True, True, True, True, False]
    assert [c.delay for c in checkouts[:5]] == pytest.approx([0, 0, 0, 1200, 2400], abs=1.0)
    assert checkouts[5].delay == pytest.approx(3600 - 3000, abs=1.0)  # until a slot within the horizon


async def test_concurrent_token_bucket_reservations_in_two_pools_never_exceed_the_rate(db_url: str,
                                                                                      budget_pool) -> None:
    cfg = provider("p", "10/1h", algorithm="token_bucket", burst=10)
    async with AsyncConnectionPool(db_url, min_size=4, max_size=4, open=False, kwargs={"autocommit": True}) as other:
        a, b = Budget(budget_pool), Budget(other)
        results = await asyncio.gather(*(x.checkout(cfg, ACCOUNT_SCOPE, horizon=1440.0)
                                         for _ in range(40) for x in (a, b)))
    slots = sorted(r.delay for r in results if r.granted)
    assert slots == pytest.approx([0.0] * 10 + [360.0, 720.0, 1080.0, 1440.0], abs=1.0)
    assert all(r.delay == pytest.approx(360.0, abs=1.0) for r in results if not r.granted)


async def test_a_sliding_window_reserves_nothing_ahead(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "2/1h")
    results = [await budget.checkout(cfg, ACCOUNT_SCOPE, horizon=3000.0) for _ in range(3)]
    assert [(r.granted, r.delay) for r in results[:2]] == [(True, 0.0), (True, 0.0)]
    assert not results[2].granted


# -- what a provider's answer does ------------------------------------------------------------------


async def test_retry_after_blocks_the_budget_and_records_the_reason(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "100/1s")
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429, retry-after=30", block_for=30.0))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    [state] = await budget.states("p")
    assert not refused.granted and 29.0 < refused.delay <= 30.0
    assert "retry-after=30" in (refused.reason or "") and state.reason == "HTTP 429, retry-after=30"


async def test_a_short_retry_after_blocks_then_the_window_resumes(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "100/1s")
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429, retry-after=0.3", block_for=0.3))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    assert not refused.granted and 0.2 < refused.delay <= 0.3
    await asyncio.sleep(refused.delay + 0.01)
    assert (await budget.checkout(cfg, ACCOUNT_SCOPE)).granted


async def test_a_bare_429_fills_the_window_so_only_calls_ageing_out_free_it(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", ["10/1h", "1000/1d"])
    first = await budget.checkout(cfg, ACCOUNT_SCOPE)
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429", full=True, window=3600.0))
    refused = await budget.checkout(cfg, ACCOUNT_SCOPE)
    states = {s.window_seconds: s for s in await budget.states("p")}
    assert first.granted and not refused.granted and refused.delay > 3599  # the hour is full until it slides on
    assert (states[3600.0].spent, states[86400.0].spent) == (10, 1)  # the day window is not guessed at


async def test_a_remaining_caps_the_calls_until_the_reset_less_those_in_flight(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "100/1h")
    answered = await budget.checkout(cfg, ACCOUNT_SCOPE)
    in_flight = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(2)]  # sent after, not yet counted
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("remaining=5", remaining=5, reset=30.0, window=3600.0),
                         since=answered.granted_at)
    results = [await budget.checkout(cfg, ACCOUNT_SCOPE) for _ in range(4)]
    assert all(c.granted for c in in_flight)
    assert [r.granted for r in results] == [True, True, True, False]  # 5 - 2 in flight
    assert 29.0 < results[-1].delay <= 30.0


async def test_tightening_lowers_the_effective_limit_but_never_above_the_configured_one(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", ["10/1s", "100/1m"])
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("policy says 4/s", limit=4, window=1.0))
    lowered = {s.window_seconds: s.effective_limit for s in await budget.states("p")}
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("policy says 1000/s", limit=1000, window=1.0))
    raised = {s.window_seconds: s.effective_limit for s in await budget.states("p")}
    assert lowered == {1.0: 4, 60.0: 100}
    assert raised == {1.0: 10, 60.0: 100}


async def test_a_lowered_limit_grants_that_many(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "5/1h")
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("policy 2/h", limit=2, window=3600.0))
    assert [(await budget.checkout(cfg, ACCOUNT_SCOPE)).granted for _ in range(3)] == [True, True, False]


async def test_the_database_refuses_an_effective_limit_above_the_configured_one(budget_pool) -> None:
    budget, cfg = Budget(budget_pool), provider("p", "10/1s")
    await budget.ensure(cfg, ACCOUNT_SCOPE)
    async with budget_pool.connection() as conn:
        with pytest.raises(psycopg.errors.CheckViolation):
            await conn.execute("UPDATE provider_budgets SET effective_limit = 11 WHERE provider = 'p'")


async def test_a_changed_configuration_resets_the_row_but_keeps_what_was_spent(budget_pool) -> None:
    await Budget(budget_pool).checkout(provider("p", "5/1h"), ACCOUNT_SCOPE)
    await Budget(budget_pool).tighten(provider("p", "5/1h"), ACCOUNT_SCOPE, Tightening("x", limit=2, window=3600.0))
    fresh = Budget(budget_pool)  # a new process with a new configuration
    await fresh.checkout(provider("p", "50/1h"), ACCOUNT_SCOPE)
    [state] = await fresh.states("p")
    assert (state.configured_limit, state.effective_limit, state.reason, state.spent) == (50, 50, None, 2)


async def test_a_token_bucket_row_becomes_a_sliding_window_without_a_fresh_window(budget_pool) -> None:
    old = provider("p", "10/1h", algorithm="token_bucket", burst=10)
    for _ in range(7):
        await Budget(budget_pool).checkout(old, ACCOUNT_SCOPE)
    new = Budget(budget_pool)
    results = [(await new.checkout(provider("p", "10/1h"), ACCOUNT_SCOPE)).granted for _ in range(4)]
    [state] = await new.states("p")
    assert results == [True, True, True, False] and (state.algorithm, state.spent) == ("sliding", 10)


async def test_rows_of_a_token_bucket_made_before_the_migration_keep_working(budget_pool) -> None:
    async with budget_pool.connection() as conn:  # what 0002's ensure made (no algorithm: the default)
        await conn.execute("INSERT INTO provider_budgets (provider, scope_key, window_seconds, configured_limit,"
                           " effective_limit, burst, tokens) VALUES ('p', 'account', 3600, 4, 4, 2, 2)")
    async with budget_pool.connection() as conn:
        cur = await conn.execute("SELECT granted FROM budget_checkout('p', 'account', '{3600}', 1, 0)")
        first = (await cur.fetchone())[0]  # type: ignore[index]
        cur = await conn.execute("SELECT granted FROM budget_checkout('p', 'account', '{3600}', 1, 0)")
        second = (await cur.fetchone())[0]  # type: ignore[index]
        cur = await conn.execute("SELECT granted, delay FROM budget_checkout('p', 'account', '{3600}', 1, 0)")
        third = await cur.fetchone()
    assert (first, second, third[0]) == (True, True, False) and 890 < third[1] <= 900  # type: ignore[index]

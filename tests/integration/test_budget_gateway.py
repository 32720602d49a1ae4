"""Budgets through the gateway, against a provider that counts a sliding window itself.

A call refused for a short while waits in its worker for the exact moment old calls leave the
window, taking turns with the other callers of the process; a longer wait snoozes the job. A
token-bucket provider, configured as one, may have slots reserved a little ahead.
"""

from __future__ import annotations

import asyncio
import time

from queue_core.budget import WAIT_IN_PROCESS_S
from queue_core.errors import Snooze
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call
from tests.support.fake_provider import FakeProvider


async def calls_at_once(gw: Gateway, n: int) -> list[str]:
    """Make ``n`` concurrent calls; return each one's outcome: "ok" or "snoozed"."""
    async def one(i: int) -> str:
        try:
            await call(gw, MemoryCallContext(), "crm", "POST", "/x", step=f"s{i}", json={"i": i})
        except Snooze:
            return "snoozed"
        return "ok"
    return list(await asyncio.gather(*(one(i) for i in range(n))))


async def test_calls_past_the_limit_wait_in_their_worker_for_the_window_to_slide(budget_pool) -> None:
    with FakeProvider(limit=5, window=0.5).running() as fake:
        async with Gateway(parse_providers({"crm": {"base_url": fake.url, "rate": "5/500ms"}}), budget_pool) as gw:
            start = time.monotonic()
            outcomes = await calls_at_once(gw, 10)
            took = time.monotonic() - start
    assert outcomes == ["ok"] * 10 and len(fake.effects) == 10
    assert fake.throttled == 0 and fake.stats()["worst_window"] == 5  # the provider's own count
    assert 0.5 < took < WAIT_IN_PROCESS_S  # two windows' worth: at 0 and once the first slid out


async def test_callers_that_would_wait_longer_than_the_bound_snooze(budget_pool) -> None:
    with FakeProvider(limit=5, window=2.0).running() as fake:
        async with Gateway(parse_providers({"crm": {"base_url": fake.url, "rate": "5/2s"}}), budget_pool) as gw:
            outcomes = await calls_at_once(gw, 9)
            with_delay = []
            for i in range(3):  # later callers are told, spaced apart, when to come back
                try:
                    await call(gw, MemoryCallContext(), "crm", "POST", "/x", step=f"late{i}", json={})
                except Snooze as snooze:
                    with_delay.append(snooze)
    assert outcomes.count("ok") == 5 == len(fake.effects) and outcomes.count("snoozed") == 4
    assert fake.throttled == 0 and all(s.kind == "budget_wait" and "5/2s" in s.reason for s in with_delay)
    delays = [s.delay for s in with_delay]  # after the window slides, a call interval (0.4 s) apart
    assert WAIT_IN_PROCESS_S < delays[0] < delays[1] < delays[2] < 6.0


async def test_a_token_bucket_provider_configured_as_one_may_have_slots_reserved_ahead(budget_pool) -> None:
    # Its stated burst of 4, then one token every 0.2 s, reservable 0.8 s ahead.
    table = {"crm": {"base_url": "", "rate": "5/1s", "algorithm": "token_bucket", "burst": 4}}
    with FakeProvider(limit=5, window=1.0, counting="token_bucket").running() as fake:
        table["crm"]["base_url"] = fake.url
        async with Gateway(parse_providers(table), budget_pool) as gw:
            outcomes = await calls_at_once(gw, 6)
    assert outcomes == ["ok"] * 6 and len(fake.effects) == 6 and fake.throttled == 0


async def test_the_same_token_bucket_against_a_sliding_window_provider_is_overrun(budget_pool) -> None:
    """Why sliding is the default: a bucket's burst plus its refill exceeds N in a window."""
    table = {"crm": {"base_url": "", "rate": "5/1s", "algorithm": "token_bucket", "burst": 5}}
    with FakeProvider(limit=5, window=1.0).running() as fake:
        table["crm"]["base_url"] = fake.url
        async with Gateway(parse_providers(table), budget_pool) as gw:
            await calls_at_once(gw, 8)
    assert fake.throttled > 0

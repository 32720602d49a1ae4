"""Reserved budget slots through the gateway: calls wait for their slot instead of snoozing."""

from __future__ import annotations

import asyncio

from queue_core.errors import Snooze
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext
from tests.support.fake_provider import FakeProvider


async def calls_at_once(gw: Gateway, n: int) -> list[str]:
    """Make ``n`` concurrent calls; return each one's outcome: "ok" or "snoozed"."""
    async def one(i: int) -> str:
        try:
            await gw.call(MemoryCallContext(), "crm", "POST", "/x", step=f"s{i}", json={"i": i})
        except Snooze:
            return "snoozed"
        return "ok"
    return list(await asyncio.gather(*(one(i) for i in range(n))))


async def test_calls_past_the_burst_wait_for_their_reserved_slots_instead_of_snoozing(budget_pool) -> None:
    # 5/s with the default headroom: a burst of 4, then a slot every 0.2 s, reservable 0.8 s ahead.
    with FakeProvider(limit=5, window=1.0).running() as fake:
        async with Gateway(parse_providers({"crm": {"base_url": fake.url, "rate": "5/1s"}}), budget_pool) as gw:
            outcomes = await calls_at_once(gw, 6)
    assert outcomes == ["ok"] * 6
    assert len(fake.effects) == 6 and fake.throttled == 0


async def test_callers_beyond_the_reservation_horizon_snooze(budget_pool) -> None:
    with FakeProvider(limit=5, window=1.0).running() as fake:
        async with Gateway(parse_providers({"crm": {"base_url": fake.url, "rate": "5/1s"}}), budget_pool) as gw:
            outcomes = await calls_at_once(gw, 14)
    # at most the burst (4) and the slots within the horizon (4) go out; the rest snooze
    assert 6 <= outcomes.count("snoozed") and outcomes.count("ok") == len(fake.effects) <= 8
    assert fake.throttled == 0

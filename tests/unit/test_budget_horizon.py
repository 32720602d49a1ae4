"""How far ahead a call may reserve its budget slot: only a token bucket reserves, a few
intervals ahead and at most a second; sliding and fixed windows grant at the moment of the call."""

from __future__ import annotations

import pytest

from queue_core.budget import RESERVE_MAX_S, RESERVE_SLOTS, reservation_horizon
from queue_core.provider import parse_provider


def horizon(**body: object) -> float:
    return reservation_horizon(parse_provider("p", {"base_url": "https://p.test", **body}))


def test_a_token_bucket_reserves_a_few_intervals_of_the_fastest_window() -> None:
    assert horizon(rate="50/1s", algorithm="token_bucket", burst=40) == pytest.approx(RESERVE_SLOTS / 50)
    assert horizon(rate=["10/1s", "500/1m"], algorithm="token_bucket", burst=[8, 400]) == pytest.approx(RESERVE_SLOTS / 10)


def test_a_slow_token_bucket_reserves_at_most_the_cap_ahead() -> None:
    assert horizon(rate="1/1m", algorithm="token_bucket", burst=1) == RESERVE_MAX_S


def test_sliding_and_fixed_windows_and_a_provider_without_rates_reserve_nothing() -> None:
    assert horizon(rate="50/1s") == horizon(rate="50/1s", algorithm="fixed") == horizon() == 0.0

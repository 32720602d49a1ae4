"""How far ahead a call may reserve its budget slot: a few token intervals, at most a second."""

from __future__ import annotations

import pytest

from queue_core.budget import RESERVE_MAX_S, RESERVE_SLOTS, reservation_horizon
from queue_core.provider import parse_provider


def horizon(**body: object) -> float:
    return reservation_horizon(parse_provider("p", {"base_url": "https://p.test", **body}))


def test_the_horizon_is_a_few_intervals_of_the_fastest_window() -> None:
    assert horizon(rate="50/1s") == pytest.approx(RESERVE_SLOTS / 50)
    assert horizon(rate=["10/1s", "500/1m"]) == pytest.approx(RESERVE_SLOTS / 10)


def test_a_slow_provider_reserves_at_most_the_cap_ahead() -> None:
    assert horizon(rate="1/1m") == RESERVE_MAX_S


def test_a_provider_without_rates_reserves_nothing() -> None:
    assert horizon() == 0.0

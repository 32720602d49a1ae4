"""Make's scheduling types (the API's ``scheduling`` of a scenario) as ``schedule=``, or the type named."""

from __future__ import annotations

import pytest

from harness.platforms.make.translate import schedule_of


@pytest.mark.parametrize(("scheduling", "cron"), [
    ({"type": "indefinitely", "interval": 900}, "*/15 * * * *"),
    ({"type": "indefinitely", "interval": 7200}, "0 */2 * * *"),
    ({"type": "daily", "time": "08:05"}, "5 8 * * *"),
    ({"type": "weekly", "days": [1, 5, 7], "time": "9:30"}, "30 9 * * 0,1,5"),
    ({"type": "monthly", "dates": [1, 15], "time": "00:00"}, "0 0 1,15 * *"),
    ({"type": "yearly", "dates": [24], "months": [12], "time": "18:00"}, "0 18 24 12 *"),
])
def test_a_make_schedule_becomes_its_cron(scheduling, cron) -> None:
    assert schedule_of(scheduling)[0] == {"cron": cron}


@pytest.mark.parametrize(("scheduling", "named"), [
    ({"type": "once", "date": "2024-06-01T10:00:00Z"}, "'once'"),
    ({"type": "indefinitely", "interval": 420}, "'indefinitely'"),
    ({"type": "weekly", "days": [8], "time": "09:00"}, "'weekly'"),
    ({"type": "immediately"}, "'immediately'"),
])
def test_a_schedule_with_no_cron_names_its_type(scheduling, named) -> None:
    schedule, why = schedule_of(scheduling)
    assert schedule is None and named in why


def test_no_scheduling_says_where_it_is() -> None:
    assert schedule_of(None) == (None, "no scheduling beside the blueprint: set schedule= by hand (GET /scenarios/{id} has it)")

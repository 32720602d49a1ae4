"""Tick planning (queue_core.schedule.plan_ticks) and schedule declarations, without a database."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from queue_core import schedule as sch
from queue_core.errors import ConfigError
from queue_core.registry import Registry, automation

UTC = timezone.utc
BERLIN = "Europe/Berlin"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def ticks_between(cron: str, tz: str, start: datetime, end: datetime) -> list[datetime]:
    """Every tick in (start, end], walked one first_tick_after at a time."""
    out, tick = [], sch.first_tick_after(cron, tz, start)
    while tick <= end:
        out.append(tick)
        tick = sch.first_tick_after(cron, tz, tick)
    return out


def test_an_on_time_tick_is_enqueued_and_the_next_one_planned():
    plan = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 12, 0), utc(2024, 6, 1, 12, 0, 1), "none")
    assert plan == sch.TickPlan((utc(2024, 6, 1, 12, 0),), utc(2024, 6, 1, 12, 15))


def test_nothing_is_enqueued_before_the_next_tick():
    plan = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 12, 15), utc(2024, 6, 1, 12, 14, 59), "all")
    assert plan == sch.TickPlan((), utc(2024, 6, 1, 12, 15))


def test_catch_up_latest_runs_only_the_last_missed_tick():
    plan = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 9, 0), utc(2024, 6, 1, 12, 5), "latest")
    assert plan.ticks == (utc(2024, 6, 1, 12, 0),)
    assert plan.next_tick == utc(2024, 6, 1, 12, 15)


def test_catch_up_all_runs_every_missed_tick_up_to_the_bound_newest_first_kept():
    plan = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 9, 0), utc(2024, 6, 1, 12, 5), "all")
    assert len(plan.ticks) == 13 and plan.ticks[0] == utc(2024, 6, 1, 9, 0)
    bounded = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 9, 0), utc(2024, 6, 1, 12, 5), "all", 3)
    assert bounded.ticks == (utc(2024, 6, 1, 11, 30), utc(2024, 6, 1, 11, 45), utc(2024, 6, 1, 12, 0))


def test_catch_up_none_drops_missed_ticks_but_keeps_an_on_time_one():
    missed = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 9, 0), utc(2024, 6, 1, 12, 5), "none")
    assert missed == sch.TickPlan((), utc(2024, 6, 1, 12, 15))
    on_time = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 9, 0), utc(2024, 6, 1, 12, 0, 20), "none")
    assert on_time.ticks == (utc(2024, 6, 1, 12, 0),)


def test_a_paused_schedule_enqueues_nothing_and_skips_its_missed_ticks():
    plan = sch.plan_ticks("*/15 * * * *", "UTC", utc(2024, 6, 1, 9, 0), utc(2024, 6, 1, 12, 5), "all", paused=True)
    assert plan == sch.TickPlan((), utc(2024, 6, 1, 12, 15))


def test_catch_up_looks_back_at_most_a_week():
    plan = sch.plan_ticks("0 * * * *", "UTC", utc(2024, 1, 1), utc(2024, 6, 1, 12, 30), "all", 10_000)
    assert len(plan.ticks) == 7 * 24 and plan.ticks[-1] == utc(2024, 6, 1, 12, 0)


def test_spring_forward_a_fixed_time_in_the_gap_fires_once_just_after_it():
    # 2024-03-31 02:30 does not exist in Berlin: clocks jump from 02:00 CET to 03:00 CEST (01:00Z).
    ticks = ticks_between("30 2 * * *", BERLIN, utc(2024, 3, 30, 12), utc(2024, 4, 1, 12))
    assert ticks == [utc(2024, 3, 31, 1, 0), utc(2024, 4, 1, 0, 30)]


def test_spring_forward_a_wildcard_hour_schedule_has_no_ticks_in_the_gap():
    ticks = ticks_between("*/15 * * * *", BERLIN, utc(2024, 3, 31, 0, 30), utc(2024, 3, 31, 1, 30))
    # 01:45 CET (00:45Z) is followed by 03:00 CEST (01:00Z): real time goes on every 15 minutes.
    assert ticks == [utc(2024, 3, 31, 0, 45), utc(2024, 3, 31, 1, 0), utc(2024, 3, 31, 1, 15), utc(2024, 3, 31, 1, 30)]


def test_fall_back_a_fixed_time_in_the_repeated_hour_fires_once_at_its_first_occurrence():
    # 2024-10-27 02:30 happens twice: 02:30 CEST (00:30Z) and 02:30 CET (01:30Z).
    ticks = ticks_between("30 2 * * *", BERLIN, utc(2024, 10, 26, 12), utc(2024, 10, 28, 12))
    assert ticks == [utc(2024, 10, 27, 0, 30), utc(2024, 10, 28, 1, 30)]


def test_fall_back_a_wildcard_hour_schedule_ticks_in_both_passes_of_the_repeated_hour():
    ticks = ticks_between("*/15 * * * *", BERLIN, utc(2024, 10, 26, 23, 59), utc(2024, 10, 27, 1, 59))
    assert ticks == [utc(2024, 10, 27, 0, 0) + timedelta(minutes=15 * i) for i in range(8)]


def test_fall_back_planning_from_inside_the_second_pass_never_goes_back_in_time():
    # Started at 02:00 CET (the second pass), cronsim's wall clock would answer 02:30 CEST, which
    # is already past; the plan's next tick is the next day's 02:30 instead.
    plan = sch.plan_ticks("30 2 * * *", BERLIN, utc(2024, 10, 28, 1, 30), utc(2024, 10, 27, 1, 0), "latest")
    assert plan.ticks == ()
    assert sch.first_tick_after("30 2 * * *", BERLIN, utc(2024, 10, 27, 1, 0)) == utc(2024, 10, 28, 1, 30)


def test_two_ticks_at_the_same_wall_time_have_distinct_dedupe_keys():
    first, second = utc(2024, 10, 27, 0, 30), utc(2024, 10, 27, 1, 30)
    assert sch.dedupe_key("hourly", first) == "schedule:hourly:2024-10-27T00:30:00+00:00"
    assert sch.dedupe_key("hourly", first) != sch.dedupe_key("hourly", second)


@pytest.mark.parametrize(("alias", "expected"), [("@hourly", "0 * * * *"), ("@daily", "0 0 * * *"),
                                                 ("@midnight", "0 0 * * *"), ("@weekly", "0 0 * * 0"),
                                                 ("@monthly", "0 0 1 * *"), ("@yearly", "0 0 1 1 *"),
                                                 ("@annually", "0 0 1 1 *")])
def test_the_usual_aliases_expand_to_five_fields(alias, expected):
    assert sch.normalize_cron(alias) == expected


@pytest.mark.parametrize("bad", ["* * * *", "* * * * * *", "61 * * * *", "@often", "", 5])
def test_a_bad_cron_expression_is_a_config_error_naming_the_key(bad):
    with pytest.raises(ConfigError, match=r"pyproject.toml, field 'tool.cutover.schedules.s.cron'"):
        sch.spec_from_config("s", {"automation": "a", "cron": bad}, "pyproject.toml")


@pytest.mark.parametrize(("key", "value"), [("timezone", "Mars/Olympus"), ("catch_up", "some"),
                                            ("catch_up_max", 0), ("paused", "yes"), ("payload", [1])])
def test_a_bad_schedule_key_is_a_config_error_naming_it(key, value):
    table = {"automation": "a", "cron": "* * * * *", key: value}
    with pytest.raises(ConfigError, match=rf"field 'tool.cutover.schedules.s.{key}'"):
        sch.spec_from_config("s", table, "pyproject.toml")


def test_an_unknown_or_missing_schedule_key_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown key.*crontab"):
        sch.spec_from_config("s", {"automation": "a", "crontab": "* * * * *"}, "p.toml")
    with pytest.raises(ConfigError, match=r"field 'tool.cutover.schedules.s.cron'.*required"):
        sch.spec_from_config("s", {"automation": "a"}, "p.toml")


def _registry() -> Registry:
    reg = Registry()

    @automation("nightly-sync", schedule="*/15 * * * *", timezone=BERLIN, catch_up="all", registry=reg)
    async def nightly(ctx, trigger):
        return None

    @automation("report", registry=reg)
    async def report(ctx, trigger):
        return None

    return reg


def test_schedules_come_from_decorators_and_the_config_table():
    config = {"schedules": {"weekly-report": {"automation": "report", "cron": "@weekly", "payload": {"k": 1}}}}
    specs = sch.declared(_registry().automations(), config, source="/p/pyproject.toml")
    by_name = {s.name: s for s in specs}
    assert by_name["nightly-sync"].timezone == BERLIN and by_name["nightly-sync"].catch_up is sch.CatchUp.ALL
    assert by_name["weekly-report"] == sch.ScheduleSpec("weekly-report", "report", "0 0 * * 0", payload={"k": 1},
                                                        source="/p/pyproject.toml")


def test_a_schedule_declared_twice_or_for_an_unknown_automation_is_refused():
    twice = {"schedules": {"nightly-sync": {"automation": "report", "cron": "@daily"}}}
    with pytest.raises(ConfigError, match="declared twice"):
        sch.declared(_registry().automations(), twice)
    unknown = {"schedules": {"x": {"automation": "nope", "cron": "@daily"}}}
    with pytest.raises(ConfigError, match=r"schedules.x.automation'.*no automation 'nope'"):
        sch.declared(_registry().automations(), unknown)


def test_a_decorator_with_a_bad_schedule_fails_at_import_naming_the_automation():
    with pytest.raises(ConfigError, match=r"@automation\('bad'\).timezone"):
        @automation("bad", schedule="@daily", timezone="Nowhere/City", registry=Registry())
        async def bad(ctx, trigger):
            return None


def test_a_schedule_job_names_its_tick_and_others_do_not():
    meta = sch.tick_meta("nightly-sync", utc(2024, 6, 1, 12, 0))
    assert meta["received_at"] == "2024-06-01T12:00:00+00:00" and meta["source"] == "schedule"
    assert sch.tick_of({"trigger_meta": meta}) == (
        "enqueued by schedule 'nightly-sync' for its tick at 2024-06-01T12:00:00+00:00.")
    assert sch.tick_of({"trigger_meta": {"source": "webhook"}}) is None


def test_producer_passes_fall_just_after_each_whole_second_where_ticks_are():
    from queue_core._ticker import BEAT_OFFSET_S, until_next_beat

    assert until_next_beat(1000.5, 1.0) == pytest.approx(0.5 + BEAT_OFFSET_S)
    assert until_next_beat(1000.0 + BEAT_OFFSET_S, 1.0) == pytest.approx(1.0)
    assert until_next_beat(1000.0, 1.0) == pytest.approx(BEAT_OFFSET_S)

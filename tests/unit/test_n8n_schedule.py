"""n8n Schedule Trigger (v1–v1.2) and Cron v1 rules become cutover schedules, as n8n computes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.schedule import rules_of
from queue_core.schedule import declared
from tests.support.scaffolded import registry_of


def _workflow(node: dict[str, Any], settings: dict[str, Any] | None = None) -> Any:
    document = {"name": "Ticks", "nodes": [{"name": "Every", "position": [0, 0], **node},
                                           {"name": "Nothing", "type": "n8n-nodes-base.noOp", "typeVersion": 1,
                                            "position": [200, 0], "parameters": {}}],
                "connections": {"Every": {"main": [[{"node": "Nothing", "type": "main", "index": 0}]]}}}
    if settings is not None:
        document["settings"] = settings
    return parse_workflow(document, "ticks.json")


def _schedule(*intervals: dict[str, Any], version: float = 1.2) -> dict[str, Any]:
    return {"type": "n8n-nodes-base.scheduleTrigger", "typeVersion": version,
            "parameters": {"rule": {"interval": list(intervals)}}}


def _cron(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "n8n-nodes-base.cron", "typeVersion": 1, "parameters": {"triggerTimes": {"item": list(items)}}}


def _rules(node: dict[str, Any]) -> Any:
    return rules_of(_workflow(node).nodes["Every"])


@pytest.mark.parametrize(("interval", "cron"), [
    ({}, "0 0 * * *"),  # the export left out field "days" and triggerAtHour/Minute 0: n8n's defaults
    ({"field": "minutes"}, "*/5 * * * *"),  # minutesInterval's default is 5
    ({"field": "minutes", "minutesInterval": 1}, "* * * * *"),
    ({"field": "hours", "hoursInterval": 6, "triggerAtMinute": 15}, "15 */6 * * *"),
    ({"field": "hours"}, "0 * * * *"),
    ({"field": "days", "triggerAtHour": 9, "triggerAtMinute": 30}, "30 9 * * *"),
    ({"field": "weeks", "triggerAtDay": [1, 3, 5], "triggerAtHour": 8}, "0 8 * * 1,3,5"),
    ({"field": "weeks"}, "0 0 * * 0"),  # triggerAtDay defaults to [0]: Sunday
    ({"field": "months", "triggerAtDayOfMonth": 15, "triggerAtHour": 6}, "0 6 15 * *"),
    ({"field": "months", "monthsInterval": 3}, "0 0 1 */3 *"),
    ({"field": "cronExpression", "expression": "0 7 * * 1-5"}, "0 7 * * 1-5"),
    ({"field": "cronExpression", "expression": "0 30 7 * * *"}, "30 7 * * *"),  # seconds first, dropped
])
def test_each_schedule_rule_becomes_the_cron_n8n_ticks_on(interval: dict[str, Any], cron: str) -> None:
    rules = _rules(_schedule(interval))
    assert rules.why is None and rules.crons == [cron]


@pytest.mark.parametrize(("interval", "reason"), [
    ({"field": "seconds", "secondsInterval": 10}, "every 10 seconds"),
    ({"field": "days", "daysInterval": 3}, "every 3 days, counted by n8n from the first run"),
    ({"field": "weeks", "weeksInterval": 2}, "every 2 weeks"),
    ({"field": "hours", "hoursInterval": 5}, "unless it divides 24"),
    ({"field": "months", "monthsInterval": 5}, "unless it divides 12"),
    ({"field": "cronExpression", "expression": "*/10 * * * * *"}, "ticks on seconds '*/10'"),
    ({"field": "cronExpression", "expression": "0 0 * *"}, "has 4 fields"),
    ({"field": "cronExpression", "expression": "61 * * * *"}, "is not one cutover's cron library reads"),
    ({"field": "days", "triggerAtHour": "={{ 3 }}"}, "is an expression"),
])
def test_a_rule_no_cron_says_is_left_for_a_person_with_the_reason(interval: dict[str, Any], reason: str) -> None:
    rules = _rules(_schedule(interval))
    assert rules.crons == [] and rules.why is not None and reason in rules.why


@pytest.mark.parametrize(("item", "cron"), [
    ({}, "0 14 * * *"),  # mode everyDay and hour 14 are the Cron node's defaults
    ({"mode": "everyMinute"}, "* * * * *"),
    ({"mode": "everyHour", "minute": 45}, "45 * * * *"),
    ({"mode": "everyDay", "hour": 7, "minute": 5}, "5 7 * * *"),
    ({"mode": "everyWeek", "hour": 9}, "0 9 * * 1"),  # weekday defaults to Monday ("1")
    ({"mode": "everyWeek", "hour": 9, "weekday": "5"}, "0 9 * * 5"),
    ({"mode": "everyMonth", "hour": 1, "dayOfMonth": 28}, "0 1 28 * *"),
    ({"mode": "everyX", "value": 10, "unit": "minutes"}, "*/10 * * * *"),
    ({"mode": "everyX", "value": 4}, "0 */4 * * *"),  # unit defaults to hours
    ({"mode": "custom", "cronExpression": "0 15 3 * * 1"}, "15 3 * * 1"),
])
def test_each_cron_v1_trigger_time_becomes_its_cron(item: dict[str, Any], cron: str) -> None:
    rules = _rules(_cron(item))
    assert rules.why is None and rules.crons == [cron]


def test_the_cron_nodes_default_custom_expression_ticks_every_second_and_is_left() -> None:
    rules = _rules(_cron({"mode": "custom"}))  # n8n's default "* * * * * *"
    assert rules.crons == [] and "ticks on seconds '*'" in (rules.why or "")


def test_an_hourly_every_x_names_the_random_minute_n8n_picks() -> None:
    rules = _rules(_cron({"mode": "everyX", "value": 2, "unit": "hours"}))
    assert any("random minute" in note for note in rules.notes)


def test_several_rules_become_several_named_schedules_of_one_automation(tmp_path: Path) -> None:
    wf = _workflow(_schedule({"field": "days", "triggerAtHour": 9}, {"field": "weeks", "triggerAtDay": [6],
                                                                      "triggerAtHour": 12}),
                   settings={"timezone": "Europe/Berlin"})
    scaffold = build(wf, "ticks", {})
    assert scaffold.schedule == {"cron": ["0 9 * * *", "0 12 * * 6"], "timezone": "Europe/Berlin"}
    assert "schedule=('0 9 * * *', '0 12 * * 6')" in scaffold.source and "timezone='Europe/Berlin'" in scaffold.source
    module = _load(tmp_path, scaffold.source)
    specs = declared(module.values())
    assert [(s.name, s.cron, s.timezone) for s in specs] == [
        ("ticks", "0 9 * * *", "Europe/Berlin"), ("ticks#2", "0 12 * * 6", "Europe/Berlin")]


def test_one_rule_it_cannot_read_leaves_the_whole_schedule_with_the_rule_named() -> None:
    scaffold = build(_workflow(_schedule({"field": "minutes"}, {"field": "seconds", "secondsInterval": 5})),
                     "ticks", {})
    assert scaffold.schedule is None
    (row,) = [r for r in scaffold.rows if r.status == "trigger"]
    assert row.why.startswith("schedule not translated to cron: rule 2: every 5 seconds")


def test_a_workflow_without_a_timezone_says_n8n_used_the_instances() -> None:
    scaffold = build(_workflow(_schedule({"field": "minutes"})), "ticks", {})
    assert scaffold.schedule == {"cron": "*/5 * * * *"}
    (row,) = [r for r in scaffold.rows if r.status == "trigger"]
    assert "GENERIC_TIMEZONE" in row.why and "random second" in row.why


def _load(tmp_path: Path, source: str) -> Any:
    path = tmp_path / "ticks_module.py"
    path.write_text(source)
    return {a.name: a for a in registry_of([path], "ticks").automations()}


def test_a_live_tick_emits_the_item_n8ns_schedule_trigger_emits_in_the_workflows_timezone() -> None:
    from queue_core.compat.n8n import schedule_items
    from queue_core.context import Trigger

    live = Trigger("t", "2024-03-31T07:05:09+00:00", {}, {}, "schedule")
    (item,) = schedule_items(live, "Europe/Berlin")
    assert item["json"] == {
        "timestamp": "2024-03-31T09:05:09.000+02:00", "Readable date": "March 31st 2024, 9:05:09 am",
        "Readable time": "9:05:09 am", "Day of week": "Sunday", "Year": "2024", "Month": "March",
        "Day of month": "31", "Hour": "09", "Minute": "05", "Second": "09", "Timezone": "Europe/Berlin (UTC+02:00)"}
    (noon,) = schedule_items(Trigger("t", "2024-01-12T12:00:00+00:00", {}, {}, "schedule"), "UTC")
    assert noon["json"]["Readable time"] == "12:00:00 pm" and noon["json"]["Readable date"].startswith("January 12th")
    recorded = {"timestamp": "2024-06-03T02:30:00.004+02:00", "Hour": "02"}
    assert schedule_items(Trigger("t", "2024-06-03T00:30:00+00:00", {}, recorded, "schedule")) == [{"json": recorded}]


def test_the_scaffolded_trigger_builds_its_tick_item_in_the_workflows_timezone() -> None:
    scaffold = build(_workflow(_schedule({"field": "minutes"}), settings={"timezone": "Asia/Tokyo"}), "ticks", {})
    assert "n8n.schedule_items(trigger, 'Asia/Tokyo')" in scaffold.source

"""An n8n Schedule Trigger's or Cron node's rules as cron expressions, the way n8n computes them.

n8n turns each rule into a 6-field cron (a random second first) and, for an interval of more
than one hour, day, week or month, filters the ticks by a recurrence check counted from the
first run (``n8n-nodes-base/nodes/Schedule/GenericFunctions``: ``toCronExpression``,
``recurrenceCheck``; the Cron v1 node uses ``n8n-workflow``'s ``toCronExpression``). cutover's
schedules are 5-field cron evaluated in one IANA timezone, so a rule is translated when a
5-field cron ticks on the same minutes n8n's does:

- the random second is dropped (a tick is at second 0) — said in the trigger's note;
- an hourly "every X" rule of the Cron v1 node has a random minute in n8n: it ticks at minute 0
  here, also said;
- an interval of N hours / months whose N divides 24 / 12 is the cron step ``*/N``, which ticks
  where n8n's recurrence lets a tick through; any other N, and every N > 1 for days and weeks
  (counted by n8n from whenever the workflow was activated), has no cron equivalent and is left
  for a person with the reason;
- a seconds rule (sub-minute) is left for a person, as is a 6-field cron expression whose
  seconds field is not a single number.

Every parameter is read with n8n's defaults put back (``Node.settings``), so an export that left
out ``triggerAtHour: 0`` or the Cron node's ``hour: 14`` is read as n8n reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from cronsim import CronSim, CronSimError

from harness.platforms.n8n.definition import Node

RANDOM_SECOND = "n8n adds a random second to each tick; here ticks are at second 0"


@dataclass
class ScheduleRules:
    """The cron expressions of a trigger's rules, what was approximated, or why there are none."""

    crons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    why: str | None = None  # set when the rules are not translated


def rules_of(node: Node) -> ScheduleRules:
    """Return the cron expressions of a Schedule Trigger or Cron node (``why`` set when untranslatable)."""
    params = node.settings
    if node.short_type.lower() == "cron":
        items = (params.get("triggerTimes") or {}).get("item") or []
        return _all([_cron_item(item) for item in items if isinstance(item, dict)], "the Cron node has no trigger times")
    intervals = (params.get("rule") or {}).get("interval") or []
    return _all([_interval(rule) for rule in intervals if isinstance(rule, dict)], "the Schedule Trigger has no rule")


def _all(parts: list[tuple[str | None, str]], empty: str) -> ScheduleRules:
    if not parts:
        return ScheduleRules(why=empty)
    rules = ScheduleRules()
    for position, (cron, note) in enumerate(parts, start=1):
        where = f"rule {position}: " if len(parts) > 1 else ""
        if cron is None:
            return ScheduleRules(why=f"{where}{note}: set schedule= by hand")
        if cron not in rules.crons:
            rules.crons.append(cron)
        if note and note not in rules.notes:
            rules.notes.append(note)
    return rules


def _number(value: Any, default: int) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and float(value).is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None if value is not None else default


def _interval(rule: dict[str, Any]) -> tuple[str | None, str]:
    kind = rule.get("field", "days")
    if kind == "cronExpression":
        return _expression(rule.get("expression"))
    if kind == "seconds":
        return None, f"every {rule.get('secondsInterval')} seconds (cron here ticks at most once a minute)"
    minute, hour = _number(rule.get("triggerAtMinute"), 0), _number(rule.get("triggerAtHour"), 0)
    if minute is None or hour is None:
        return None, "the trigger minute or hour is an expression"
    if kind == "minutes":
        every = _number(rule.get("minutesInterval"), 5)
        if every is None or not 1 <= every <= 59:
            return None, f"minutes interval {rule.get('minutesInterval')!r} is not 1-59"
        return ("* * * * *" if every == 1 else f"*/{every} * * * *"), RANDOM_SECOND
    if kind == "hours":
        every = _number(rule.get("hoursInterval"), 1)
        if every is None or not 1 <= every <= 23 or 24 % every:
            return None, (f"every {rule.get('hoursInterval')} hours, counted by n8n from the first run "
                          "(no cron step says it unless it divides 24)")
        return f"{minute} {'*' if every == 1 else f'*/{every}'} * * *", RANDOM_SECOND
    if kind == "days":
        every = _number(rule.get("daysInterval"), 1)
        if every != 1:
            return None, f"every {rule.get('daysInterval')} days, counted by n8n from the first run (no cron says it)"
        return f"{minute} {hour} * * *", RANDOM_SECOND
    if kind == "weeks":
        every = _number(rule.get("weeksInterval"), 1)
        if every != 1:
            return None, f"every {rule.get('weeksInterval')} weeks, counted by n8n from the first run (no cron says it)"
        days = rule.get("triggerAtDay", [0])
        days = days if isinstance(days, list) else [days]
        numbers = [_number(d, 0) for d in days]
        if any(d is None or not 0 <= d <= 6 for d in numbers):
            return None, f"weekdays {days!r} are not 0-6"
        weekdays = ",".join(str(d) for d in numbers) if numbers else "*"
        return f"{minute} {hour} * * {weekdays}", RANDOM_SECOND
    if kind == "months":
        every, day = _number(rule.get("monthsInterval"), 1), _number(rule.get("triggerAtDayOfMonth"), 1)
        if every is None or every < 1 or 12 % every:
            return None, (f"every {rule.get('monthsInterval')} months, counted by n8n from the first run "
                          "(no cron step says it unless it divides 12)")
        if day is None or not 1 <= day <= 31:
            return None, f"day of month {rule.get('triggerAtDayOfMonth')!r} is not 1-31"
        return f"{minute} {hour} {day} {'*' if every == 1 else f'*/{every}'} *", RANDOM_SECOND
    return None, f"schedule field {kind!r} is not one n8n has"


def _cron_item(item: dict[str, Any]) -> tuple[str | None, str]:
    mode = item.get("mode", "everyDay")
    minute, hour = _number(item.get("minute"), 0), _number(item.get("hour"), 14)
    if mode == "custom":
        return _expression(item.get("cronExpression", "* * * * * *"))
    if mode == "everyMinute":
        return "* * * * *", RANDOM_SECOND
    if minute is None or hour is None:
        return None, "the trigger minute or hour is an expression"
    if mode == "everyHour":
        return f"{minute} * * * *", RANDOM_SECOND
    if mode == "everyX":
        value, unit = _number(item.get("value"), 2), item.get("unit", "hours")
        if value is None or value < 1:
            return None, f"every {item.get('value')!r} {unit}"
        if unit == "minutes":
            return ("* * * * *" if value == 1 else f"*/{value} * * * *"), RANDOM_SECOND
        if unit == "hours":
            return (f"0 {'*' if value == 1 else f'*/{value}'} * * *",
                    "n8n picks a random minute (and second) for an hourly 'every X' time; here it is minute 0")
        return None, f"every X {unit!r} is not minutes or hours"
    if mode == "everyDay":
        return f"{minute} {hour} * * *", RANDOM_SECOND
    if mode == "everyWeek":
        weekday = _number(item.get("weekday", "1"), 1)
        if weekday is None or not 0 <= weekday <= 6:
            return None, f"weekday {item.get('weekday')!r} is not 0-6"
        return f"{minute} {hour} * * {weekday}", RANDOM_SECOND
    if mode == "everyMonth":
        day = _number(item.get("dayOfMonth"), 1)
        if day is None or not 1 <= day <= 31:
            return None, f"day of month {item.get('dayOfMonth')!r} is not 1-31"
        return f"{minute} {hour} {day} * *", RANDOM_SECOND
    return None, f"Cron mode {mode!r} is not one n8n has"


def _expression(text: Any) -> tuple[str | None, str]:
    """A rule's own cron expression: 5 fields, or 6 with a single-number seconds field dropped."""
    if not isinstance(text, str) or not text.strip():
        return None, "the cron expression is empty"
    if text.strip().startswith("="):
        return None, f"the cron expression {text!r} is an n8n expression"
    fields = text.split()
    note = ""
    if len(fields) == 6:
        if not fields[0].isdigit():
            return None, f"cron {text!r} ticks on seconds {fields[0]!r} (cron here ticks at most once a minute)"
        if int(fields[0]) != 0:
            note = f"cron {text!r} ticks at second {fields[0]}; here at second 0"
        fields = fields[1:]
    if len(fields) != 5:
        return None, f"cron {text!r} has {len(fields)} fields (expected 5, or 6 with seconds first)"
    cron = " ".join(fields)
    try:
        CronSim(cron, datetime(2024, 1, 1, tzinfo=timezone.utc))
    except CronSimError as exc:
        return None, f"cron {text!r} is not one cutover's cron library reads ({exc})"
    return cron, note

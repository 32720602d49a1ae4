"""A flow's trigger: what starts the automation, its schedule, and the conditions that let a run start.

- ``Request`` (the manual / HTTP / Button / hybrid triggers): a webhook delivery; its body is
  ``triggerBody()``, its headers ``triggerOutputs()['headers']``.
- ``Recurrence``: a cron ``schedule=`` where the recurrence has one (every N minutes or hours, a
  day at fixed hours, weekdays, a day of the month); its time zone is named, Windows-style, in the row.
- connector triggers (``ApiConnection`` polling, ``ApiConnectionNotification`` /
  ``OpenApiConnectionWebhook`` subscriptions): a trigger row, because a replay is honest (it starts
  from the recorded trigger outputs); a live trigger needs the poller or the subscription written
  by hand (the row and a comment in the module say "TODO live" and name the connector operation).
- trigger ``conditions``: a run whose conditions do not all hold does not start (the importer
  records it ``Skipped``): the run ends ``filtered``.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.power_automate.definition import obj
from harness.platforms.power_automate.translate.values import condition, value
from harness.scaffold import _code
from harness.scaffold._code import stmts
from harness.scaffold._module import NodeRow
from queue_core.compat._wdl_dates import WINDOWS_ZONES

WEEKDAYS = {"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6}


def _times(recurrence: dict[str, Any]) -> tuple[str, str] | None:
    """Return (minutes, hours) cron fields from ``schedule`` or ``startTime`` (None when they cannot be read)."""
    schedule = obj(recurrence.get("schedule"))
    start = re.search(r"T(\d{2}):(\d{2})", str(recurrence.get("startTime") or ""))
    hours = schedule.get("hours")
    minutes = schedule.get("minutes")
    try:
        hour = ",".join(str(int(h)) for h in hours) if hours else str(int(start.group(1))) if start else "0"
        minute = ",".join(str(int(m)) for m in minutes) if minutes else str(int(start.group(2))) if start else "0"
    except (TypeError, ValueError):
        return None
    return minute, hour


def _iana(zone: Any) -> str | None:
    """Return the IANA name of a Windows time zone (``W. Europe Standard Time`` → ``Europe/Berlin``), if known."""
    if not isinstance(zone, str):
        return None
    key = re.sub(r"[^a-z0-9]", "", zone.lower())
    return next((iana for name, iana in WINDOWS_ZONES.items() if re.sub(r"[^a-z0-9]", "", name.lower()) == key), None)


def schedule_of(recurrence: Any) -> tuple[dict[str, Any] | None, str]:
    """Return (``{"cron": …, "timezone"?: …}`` or None, why) for a Recurrence trigger's ``recurrence``."""
    schedule, why = _cron(recurrence)
    iana = _iana(recurrence.get("timeZone")) if isinstance(recurrence, dict) else None
    if schedule is not None and iana:
        schedule["timezone"] = iana
    return schedule, why


def _cron(recurrence: Any) -> tuple[dict[str, Any] | None, str]:
    if not isinstance(recurrence, dict):
        return None, "the Recurrence has no recurrence object: set schedule= by hand"
    frequency = str(recurrence.get("frequency") or "").lower()
    interval = recurrence.get("interval", 1)
    zone = recurrence.get("timeZone")
    iana = _iana(zone)
    where = f" in {zone} ({iana})" if iana else \
        f" in {zone} (a Windows time zone not in the table: set timezone= to its IANA name)" if zone else " UTC"
    times = _times(recurrence)
    if not isinstance(interval, int) or interval < 1 or times is None:
        return None, f"recurrence {recurrence!r} cannot be read: set schedule= by hand"
    minute, hour = times
    schedule = obj(recurrence.get("schedule"))
    if frequency == "minute" and 60 % interval == 0:
        return {"cron": "* * * * *" if interval == 1 else f"*/{interval} * * * *"}, f"every {interval} minute(s)"
    if frequency == "hour" and 24 % interval == 0 and not schedule:
        return {"cron": f"{minute} * * * *" if interval == 1 else f"{minute} */{interval} * * *"}, \
            f"every {interval} hour(s){where}"
    if frequency == "day" and interval == 1:
        return {"cron": f"{minute} {hour} * * *"}, f"daily{where}"
    if frequency == "week" and interval == 1:
        days = schedule.get("weekDays") or []
        try:
            dow = ",".join(str(WEEKDAYS[str(d).lower()]) for d in days) if days else None
        except KeyError:
            dow = None
        if dow:
            return {"cron": f"{minute} {hour} * * {dow}"}, f"weekly{where}"
    if frequency == "month" and interval == 1 and not schedule:
        day = re.search(r"-(\d{2})T", str(recurrence.get("startTime") or ""))
        if day:
            return {"cron": f"{minute} {hour} {int(day.group(1))} * *"}, f"monthly{where}"
    return None, f"recurrence every {interval} {frequency} has no cron equivalent here: set schedule= by hand"


def _split(name: str, split: Any, automation: str) -> tuple[str | None, list[ast.stmt]]:
    """Return (why it cannot be split, or None; the statements that split a delivery into child jobs)."""
    try:
        elements = value(split)
    except Untranslatable as exc:
        return f"splitOn {split!r}: {exc.reason}", []
    lines = stmts("split = power_automate.split_on(run, lambda run: $elements)\nif split is not None:\n    $note\n"
                  "    for index, element in enumerate(split):\n"
                  "        await ctx.enqueue($automation, element, key=str(index))\n    return",
                  elements=elements, automation=automation,
                  note=_code.comment("a delivery holding the array: one run per element, as Power Automate starts them"))
    return None, lines


def connector_trigger(spec: dict[str, Any]) -> str:
    """Return the row of a connector trigger: it replays (the delivery is the recorded trigger outputs,
    ``triggerBody()`` the connector's body as Power Automate recorded it); live, its subscription or its
    polling is a TODO naming the connector operation."""
    kind = str(spec.get("type") or "")
    inputs = obj(spec.get("inputs"))
    host = obj(inputs.get("host"))
    api = str(host.get("apiId") or obj(host.get("connection")).get("name") or host.get("connectionName") or "the connector")
    operation = host.get("operationId") or obj(obj(spec.get("metadata")).get("flowSystemMetadata")).get("swaggerOperationId")
    if not operation and inputs.get("path"):
        operation = f"{str(inputs.get('method') or 'get').upper()} {inputs['path']}"
    named = re.search(r"\['(shared_[^']+)'\]", api)  # @parameters('$connections')['shared_office365']['connectionId']
    what = (named.group(1) if named else api).rstrip("/").rsplit("/", 1)[-1].removeprefix("shared_") + (f" {operation}" if operation else "")
    live = "subscription (the connector's webhook)" if "Webhook" in kind or "Notification" in kind else "polling"
    return (f"replays: the delivery is the recorded trigger outputs (triggerBody() the connector's body); "
            f"TODO live: the {live} of {what} is not created here: write an ingress or a poller that delivers "
            "the connector's body")


def trigger(name: str, spec: dict[str, Any], automation: str = "") -> tuple[NodeRow, str, dict[str, Any] | None,
                                                                         list[ast.stmt]]:
    """Return (the trigger's row, trigger kind, schedule, statements run first: its split, its conditions)."""
    kind = str(spec.get("type") or "")
    row_type = f"{kind}:{spec['kind']}" if spec.get("kind") else kind
    lines: list[ast.stmt] = []
    status, why = "trigger", ""
    for index, cond in enumerate(spec.get("conditions") or []):
        raw = cond.get("expression") if isinstance(cond, dict) else None
        try:
            test = condition(raw)
        except Untranslatable as exc:
            return NodeRow(name, row_type, "todo", f"trigger condition {index + 1}: {exc.reason}"), "webhook", None, \
                stmts("power_automate.todo($name, $why)", name=name, why=f"trigger condition: {exc.reason}")
        lines += stmts("if not power_automate.truth($test, $name):\n    ctx.filter($why)", test=test, name=name,
                       why=f"trigger condition {index + 1} of {name!r} does not hold")
    split = spec.get("splitOn")
    if split and kind == "Request":
        problem, fan_out = _split(name, split, automation)
        if problem:
            return NodeRow(name, row_type, "todo", problem), "webhook", None, lines
        why = (f"splitOn {split!r}: a delivery whose value there is an array starts one child job per element, its "
               "body the element (the request's headers are not passed on); a replayed run is one element")
        return NodeRow(name, row_type, status, why), "webhook", None, fan_out + lines
    if kind == "Request":
        why = "the delivery is triggerOutputs(): its body triggerBody()"
        return NodeRow(name, row_type, status, why), "webhook", None, lines
    if kind == "Recurrence":
        schedule, how = schedule_of(spec.get("recurrence"))
        return NodeRow(name, row_type, status, f"schedule: {how}"), "schedule", schedule, lines
    if "Connection" in kind:
        why = connector_trigger(spec)
        return NodeRow(name, row_type, status, why), "webhook", None, [_code.comment(why), *lines]
    return NodeRow(name, row_type, "todo", f"trigger type {kind!r} is not translated"), "manual", None, lines

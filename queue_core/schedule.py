"""Cron schedules: declare, validate, and plan which ticks to enqueue.

A schedule is declared with its automation (``@automation("x", schedule="*/15 * * * *",
timezone="Europe/Berlin")``) or in ``[tool.cutover.schedules.<name>]``. Workers produce its
ticks (``queue_core._ticker``); this module holds the pure parts: parsing, the declarations and
:func:`plan_ticks`, which decides from (cron, timezone, next tick, now, catch-up policy) which
ticks to enqueue and where the next one lies.

Cron expressions are standard 5-field cron plus the aliases ``@yearly``/``@annually``,
``@monthly``, ``@weekly``, ``@daily``/``@midnight`` and ``@hourly``, evaluated by the maintained
``cronsim`` library in the schedule's IANA timezone. Daylight saving time follows Debian cron,
as cronsim implements it:

- a wall time that does not exist (Europe/Berlin 2024-03-31 02:30, inside the spring-forward
  gap) fires at the first instant after the gap: ``30 2 * * *`` ticks at 03:00 CEST (01:00Z);
  ticks of a schedule with a wildcard hour (``*/15 * * * *``) inside the gap do not exist;
- a wall time that happens twice (2024-10-27 02:30, in the repeated hour) fires once, at its
  first occurrence, for a schedule with a fixed hour (``30 2 * * *`` ticks at 02:30 CEST,
  00:30Z, not again at 02:30 CET); a schedule with a wildcard hour follows real time and
  ticks in both passes (``*/15`` ticks at 00:00Z ... 01:45Z, eight ticks).

Ticks are instants (UTC in the database and in dedupe keys), so the two 02:30s never collide.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from .errors import ConfigError

ALIASES = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}
# A tick enqueued more than this long after its instant was missed (nothing ran): the catch-up
# policy decides about it. The producer runs every second, so an on-time tick is well inside it.
MISSED_AFTER = timedelta(seconds=30)
# Catch-up looks back this far at most: older missed ticks are dropped whatever the policy.
LOOK_BACK = timedelta(days=7)
DEFAULT_CATCH_UP_MAX = 100
CONFIG_KEYS = frozenset({"automation", "cron", "timezone", "catch_up", "catch_up_max", "paused", "payload"})


class CatchUp(StrEnum):
    """What to do with ticks missed while no worker ran (equal to the schedules.catch_up check)."""

    LATEST = "latest"  # enqueue the last missed tick once
    ALL = "all"  # enqueue every missed tick, the newest catch_up_max of them
    NONE = "none"  # enqueue none of them; the next tick comes on time


@dataclass(frozen=True)
class ScheduleSpec:
    """A declared schedule, validated. ``source`` says where it was declared."""

    name: str
    automation: str
    cron: str
    timezone: str = "UTC"
    catch_up: CatchUp = CatchUp.LATEST
    catch_up_max: int = DEFAULT_CATCH_UP_MAX
    paused: bool = False
    payload: Any = field(default_factory=dict)
    source: str = "decorator"

    def __post_init__(self) -> None:
        # An alias is kept expanded: the database and cronsim see five fields.
        object.__setattr__(self, "cron", normalize_cron(self.cron, source=self.source, field_name=self.name))


@dataclass(frozen=True)
class TickPlan:
    """The ticks to enqueue now (oldest first) and the first tick after ``now``."""

    ticks: tuple[datetime, ...]
    next_tick: datetime


def normalize_cron(expr: Any, *, source: str | None = None, field_name: str | None = None) -> str:
    """Return ``expr`` as a 5-field expression (aliases expanded); raise ConfigError naming where."""
    if not isinstance(expr, str) or not expr.strip():
        raise ConfigError("must be a 5-field cron expression such as \"*/15 * * * *\"", source=source, field=field_name)
    text = ALIASES.get(expr.strip().lower(), expr.strip())
    if len(text.split()) != 5:
        raise ConfigError(f"{expr!r} is not a 5-field cron expression (minute hour day month weekday) "
                          f"or one of {', '.join(sorted(ALIASES))}", source=source, field=field_name)
    try:
        CronSim(text, datetime(2024, 1, 1, tzinfo=timezone.utc))
    except CronSimError as exc:
        raise ConfigError(f"{expr!r} is not a valid cron expression: {exc}", source=source, field=field_name) from None
    return text


def zone(name: Any, *, source: str | None = None, field_name: str | None = None) -> ZoneInfo:
    """Return the IANA timezone ``name``; raise ConfigError naming where."""
    try:
        if not isinstance(name, str) or not name:
            raise ZoneInfoNotFoundError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"{name!r} is not an IANA timezone such as \"Europe/Berlin\" or \"UTC\"",
                          source=source, field=field_name) from None


def first_tick_after(cron: str, tz: str, instant: datetime) -> datetime:
    """Return the first tick of ``cron`` in ``tz`` strictly after ``instant``, in UTC.

    cronsim walks wall-clock time; started inside a repeated hour it can answer a wall time that
    is already past in real time, so answers are checked against ``instant`` itself.
    """
    it = CronSim(cron, instant.astimezone(ZoneInfo(tz)))
    for _ in range(1000):
        tick = next(it).astimezone(timezone.utc)
        if tick > instant:
            return tick
    raise RuntimeError(f"cron {cron!r} gave no tick after {instant.isoformat()}")  # pragma: no cover


def plan_ticks(cron: str, tz: str, next_tick: datetime, now: datetime, catch_up: CatchUp | str,
               catch_up_max: int = DEFAULT_CATCH_UP_MAX, *, paused: bool = False) -> TickPlan:
    """Decide which due ticks (``next_tick`` <= tick <= ``now``) to enqueue; pure.

    ``next_tick`` is the first tick not yet enqueued. A due tick at most MISSED_AFTER old is on
    time and always enqueued; older ones were missed and follow ``catch_up``: ``latest`` keeps
    the newest due tick, ``all`` the newest ``catch_up_max``, ``none`` only on-time ones. A
    paused schedule enqueues nothing and its ticks are skipped, not caught up on resume. The
    returned next_tick is the first tick after ``now``.
    """
    after = first_tick_after(cron, tz, now)
    if paused or next_tick > now:
        return TickPlan((), after if paused else next_tick)
    policy = CatchUp(catch_up)
    keep = 1 if policy is CatchUp.LATEST else max(1, catch_up_max)
    due: deque[datetime] = deque(maxlen=keep if policy is not CatchUp.NONE else None)
    tick = next_tick if next_tick >= now - LOOK_BACK else first_tick_after(cron, tz, now - LOOK_BACK)
    while tick <= now:
        if policy is not CatchUp.NONE or now - tick <= MISSED_AFTER:
            due.append(tick)
        tick = first_tick_after(cron, tz, tick)
    return TickPlan(tuple(due), after)


def dedupe_key(name: str, tick: datetime) -> str:
    """The tick job's dedupe key: the schedule and the tick's instant in UTC (unique in jobs)."""
    return f"schedule:{name}:{tick.astimezone(timezone.utc).isoformat()}"


def tick_meta(name: str, tick: datetime) -> dict[str, Any]:
    """The tick job's trigger_meta: received_at is the tick's instant, source is ``schedule``."""
    at = tick.astimezone(timezone.utc).isoformat()
    return {"source": "schedule", "schedule": name, "received_at": at, "tick": at}


def tick_of(job: Mapping[str, Any]) -> str | None:
    """Return a sentence naming the schedule tick that enqueued ``job`` (None if it was not one)."""
    meta = job.get("trigger_meta") or {}
    if meta.get("source") != "schedule":
        return None
    return f"enqueued by schedule {meta.get('schedule')!r} for its tick at {meta.get('tick')}."


def spec_from_config(name: str, table: Any, source: str) -> ScheduleSpec:
    """Validate one ``[tool.cutover.schedules.<name>]`` table; raise ConfigError naming the key."""
    where = f"tool.cutover.schedules.{name}"
    if not isinstance(table, dict):
        raise ConfigError("must be a table", source=source, field=where)
    unknown = sorted(set(table) - CONFIG_KEYS)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(unknown)}; expected {', '.join(sorted(CONFIG_KEYS))}",
                          source=source, field=where)
    for key in ("automation", "cron"):
        if key not in table:
            raise ConfigError("is required", source=source, field=f"{where}.{key}")
    automation = table["automation"]
    if not isinstance(automation, str) or not automation:
        raise ConfigError("must be an automation name", source=source, field=f"{where}.automation")
    return _spec(name, automation, table["cron"], table.get("timezone", "UTC"), table.get("catch_up", "latest"),
                 table.get("catch_up_max", DEFAULT_CATCH_UP_MAX), table.get("paused", False),
                 table.get("payload", {}), source=source, where=where)


def _spec(name: str, automation: str, cron: Any, tz: Any, catch_up: Any, catch_up_max: Any, paused: Any,
          payload: Any, *, source: str, where: str) -> ScheduleSpec:
    cron = normalize_cron(cron, source=source, field_name=f"{where}.cron")
    zone(tz, source=source, field_name=f"{where}.timezone")
    if catch_up not in set(CatchUp):
        raise ConfigError(f"must be one of latest, all, none; got {catch_up!r}", source=source, field=f"{where}.catch_up")
    if not isinstance(catch_up_max, int) or isinstance(catch_up_max, bool) or catch_up_max < 1:
        raise ConfigError(f"must be an integer >= 1, got {catch_up_max!r}", source=source, field=f"{where}.catch_up_max")
    if not isinstance(paused, bool):
        raise ConfigError(f"must be true or false, got {paused!r}", source=source, field=f"{where}.paused")
    if not isinstance(payload, dict):
        raise ConfigError("must be a table (the tick job's payload)", source=source, field=f"{where}.payload")
    return ScheduleSpec(name, automation, cron, tz, CatchUp(catch_up), catch_up_max, paused, payload, source)


def declared(automations: Collection[Any], config: Mapping[str, Any] | None = None,
             source: str = "pyproject.toml") -> list[ScheduleSpec]:
    """Return every schedule declared by ``automations`` (registry entries) and ``config``
    (the ``[tool.cutover]`` table); raise ConfigError for a bad one or a name declared twice.

    A decorator's schedule is named after its automation. A configured schedule must name one
    of ``automations`` (unless that is empty: a reader that has no registry).
    """
    specs = [
        _spec(name, a.name, cron, a.timezone, a.catch_up, a.catch_up_max, False, {},
              source=f"@automation in {a.fn.__module__}", where=f"@automation({a.name!r})")
        for a in automations if getattr(a, "schedule", None)
        for name, cron in decorator_schedules(a.name, a.schedule)
    ]
    for spec in specs:
        _check_tick_payload(spec, automations, f"@automation({spec.name!r}).schedule")
    table = (config or {}).get("schedules", {})
    if not isinstance(table, dict):
        raise ConfigError("must be a table of schedules", source=source, field="tool.cutover.schedules")
    seen = {s.name: s.source for s in specs}
    known = {a.name for a in automations}
    for name, sub in table.items():
        if name in seen:
            raise ConfigError(f"schedule {name!r} is declared twice (also by {seen[name]})",
                              source=source, field=f"tool.cutover.schedules.{name}")
        spec = spec_from_config(name, sub, source)
        if known and spec.automation not in known:
            raise ConfigError(f"no automation {spec.automation!r} is registered (known: {', '.join(sorted(known))})",
                              source=source, field=f"tool.cutover.schedules.{name}.automation")
        _check_tick_payload(spec, automations, f"tool.cutover.schedules.{name}.payload")
        specs.append(spec)
        seen[name] = source
    return specs


def decorator_schedules(automation: str, schedule: Any) -> list[tuple[str, Any]]:
    """Name a decorator's schedule(s): one cron is named after its automation; a tuple of crons
    (an n8n trigger with several rules) gives ``name``, ``name#2``, … in order."""
    if isinstance(schedule, list | tuple):
        if not schedule:
            raise ConfigError("must be a cron expression or a non-empty tuple of them",
                              source="@automation", field=f"@automation({automation!r}).schedule")
        return [(automation if i == 1 else f"{automation}#{i}", cron) for i, cron in enumerate(schedule, start=1)]
    return [(automation, schedule)]


def _check_tick_payload(spec: ScheduleSpec, automations: Collection[Any], field: str) -> None:
    """Raise ConfigError, naming ``field``, when ``spec``'s automation cannot take its tick
    payload: a keyed automation's key or a required field is missing from it. Every tick would
    be refused at enqueue, so the declaration is refused instead."""
    from .errors import MissingFieldError

    auto = next((a for a in automations if getattr(a, "name", None) == spec.automation), None)
    if auto is None or not hasattr(auto, "check_required"):
        return
    try:
        auto.key_of(spec.payload)
        auto.check_required(spec.payload)
    except MissingFieldError as exc:
        hint = "" if spec.payload else (" (a schedule's tick payload is empty unless [tool.cutover.schedules] "
                                        "gives it one)")
        raise ConfigError(f"every tick would be refused: its {exc.detail}{hint}", source=spec.source,
                          field=field) from None

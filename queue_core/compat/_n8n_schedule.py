"""The item an n8n Schedule Trigger emits for a tick, built from a cutover schedule tick.

n8n's Schedule Trigger (``n8n-nodes-base/nodes/Schedule/ScheduleTrigger.node``) emits one item
per tick with the tick's time in the workflow's timezone: ``timestamp`` (ISO with the offset),
``Readable date`` (``MMMM Do YYYY, h:mm:ss a``), ``Readable time``, ``Day of week``, ``Year``,
``Month``, ``Day of month``, ``Hour``, ``Minute``, ``Second`` (zero-padded text) and
``Timezone`` (``Europe/Berlin (UTC+01:00)``). A replayed run's trigger body is that recorded item
and is used as it is; a live tick's job has an empty payload and its ``received_at`` is the tick.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

_SUFFIX = {1: "st", 2: "nd", 3: "rd"}


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else _SUFFIX.get(day % 10, 'th')}"


def tick_item(at: datetime, timezone: str) -> dict[str, Any]:
    """Return the json of the item n8n's Schedule Trigger emits for a tick at ``at`` in ``timezone``."""
    local = at.astimezone(ZoneInfo(timezone))
    offset = local.strftime("%z")
    offset = f"{offset[:3]}:{offset[3:]}"
    clock = f"{local.hour % 12 or 12}:{local:%M:%S} {'am' if local.hour < 12 else 'pm'}"
    return {
        "timestamp": f"{local:%Y-%m-%dT%H:%M:%S}.{local.microsecond // 1000:03d}{offset}",
        "Readable date": f"{local:%B} {_ordinal(local.day)} {local.year}, {clock}",
        "Readable time": clock,
        "Day of week": f"{local:%A}",
        "Year": f"{local.year:04d}",
        "Month": f"{local:%B}",
        "Day of month": f"{local.day:02d}",
        "Hour": f"{local.hour:02d}",
        "Minute": f"{local.minute:02d}",
        "Second": f"{local.second:02d}",
        "Timezone": f"{timezone} (UTC{offset})",
    }


def schedule_items(trigger: Any, timezone: str = "UTC") -> list[dict[str, Any]]:
    """Return a Schedule Trigger's items: the recorded item when replayed, else the live tick's."""
    body = getattr(trigger, "body", None)
    if body:
        return [{"json": body}] if not isinstance(body, list) else [{"json": b} for b in body]
    received = getattr(trigger, "received_at", None)
    at = datetime.fromisoformat(received) if isinstance(received, str) else None
    if at is None:
        return [{"json": {}}]
    return [{"json": tick_item(at, timezone)}]

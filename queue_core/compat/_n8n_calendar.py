"""Google Calendar v1–v1.3 *Create Event*, as n8n 1.123's node builds it (``GoogleCalendar.node``).

The start and end are read as moment-timezone reads an ISO 8601 text in the workflow's timezone
(a text with no offset is that zone's wall time) and sent as UTC (``2024-01-15T02:00:00Z``) with
the zone's name; an all-day event sends the local dates instead. The query (``maxAttendees``,
``sendNotifications``, ``sendUpdates``) is one object for the whole run, as n8n's is: a field an
item sets stays set for the items after it. ``recurrence`` is always sent (``[]`` when none); a
``repeatUntil`` with no offset is read as UTC (n8n reads it in its process's local time, UTC in
n8n's Docker image).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote, unquote
from zoneinfo import ZoneInfo

from ..errors import NodeFailed
from ._n8n_js import text, truthy

_FIELDS = {"color": "colorId", "description": "description", "guestsCanInviteOthers": "guestsCanInviteOthers",
           "guestsCanModify": "guestsCanModify", "guestsCanSeeOtherGuests": "guestsCanSeeOtherGuests", "id": "id",
           "location": "location", "summary": "summary", "showMeAs": "transparency", "visibility": "visibility"}


def calendar_id(value: Any) -> str:
    """n8n's ``encodeURIComponentOnce``: the calendar id decoded once, then encoded as a URL component."""
    return quote(unquote(text(value)), safe="!'()*-._~")


def _moment(value: Any, zone: str) -> datetime:
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(text(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise NodeFailed(f"the date {text(value)!r} is not ISO 8601: moment's other readings are not translated") from None
    return moment.replace(tzinfo=ZoneInfo(zone)) if moment.tzinfo is None else moment.astimezone(ZoneInfo(zone))


def _utc(value: Any, zone: str) -> str:
    return _moment(value, zone).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def calendar_event(query: dict[str, Any], start: Any, end: Any, fields: dict[str, Any], *, zone: str,
                   default_reminders: Any = True, reminders: Any = None) -> dict[str, Any]:
    """Return the event's JSON body for ``events.insert``; set the run's ``query`` fields this item gives."""
    for key in ("maxAttendees", "sendNotifications", "sendUpdates"):
        if truthy(fields.get(key)):
            query[key] = fields[key]
    body: dict[str, Any] = {"start": {"dateTime": _utc(start, zone), "timeZone": zone},
                            "end": {"dateTime": _utc(end, zone), "timeZone": zone}}
    if truthy(fields.get("attendees")):
        body["attendees"] = [{"email": email.strip()} for entry in fields["attendees"] for email in text(entry).split(",")]
    for key, api in _FIELDS.items():
        if truthy(fields.get(key)):
            body[api] = fields[key]
    if not truthy(default_reminders):
        body["reminders"] = {"useDefault": False}
        chosen = (reminders or {}).get("remindersValues") if isinstance(reminders, dict) else None
        if chosen:
            body["reminders"]["overrides"] = chosen
    if fields.get("allday") == "yes":
        body["start"] = {"date": _moment(start, zone).strftime("%Y-%m-%d")}
        body["end"] = {"date": _moment(end, zone).strftime("%Y-%m-%d")}
    body["recurrence"] = _recurrence(fields)
    return body


def _recurrence(fields: dict[str, Any]) -> list[str]:
    if truthy(fields.get("rrule")):
        return [f"RRULE:{text(fields['rrule'])}"]
    if truthy(fields.get("repeatHowManyTimes")) and truthy(fields.get("repeatUntil")):
        raise NodeFailed("You can set either 'Repeat How Many Times' or 'Repeat Until' but not both")
    parts: list[str] = []
    if truthy(fields.get("repeatFrecuency")):
        parts.append(f"FREQ={text(fields['repeatFrecuency']).upper()};")
    if truthy(fields.get("repeatHowManyTimes")):
        parts.append(f"COUNT={text(fields['repeatHowManyTimes'])};")
    if truthy(fields.get("repeatUntil")):
        until = _moment(fields["repeatUntil"], "UTC").astimezone(timezone.utc).strftime("%Y%m%dT%H%M%S")
        parts.append(f"UNTIL={until}Z")
    return [f"RRULE:{''.join(parts)}"] if parts else []

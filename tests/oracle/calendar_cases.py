"""Google Calendar v1.x event.create cases for ``app_oracle``, run in a workflow with a timezone (``ZONE``).

Not an ``app_cases_<app>.py`` module: the app oracle's documents set no workflow timezone, and
n8n reads an event's start and end in it, so ``test_calendar_conformance`` runs these cases with
each document's ``settings.timezone`` set (on both sides). The reply is the Calendar API's Event.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.oracle import app_oracle
from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

ZONE = "Asia/Taipei"
CALENDAR = "n8n-nodes-base.googleCalendar"
OAUTH = Credential("googleCalendarOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                               "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
_EVENT = Reply("POST", "/calendar/v3/calendars/*/events", {
    "kind": "calendar#event", "id": "ev1", "status": "confirmed", "summary": "Sync",
    "start": {"dateTime": "2024-01-15T10:00:00+08:00", "timeZone": ZONE},
    "end": {"dateTime": "2024-01-15T11:00:00+08:00", "timeZone": ZONE}})
_ITEMS = ({"start": "2024-01-15T10:00:00", "end": "2024-01-15T11:00:00Z", "title": "Sync", "allDay": False, "max": 9},
          {"start": "2024-01-16", "end": "2024-01-17T23:30:00Z", "title": "Day", "allDay": True, "max": 0})
_CALENDAR = {"__rl": True, "mode": "list", "value": "team@example.test", "cachedResultName": "team@example.test"}

CASES = [
    AppCase("googleCalendar v1.3 event.create estate-like", CALENDAR, 1.3,
            {"operation": "create", "calendar": _CALENDAR, "start": "={{ $json.start }}", "end": "={{ $json.end }}",
             "additionalFields": {"allday": "={{ $json.allDay ? 'yes' : 'no' }}", "description": "={{ $json.title }}",
                                  "location": "Room 1", "maxAttendees": "={{ $json.max }}", "sendUpdates": "none",
                                  "summary": "={{ $json.title }}"}},
            OAUTH, [_EVENT], items=_ITEMS),
    AppCase("googleCalendar v1.2 event.create attendees, reminders, rrule", CALENDAR, 1.2,
            {"operation": "create", "calendar": _CALENDAR, "start": "2024-03-01T09:30:00+01:00", "end": "2024-03-01T10:00:00",
             "useDefaultReminders": False,
             "remindersUi": {"remindersValues": [{"method": "popup", "minutes": 10}]},
             "additionalFields": {"attendees": ["a@example.test, b@example.test"], "color": "5", "showMeAs": "transparent",
                                  "rrule": "FREQ=WEEKLY;COUNT=3", "guestsCanModify": True}},
            OAUTH, [_EVENT], items=({"n": 1},)),
]


@contextmanager
def with_timezone(zone: str = ZONE) -> Iterator[None]:
    """Make every app-oracle document carry the workflow timezone ``zone`` while the block runs."""
    plain = app_oracle.document

    def zoned(case: AppCase, index: int) -> dict[str, Any]:
        doc = plain(case, index)
        doc["settings"] = {**doc.get("settings", {}), "timezone": zone}
        return doc
    app_oracle.document = zoned  # type: ignore[assignment]
    try:
        yield
    finally:
        app_oracle.document = plain  # type: ignore[assignment]

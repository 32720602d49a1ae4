"""Google Calendar v1.3 event.create as n8n builds it (respx): UTC start and end in the workflow's zone, all-day dates,
the run's shared query; a workflow with no timezone is a TODO."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import respx

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core.compat._n8n_calendar import calendar_event, calendar_id
from queue_core.context import Trigger
from tests.support.app_calls import RespxContext

NODE = {"name": "Cal", "type": "n8n-nodes-base.googleCalendar", "typeVersion": 1.3, "position": [200, 0], "parameters": {
    "operation": "create", "calendar": {"__rl": True, "mode": "list", "value": "team@example.test"},
    "start": "={{ $json.start }}", "end": "={{ $json.end }}",
    "additionalFields": {"summary": "={{ $json.title }}", "allday": "={{ $json.allDay ? 'yes' : 'no' }}",
                         "maxAttendees": "={{ $json.max }}", "sendUpdates": "none"}}}


def _scaffold(timezone: str | None) -> Any:
    document = {"name": "cal", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        NODE], "connections": {"Start": {"main": [[{"node": "Cal", "type": "main", "index": 0}]]}},
        "settings": {"timezone": timezone} if timezone else {}}
    return build(parse_workflow(document, "cal.json"), "cal", {})


def test_start_and_end_are_utc_in_the_workflow_s_zone_and_an_all_day_event_sends_local_dates() -> None:
    query: dict[str, Any] = {}
    body = calendar_event(query, "2024-01-15T10:00:00", "2024-01-15T23:30:00Z", {"summary": "Sync", "maxAttendees": 5},
                          zone="Asia/Taipei")
    assert body == {"start": {"dateTime": "2024-01-15T02:00:00Z", "timeZone": "Asia/Taipei"},
                    "end": {"dateTime": "2024-01-15T23:30:00Z", "timeZone": "Asia/Taipei"}, "summary": "Sync",
                    "recurrence": []}
    day = calendar_event(query, "2024-01-15", "2024-01-15T23:30:00Z", {"allday": "yes"}, zone="Asia/Taipei")
    assert (day["start"], day["end"]) == ({"date": "2024-01-15"}, {"date": "2024-01-16"})
    assert query == {"maxAttendees": 5} and calendar_id("a%40b.test") == "a%40b.test" and calendar_id("a@b") == "a%40b"


@respx.mock
def test_each_item_posts_its_event_and_the_query_a_first_item_set_stays_for_the_next() -> None:
    scaffold = _scaffold("Asia/Taipei")
    row = next(r for r in scaffold.rows if r.node == "Cal")
    assert row.status == "translated", row.why
    route = respx.post(url__startswith="https://www.googleapis.com/calendar/v3/calendars/team%40example.test/events")
    route.mock(return_value=httpx.Response(200, json={"id": "ev1", "status": "confirmed"}))
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('cal', version=1)", ""), "gen", "exec"), namespace)
    ctx = RespxContext({"google-calendar": "https://www.googleapis.com"})
    items = [{"start": "2024-01-15T10:00:00", "end": "2024-01-15T11:00:00", "title": "A", "allDay": False, "max": 9},
             {"start": "2024-01-16", "end": "2024-01-17", "title": "B", "allDay": True, "max": 0}]
    asyncio.run(namespace["cal"](ctx, Trigger("t", None, {}, items, "test")))
    urls = [url for _, _, url, _ in ctx.sent]
    assert all("maxAttendees=9" in url and "sendUpdates=none" in url for url in urls) and len(urls) == 2
    assert ctx.sent[1][3]["start"] == {"date": "2024-01-16"} and ctx.sent[0][3]["summary"] == "A"
    assert ctx.n8n_flows[-1].outputs["Cal"][0] == [{"json": {"id": "ev1", "status": "confirmed"}}] * 2


def test_a_workflow_with_no_timezone_is_a_todo_naming_the_instance_zone() -> None:
    row = next(r for r in _scaffold(None).rows if r.node == "Cal")
    assert row.status == "todo" and "GENERIC_TIMEZONE" in row.why

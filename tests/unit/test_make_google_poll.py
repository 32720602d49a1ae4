"""Make's polling Watch triggers on a live tick: the cursor read, what is new started as jobs, the cursor moved.

The context stands in for the poller API only (``poll_cursor`` / ``start_new`` / ``call``); the
durable dedupe itself is queue_core.poller's, tested with Postgres in its own tests.
"""

from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime
from typing import Any

import httpx

from queue_core.compat import make


class PollContext:
    automation = "watch-scenario"

    def __init__(self, cursor: Any, replies: list[Any]) -> None:
        self.cursor, self.replies = cursor, list(replies)
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.started: list[tuple[str, list[Any], Any, list[str]]] = []

    async def poll_cursor(self, *, poller: str | None = None, default: Any = None) -> Any:
        return default if self.cursor is None else self.cursor

    async def start_new(self, target: str, items: list[Any], *, id_of: Any, cursor: Any, **_: Any) -> list[str]:
        ids = [str(id_of(i)) for i in items]
        self.started.append((target, items, cursor, ids))
        return ids

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
        self.calls.append((method, url, kwargs))
        return httpx.Response(200, json=self.replies.pop(0), request=httpx.Request(method, url))

    def now(self) -> datetime:
        return datetime(2024, 6, 3, 9, 30, tzinfo=UTC)


_SHEET = {"values": [["start", "end", "name"], ["6/3", "6/4", "Kickoff"], ["6/5", "6/6", "Review"], ["6/7", "", "Retro"]]}


def _rows(ctx: PollContext, **kw: Any) -> list[Any]:
    return asyncio.run(make.poll.watch_rows(ctx, "sheets", step="watch", spreadsheet="/x/1SxO", sheet="Sheet1",
                                            first_row="A1:Z1", **kw))


def test_watch_rows_first_poll_starts_from_now() -> None:
    ctx = PollContext(None, [_SHEET])
    assert _rows(ctx) == []
    assert ctx.started == [("watch-scenario", [], {"row": 4}, [])]
    assert ctx.calls[0][1] == "https://sheets.googleapis.com/v4/spreadsheets/1SxO/values/'Sheet1'!A1:Z"


def test_watch_rows_starts_each_new_row_up_to_the_limit() -> None:
    ctx = PollContext({"row": 2}, [_SHEET])
    assert _rows(ctx, limit=1) == []
    target, items, cursor, ids = ctx.started[0]
    assert target == "watch-scenario" and ids == ["3"] and cursor == {"row": 3}
    assert items == [{"__ROW_NUMBER__": 3, "__SPREADSHEET_ID__": "1SxO", "__SHEET__": "Sheet1",
                      "0": "6/5", "1": "6/6", "2": "Review"}]


def test_watch_rows_nothing_new_keeps_the_cursor() -> None:
    ctx = PollContext({"row": 4}, [_SHEET])
    _rows(ctx)
    assert ctx.started == [("watch-scenario", [], {"row": 4}, [])]


def _b64(value: str) -> str:
    return base64.urlsafe_b64encode(value.encode()).decode().rstrip("=")


_MESSAGE = {"id": "m2", "threadId": "t2", "internalDate": "1717407000000", "snippet": "Invoice attached",
            "labelIds": ["INBOX", "UNREAD", "CATEGORY_UPDATES", "Label_7"], "sizeEstimate": 2048, "historyId": "99",
            "payload": {"mimeType": "multipart/mixed", "headers": [
                {"name": "From", "value": "Ada Lovelace <ada@example.com>"}, {"name": "To", "value": "me@example.com"},
                {"name": "Subject", "value": "Invoice 7"}],
                "parts": [{"mimeType": "text/plain", "body": {"data": _b64("Please pay")}},
                          {"mimeType": "text/html", "body": {"data": _b64("<p>Please pay</p>")}},
                          {"mimeType": "application/pdf", "filename": "inv.pdf", "body": {"attachmentId": "a1", "size": 3}}]}}


def test_watch_emails_starts_new_messages_as_make_bundles_and_marks_them_read() -> None:
    labels = {"labels": [{"id": "INBOX", "name": "INBOX"}, {"id": "Label_7", "name": "Invoices"},
                         {"id": "CATEGORY_UPDATES", "name": "CATEGORY_UPDATES"}, {"id": "UNREAD", "name": "UNREAD"}]}
    ctx = PollContext({"after": 1717400000}, [{"messages": [{"id": "m2"}]}, labels, _MESSAGE, {}])
    out = asyncio.run(make.googlemail.watch_emails(ctx, "gmail", step="watch", filter_type="gmailSearch",
                                                   search={"q": "subject:invoice\nhas:attachment"}, limit=1, mark_seen=True))
    assert out == []
    assert ctx.calls[0][2]["params"]["q"] == "subject:invoice has:attachment after:1717400000"
    _, items, cursor, ids = ctx.started[0]
    assert ids == ["m2"] and cursor == {"after": 1717407000}
    bundle = items[0]
    assert (bundle["fromName"], bundle["fromEmail"], bundle["subject"]) == ("Ada Lovelace", "ada@example.com", "Invoice 7")
    assert (bundle["fullTextBody"], bundle["htmlBody"], bundle["hasAttachment"]) == ("Please pay", "<p>Please pay</p>", True)
    assert bundle["internalDate"] == "2024-06-03T09:30:00Z" and bundle["to"] == ["me@example.com"]
    assert bundle["userLabelFolders"] == [{"id": "Label_7", "name": "Invoices"}]
    assert bundle["categoryFolders"] == [{"id": "CATEGORY_UPDATES", "name": "CATEGORY_UPDATES"}]
    assert ctx.calls[-1][:2] == ("POST", "https://gmail.googleapis.com/gmail/v1/users/me/messages/m2/modify")
    assert ctx.calls[-1][2]["json"] == {"removeLabelIds": ["UNREAD"]}


def test_watch_emails_first_poll_starts_from_now() -> None:
    ctx = PollContext(None, [])
    asyncio.run(make.googlemail.watch_emails(ctx, "gmail", step="watch", filter_type="simpleSearch",
                                             search={"folder": "INBOX", "criteria": "is:unread"}))
    assert ctx.calls == [] and ctx.started == [("watch-scenario", [], {"after": 1717407000}, [])]


def test_watch_files_created_in_the_folder_since_the_cursor() -> None:
    files = {"files": [{"id": "f1", "name": "a.jpg", "createdTime": "2024-06-03T09:00:00Z"},
                       {"id": "f2", "name": "b.jpg", "createdTime": "2024-06-03T09:10:00Z"}]}
    ctx = PollContext({"since": "2024-06-03T08:00:00Z"}, [files])
    asyncio.run(make.googledrive.watch_files(ctx, "googleapis", step="watch", folder="/1xDM", watch="create",
                                             mime="all", limit=1))
    params = ctx.calls[0][2]["params"]
    assert params["q"] == "'1xDM' in parents and trashed = false and createdTime > '2024-06-03T08:00:00Z'"
    assert ctx.started[0][1:] == ([files["files"][0]], {"since": "2024-06-03T09:00:00Z"}, ["f1"])


def test_tally_delivery_becomes_makes_bundle() -> None:
    class TallyDelivery:
        body = {"eventId": "e1", "eventType": "FORM_RESPONSE", "createdAt": "2024-06-03T09:30:00Z",
                "data": {"responseId": "r1", "submissionId": "s1", "respondentId": "p1", "formId": "f1",
                         "formName": "Leads", "createdAt": "2024-06-03T09:30:00Z",
                         "fields": [{"key": "question_6x2QXJ", "label": "What is your full name?", "type": "INPUT_TEXT",
                                     "value": "Ada"}]}}
    bundle = make.poll.tally_bundle(TallyDelivery())
    assert bundle["fields"] == {"What is your full name?": "Ada"} and bundle["fieldsById"] == {"question_6x2QXJ": "Ada"}
    assert (bundle["eventId"], bundle["responseId"], bundle["formName"]) == ("e1", "r1", "Leads")


def _scenario() -> Any:
    from harness.platforms.make.definition import load_blueprint
    from harness.platforms.make.translate import build
    from pathlib import Path

    document = {"name": "watch", "metadata": {"instant": False, "version": 1}, "flow": [
        {"id": 1, "module": "google-sheets:watchRows", "version": 2, "mapper": {}, "metadata": {"designer": {"x": 0, "y": 0}},
         "parameters": {"from": "drive", "mode": "select", "limit": 10, "sheetId": "Sheet1", "__IMTCONN__": 1,
                        "spreadsheetId": "1SxO", "tableFirstRow": "A1:Z1", "includesHeaders": True}},
        {"id": 2, "module": "util:SetVariable2", "version": 1, "parameters": {}, "metadata": {"designer": {"x": 300, "y": 0}},
         "mapper": {"name": "event", "scope": "roundtrip", "value": "{{1.`2`}}"}}]}
    return build(load_blueprint(Path("watch.json"), document), "watch-scenario", {})


def _run(scaffold: Any, ctx: Any, trigger: Any) -> None:
    from queue_core import registry as registry_module
    from queue_core.registry import Registry

    saved, registry_module.default_registry = registry_module.default_registry, Registry()
    try:
        exec(compile(scaffold.source, "watch.py", "exec"), {})
        function = registry_module.default_registry.get("watch-scenario").fn
    finally:
        registry_module.default_registry = saved
    asyncio.run(function(ctx, trigger))


def test_scaffolded_watch_rows_polls_on_a_tick_and_runs_each_started_row() -> None:
    from queue_core.context import Trigger

    scaffold = _scenario()
    assert scaffold.trigger_kind == "schedule" and scaffold.rows[0].status == "trigger"
    tick = PollContext({"row": 3}, [_SHEET])
    tick.variables = {}  # type: ignore[attr-defined]
    _run(scaffold, tick, Trigger("watch-scenario", None, {}, None, "schedule"))
    (_, items, cursor, ids), = tick.started
    assert ids == ["4"] and cursor == {"row": 4}
    from tests.conformance.make.runner import _recording_emits

    job = PollContext(None, [])
    job.emitted = {}  # type: ignore[attr-defined]
    with _recording_emits():
        _run(scaffold, job, Trigger("watch-scenario", None, {}, items[0], "poll"))
    assert job.calls == [] and job.started == []  # a started job runs the flow on its row, no poll
    assert job.emitted[2] == [{"event": "Retro"}]  # type: ignore[attr-defined]


def test_watch_rows_stops_at_a_blank_row() -> None:
    sheet = {"values": [["name"], ["a"], [], ["c"]]}
    ctx = PollContext({"row": 1}, [sheet])
    _rows(ctx)
    assert ctx.started[0][3] == ["2"] and ctx.started[0][2] == {"row": 2}


def test_watch_emails_simple_search_builds_the_gmail_query() -> None:
    ctx = PollContext({"after": 1717400000}, [{"messages": []}])
    asyncio.run(make.googlemail.watch_emails(ctx, "gmail", step="watch", filter_type="simpleSearch", search={
        "folder": "INBOX", "criteria": "is:unread", "from": "billing@example.com", "subject": "invoice",
        "hasAttachment": True, "size": {"unit": "M", "amount": 2, "criteria": "larger"}}))
    params = ctx.calls[0][2]["params"]
    assert params["q"] == "is:unread from:billing@example.com subject:(invoice) has:attachment larger:2M after:1717400000"
    assert params["labelIds"] == ["INBOX"]
    assert ctx.started == [("watch-scenario", [], {"after": 1717400000}, [])]


def test_watch_files_first_poll_starts_from_now() -> None:
    ctx = PollContext(None, [])
    asyncio.run(make.googledrive.watch_files(ctx, "googleapis", step="watch", folder="/1xDM"))
    assert ctx.calls == [] and ctx.started == [("watch-scenario", [], {"since": "2024-06-03T09:30:00Z"}, [])]


def test_watch_rows_first_poll_stops_at_a_blank_row_too() -> None:
    ctx = PollContext(None, [{"values": [["name"], ["a"], [], ["c"]]}])
    _rows(ctx)
    assert ctx.started == [("watch-scenario", [], {"row": 2}, [])]

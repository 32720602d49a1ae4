"""A Zap whose trigger is Google Sheets' New Spreadsheet Row: the scaffold writes its live poller beside it."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from harness.platforms.zapier.definition import read_zaps
from harness.platforms.zapier.translate import ZapFile, build
from queue_core import Trigger
from tests.conformance.zapier.runner import FakeContext

SHEET = [["Name", "Email"], ["Ada", "ada@example.test"], ["Grace", "grace@example.test"]]


def zapfile(**params: Any) -> dict[str, Any]:
    trigger = {"id": 1, "type_of": "read", "selected_api": "GoogleSheetsV2CLIAPI@2.8.0", "action": "new_spreadsheet_row",
               "params": {"spreadsheet": "SHEET-ID", "worksheet": "0", **params}, "parent_id": None, "root_id": None,
               "title": None, "meta": {"parammap": {"spreadsheet": "Leads", "worksheet": "Sheet1"}}}
    hook = {"id": 2, "type_of": "write", "selected_api": "WebHookCLIAPI@1.0.36", "action": "post", "parent_id": 1,
            "root_id": 1, "title": None, "params": {"url": "https://api.example.test/leads", "payload_type": "json",
                                                    "data": {"email": "{{1__COL$B}}", "row": "{{1__id}}"}}}
    return {"metadata": {"version": "gdpr_v1"}, "zaps": [{"id": 9, "title": "Leads", "nodes": {"1": trigger, "2": hook}}]}


def functions(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(re.sub(r"^@automation\(.*\)$", "", source, flags=re.M), "<leads>", "exec"), namespace)  # noqa: S102
    return namespace


class PollContext(FakeContext):
    def __init__(self, replies: tuple[Any, ...], cursor: Any = None) -> None:
        super().__init__(replies)
        self.cursor = cursor
        self.started: list[tuple[str, list[Any], Any]] = []

    async def poll_cursor(self, *, default: Any = None) -> Any:
        return self.cursor if self.cursor is not None else default

    async def start_new(self, target: str, items: list[Any], *, id_of: Any, cursor: Any, keep_last: int) -> list[str]:
        self.started.append((target, [id_of(i) for i in items], cursor))
        return [str(id_of(i)) for i in items]


def test_the_poll_automation_is_written_beside_the_per_row_automation() -> None:
    (zap,) = read_zaps(zapfile())
    made = build(ZapFile(zap, ""), "leads", {}, {})
    assert made.trigger_kind == "poll"
    assert "@automation('leads', version=1)" in made.source
    assert "@automation('leads-poll', version=1, schedule='*/15 * * * *')" in made.source
    row = made.rows[0]
    assert row.status == "trigger" and "leads-poll polls 'Sheet1' every 15 minutes" in row.why
    found = functions(made.source)
    first = PollContext(({"values": SHEET},))
    asyncio.run(found["leads_poll"](first, Trigger("t", None, {}, {}, "schedule")))
    assert first.started == [("leads", [], {"after": 3})], "the first poll sees the rows there and starts none"
    assert first.sent[0]["url"] == "/v4/spreadsheets/SHEET-ID/values/%27Sheet1%27"
    later = PollContext(({"values": [*SHEET, ["", ""], ["Linus", "linus@example.test"]]},), cursor={"after": 3})
    asyncio.run(found["leads_poll"](later, Trigger("t", None, {}, {}, "schedule")))
    assert later.started == [("leads", [5], {"after": 3})], "a new row starts a run; a blank one does not"


def test_the_per_row_automation_maps_the_rows_columns() -> None:
    (zap,) = read_zaps(zapfile())
    made = build(ZapFile(zap, ""), "leads", {}, {})
    ctx = FakeContext(({"ok": True},))
    row = {"id": 5, "row": 5, "COL$A": "Linus", "COL$B": "linus@example.test"}
    asyncio.run(functions(made.source)["leads"](ctx, Trigger("t", None, {}, row, "poll")))
    assert ctx.sent[0]["json"] == {"email": "linus@example.test", "row": 5}  # one reference keeps its type


def test_a_new_row_trigger_without_the_worksheets_title_is_a_todo() -> None:
    document = zapfile()
    del document["zaps"][0]["nodes"]["1"]["meta"]
    (zap,) = read_zaps(json.loads(json.dumps(document)))
    made = build(ZapFile(zap, ""), "leads", {}, {})
    assert made.rows[0].status == "todo" and "meta.parammap" in made.rows[0].why
    assert "leads-poll" not in made.source

"""Pinned cases of Google Sheets row steps: Lookup, Update and Create Spreadsheet Row.

The calls are the Sheets API v4's (https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values:
``values.get`` of the worksheet by title, ``values.batchUpdate`` of the mapped cells, ``values.append``
of one row; ``USER_ENTERED`` writes a value as typed). The step's shape and its output as Zapier maps it
on are a real Zap export's (github.com/toddmoy/node-based-zap-examples, set-1/design-team-watercooler.json:
a ``lookup_row`` with ``lookup_key: "COL$B"`` whose ``{{5__COL$A}}`` is mapped into a Slack message and
whose ``{{5__id}}`` is Update Spreadsheet Row's ``row``, the worksheet's title in ``meta.parammap``). A
search that finds nothing halts the Zap run (Zapier's "Review Zap run statuses"), which ``cutover import
zapier`` records as filtered: the run ends ``filtered``.
"""

from __future__ import annotations

from tests.conformance.zapier.runner import Case

VALUES = "https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values"
EXPORT = "https://github.com/toddmoy/node-based-zap-examples"
# "If a contact does not exist in Hubspot, the Zap will have a Stopped / Halted status since no contact was found"
HALTED = "https://help.zapier.com/hc/en-us/articles/20505304170637-Review-Zap-run-statuses"
_META = {"parammap": {"spreadsheet": "Watercooler", "worksheet": "Sheet1", "lookup_key": "Used?"}}
_SHEET = [["Question", "Used?"], ["What are you reading?", "Y"], ["Best snack?", "N"], ["Weekend plans?", "N"]]


def _sheets(action: str, type_of: str = "write", **params: object) -> dict[str, object]:
    return {"type_of": type_of, "selected_api": "GoogleSheetsV2API", "action": action, "meta": _META,
            "params": {"spreadsheet": "SHEET-ID", "worksheet": 0, **params}}


def _get_then(url: str) -> tuple[dict[str, object], ...]:
    return ({"id": 3, "parent_id": 2, "type_of": "write", "selected_api": "WebHookCLIAPI@1.0.36", "action": "get",
             "params": {"url": url}},)


CASES: tuple[Case, ...] = (
    Case("Lookup Spreadsheet Row: the first row whose column matches, as COL$… and id", EXPORT,
         _sheets("lookup_row", "search", lookup_key="COL$B", lookup_value="{{1__flag}}"),
         trigger={"flag": "N"}, replies=({"range": "Sheet1!A1:B4", "values": _SHEET}, {"ok": True}),
         requests=({"method": "GET", "url": "/v4/spreadsheets/SHEET-ID/values/%27Sheet1%27",
                    "params": {"valueRenderOption": "FORMATTED_VALUE"}},
                   {"method": "GET", "url": "https://api.example.test/q/Best snack?/3"}),
         output={"id": 3, "row": 3, "COL$A": "Best snack?", "COL$B": "N"},
         more=_get_then("https://api.example.test/q/{{2__COL$A}}/{{2__id}}")),
    Case("Lookup Spreadsheet Row that finds nothing halts the run", HALTED,
         _sheets("lookup_row", "search", lookup_key="COL$B", lookup_value="maybe"),
         replies=({"values": _SHEET},), requests=({"method": "GET", "url": "/v4/spreadsheets/SHEET-ID/values/%27Sheet1%27",
                                                    "params": {"valueRenderOption": "FORMATTED_VALUE"}},),
         passes=False),
    Case("Update Spreadsheet Row writes the mapped cells of the row", VALUES,
         _sheets("update_row", row="{{1__row}}", **{"COL$B": "Yes"}),
         trigger={"row": 3}, replies=({"totalUpdatedCells": 1},),
         requests=({"method": "POST", "url": "/v4/spreadsheets/SHEET-ID/values:batchUpdate",
                    "json": {"valueInputOption": "USER_ENTERED",
                             "data": [{"range": "'Sheet1'!B3", "values": [["Yes"]]}]}},),
         output={"totalUpdatedCells": 1}),
    Case("Create Spreadsheet Row appends one row, unmapped columns blank", VALUES,
         _sheets("add_row", **{"COL$A": "{{1__q}}", "COL$C": "new"}),
         trigger={"q": "Favourite tool?"}, replies=({"updates": {"updatedRows": 1}},),
         requests=({"method": "POST", "url": "/v4/spreadsheets/SHEET-ID/values/%27Sheet1%27:append",
                    "params": {"valueInputOption": "USER_ENTERED", "insertDataOption": "INSERT_ROWS"},
                    "json": {"values": [["Favourite tool?", "", "new"]]}},),
         output={"updates": {"updatedRows": 1}}),
)

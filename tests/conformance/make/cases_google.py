"""Pinned cases of Make's Google Sheets modules: Add a row, Update a row, Search rows, Get range values.

Each module sends the Sheets API v4 ``values`` request its mapper describes; the bundles are the ones
Make outputs (a search's rows under ``"0"``, ``"1"``… with ``__ROW_NUMBER__`` and Make's bundle order
fields, as the modules' output interface in exported blueprints lists them). A shadow replay's answer
(the recorded output, marked by the gateway's header) is the module's output as it is.
"""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_SHEETS = "https://www.make.com/en/help/app/google-sheets"
_APPEND = f"{_SHEETS} (Add a row: spreadsheets.values.append, https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/append)"
_UPDATE = f"{_SHEETS} (Update a row: spreadsheets.values.update, unmapped cells null = left as they are)"
_SEARCH = f"{_SHEETS} (Search rows: one bundle per matching row, __ROW_NUMBER__ and columns 0, 1…)"
_RANGE = f"{_SHEETS} (Get range values: one bundle per row of the range)"
_V4 = "https://sheets.googleapis.com/v4/spreadsheets/"
RECORDED = {"X-Cutover-Recorded": "1"}


def _module(kind: str, mapper: dict, label: str | None = None) -> dict:
    designer: dict = {"x": 300, "y": 0}
    if label:
        designer["name"] = label
    return {"module": f"google-sheets:{kind}", "version": 2, "parameters": {"__IMTCONN__": 1}, "mapper": mapper,
            "metadata": {"designer": designer}}


_ADD = {"mode": "select", "insertUnformatted": False, "valueInputOption": "USER_ENTERED", "insertDataOption": "INSERT_ROWS",
        "from": "drive", "spreadsheetId": "/My Drive/Orders/1AbC", "sheetId": "Order log", "includesHeaders": True,
        "useColumnHeaders": False, "values": {"0": "{{1.id}}", "1": "{{1.name}}", "3": "{{1.total}}"}}
_APPENDED = {"spreadsheetId": "1AbC", "tableRange": "'Order log'!A1:D4",
             "updates": {"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A5:D5", "updatedRows": 1,
                         "updatedColumns": 4, "updatedCells": 4}}
_ROWS = {"range": "Sheet1!A1:C4", "majorDimension": "ROWS",
         "values": [["Url", "Title", "Seen"], ["https://a", "First", "no"], ["https://b", "Second", "yes"],
                    ["https://a", "Again", "yes"]]}


def _row(n: int, index: int, length: int, *cells: str, sheet: str = "Sheet1") -> dict:
    return {"__IMTLENGTH__": length, "__IMTINDEX__": index, "__ROW_NUMBER__": n, "__SPREADSHEET_ID__": "1SxO",
            "__SHEET__": sheet, **{str(i): c for i, c in enumerate(cells)}}


CASES = [
    MakeCase(
        id="sheets-add-row-by-index",
        module=_module("addRow", _ADD),
        input={"id": 7, "name": "Ada", "total": 9.5},
        replies=(Reply(200, json=_APPENDED),),
        calls=(Call("POST", _V4 + "1AbC/values/'Order%20log'!A1:append",
                    params={"valueInputOption": "USER_ENTERED", "insertDataOption": "INSERT_ROWS"},
                    json={"values": [[7, "Ada", "", 9.5]]}),),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A5:D5", "updatedRows": 1, "updatedColumns": 4,
                 "updatedCells": 4}],
        source=_APPEND),
    MakeCase(
        id="sheets-add-row-by-header",
        module=_module("addRow", {**_ADD, "spreadsheetId": "1AbC", "useColumnHeaders": True,
                                  "values": {"Email": "{{1.email}}", "Client Name ": "{{1.name}}"}}),
        input={"email": "ada@example.com", "name": "Ada"},
        replies=(Reply(200, json={"range": "'Order log'!A1:C1", "values": [["Client Name ", "Phone", "Email"]]}),
                 Reply(200, json=_APPENDED)),
        calls=(Call("GET", _V4 + "1AbC/values/'Order%20log'!1:1"),
               Call("POST", _V4 + "1AbC/values/'Order%20log'!A1:append", json={"values": [["Ada", "", "ada@example.com"]]})),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A5:D5", "updatedRows": 1, "updatedColumns": 4,
                 "updatedCells": 4}],
        source=_APPEND),
    MakeCase(
        id="sheets-add-row-shadow-recorded",
        module=_module("addRow", _ADD),
        input={"id": 7, "name": "Ada", "total": 9.5},
        replies=(Reply(200, json={"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A9:D9"}, headers=RECORDED),),
        calls=(Call("POST", _V4 + "1AbC/values/'Order%20log'!A1:append"),),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A9:D9"}],
        source=_APPEND),
    MakeCase(
        id="sheets-update-row",
        module=_module("updateRow", {"mode": "select", "valueInputOption": "USER_ENTERED", "from": "drive",
                                     "spreadsheetId": "1AbC", "sheetId": "Hoja 1", "rowNumber": "{{1.row}}",
                                     "includesHeaders": True, "values": {"2": "Publicado", "4": "{{1.when}}"}}),
        input={"row": "12", "when": "2024-06-03"},
        replies=(Reply(200, json={"spreadsheetId": "1AbC", "updatedRange": "'Hoja 1'!A12:E12", "updatedRows": 1,
                                  "updatedColumns": 2, "updatedCells": 2}),),
        calls=(Call("PUT", _V4 + "1AbC/values/'Hoja%201'!A12:E12", params={"valueInputOption": "USER_ENTERED"},
                    json={"values": [[None, None, "Publicado", None, "2024-06-03"]]}),),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Hoja 1'!A12:E12", "updatedRows": 1, "updatedColumns": 2,
                 "updatedCells": 2}],
        source=_UPDATE),
    MakeCase(
        id="sheets-update-row-not-a-row-number",
        module=_module("updateRow", {"spreadsheetId": "1AbC", "sheetId": "Hoja 1", "rowNumber": "{{1.row}}",
                                     "values": {"2": "x"}}),
        input={"row": "twelve"},
        error="is not a row number",
        source=_UPDATE),
    MakeCase(
        id="sheets-filter-rows-equal",
        module=_module("filterRows", {"from": "drive", "valueRenderOption": "FORMATTED_VALUE",
                                      "dateTimeRenderOption": "FORMATTED_STRING", "spreadsheetId": "1SxO",
                                      "sheetId": "Sheet1", "includesHeaders": True, "tableFirstRow": "A1:CZ1",
                                      "filter": [[{"a": "A", "o": "text:equal", "b": "{{1.url}}"}]], "sortOrder": "asc"}),
        input={"url": "https://a"},
        replies=(Reply(200, json=_ROWS),),
        calls=(Call("GET", _V4 + "1SxO/values/'Sheet1'!A1:CZ",
                    params={"valueRenderOption": "FORMATTED_VALUE", "dateTimeRenderOption": "FORMATTED_STRING"}),),
        output=[_row(2, 1, 2, "https://a", "First", "no"), _row(4, 2, 2, "https://a", "Again", "yes")],
        source=_SEARCH),
    MakeCase(
        id="sheets-filter-rows-or-desc-limit",
        module=_module("filterRows", {"spreadsheetId": "1SxO", "sheetId": "Sheet1", "includesHeaders": True,
                                      "tableFirstRow": "A1:CZ1", "sortOrder": "desc", "limit": 1,
                                      "filter": [[{"a": "C", "o": "text:equal:ci", "b": "YES"}],
                                                 [{"a": "B", "o": "text:contain", "b": "Fir"}]]}),
        replies=(Reply(200, json=_ROWS),),
        calls=(Call("GET", _V4 + "1SxO/values/'Sheet1'!A1:CZ"),),
        output=[_row(4, 1, 1, "https://a", "Again", "yes")],
        source=_SEARCH),
    MakeCase(
        id="sheets-filter-rows-none",
        module=_module("filterRows", {"spreadsheetId": "1SxO", "sheetId": "Sheet1", "includesHeaders": True,
                                      "tableFirstRow": "A1:CZ1", "filter": [[{"a": "A", "o": "text:equal", "b": "zzz"}]]}),
        replies=(Reply(200, json=_ROWS),),
        calls=(Call("GET", _V4 + "1SxO/values/'Sheet1'!A1:CZ"),),
        output=[],
        source=_SEARCH),
    MakeCase(
        id="sheets-filter-rows-shadow-recorded",
        module=_module("filterRows", {"spreadsheetId": "1SxO", "sheetId": "Sheet1", "tableFirstRow": "A1:CZ1"}),
        replies=(Reply(200, json=[_row(3, 1, 2, "x"), _row(5, 2, 2, "y")], headers=RECORDED),),
        calls=(Call("GET", _V4 + "1SxO/values/'Sheet1'!A1:CZ"),),
        output=[_row(3, 1, 2, "x"), _row(5, 2, 2, "y")],
        source=_SEARCH),
    MakeCase(
        id="sheets-get-range-values",
        module=_module("getSheetContent", {"range": "A1:A35", "select": "map", "sheetId": "Status Update",
                                           "spreadsheetId": "{{1.sheet}}", "includesHeaders": False,
                                           "valueRenderOption": "FORMATTED_VALUE",
                                           "dateTimeRenderOption": "FORMATTED_STRING"}),
        input={"sheet": "1SxO"},
        replies=(Reply(200, json={"range": "'Status Update'!A1:A35", "values": [["done"], ["late"]]}),),
        calls=(Call("GET", _V4 + "1SxO/values/'Status%20Update'!A1:A35"),),
        output=[_row(1, 1, 2, "done", sheet="Status Update"), _row(2, 2, 2, "late", sheet="Status Update")],
        source=_RANGE),
    MakeCase(
        id="sheets-clear-row",
        module=_module("clearRow", {"mode": "select", "spreadsheetId": "1AbC", "sheetId": "Order log", "rowNumber": "{{1.row}}"}),
        input={"row": 5},
        replies=(Reply(200, json={"spreadsheetId": "1AbC", "clearedRange": "'Order log'!A5:Z5"}),),
        calls=(Call("POST", _V4 + "1AbC/values/'Order%20log'!5:5:clear", json={}),),
        output=[{"spreadsheetId": "1AbC", "clearedRange": "'Order log'!A5:Z5"}],
        source=f"{_SHEETS} (Clear a row: spreadsheets.values.clear of the row)"),
    MakeCase(
        id="sheets-delete-row",
        module=_module("deleteRow", {"mode": "select", "spreadsheetId": "1AbC", "sheetId": "Order log", "rowNumber": "7"}),
        replies=(Reply(200, json={"sheets": [{"properties": {"sheetId": 0, "title": "Summary"}},
                                             {"properties": {"sheetId": 4242, "title": "Order log"}}]}),
                 Reply(200, json={"spreadsheetId": "1AbC", "replies": [{}]})),
        calls=(Call("GET", _V4 + "1AbC", params={"fields": "sheets.properties"}),
               Call("POST", _V4 + "1AbC:batchUpdate", json={"requests": [{"deleteDimension": {"range": {
                   "sheetId": 4242, "dimension": "ROWS", "startIndex": 6, "endIndex": 7}}}]})),
        output=[{"spreadsheetId": "1AbC", "replies": [{}]}],
        source=f"{_SHEETS} (Delete a row: spreadsheets.batchUpdate deleteDimension)"),
    MakeCase(
        id="sheets-update-cell",
        module=_module("updateCell", {"spreadsheetId": "1AbC", "sheetId": "Order log", "cell": "c4", "value": "{{1.v}}",
                                      "valueInputOption": "RAW"}),
        input={"v": "paid"},
        replies=(Reply(200, json={"spreadsheetId": "1AbC", "updatedRange": "'Order log'!C4", "updatedCells": 1}),),
        calls=(Call("PUT", _V4 + "1AbC/values/'Order%20log'!C4", params={"valueInputOption": "RAW"},
                    json={"values": [["paid"]]}),),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Order log'!C4", "updatedCells": 1}],
        source=f"{_SHEETS} (Update a cell: spreadsheets.values.update of the cell)"),
    MakeCase(
        id="sheets-update-cell-not-a-cell",
        module=_module("updateCell", {"spreadsheetId": "1AbC", "sheetId": "S", "cell": "{{1.c}}", "value": "x"}),
        input={"c": "row 4"},
        error="is not a cell",
        source=f"{_SHEETS} (Update a cell: the cell in A1 notation)"),
    MakeCase(
        id="sheets-update-row-by-header",
        module=_module("updateRow", {"mode": "select", "spreadsheetId": "1AbC", "sheetId": "Order log", "rowNumber": "3",
                                     "includesHeaders": True, "useColumnHeaders": True, "values": {"Status": "sent"}}),
        replies=(Reply(200, json={"values": [["Id", "Name", "Status"]]}),
                 Reply(200, json={"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A3:C3", "updatedCells": 1})),
        calls=(Call("GET", _V4 + "1AbC/values/'Order%20log'!1:1"),
               Call("PUT", _V4 + "1AbC/values/'Order%20log'!A3:C3", json={"values": [[None, None, "sent"]]})),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Order log'!A3:C3", "updatedCells": 1}],
        source=_UPDATE),
    MakeCase(
        id="sheets-update-row-column-range-from-b",
        module=_module("updateRow", {"spreadsheetId": "1AbC", "sheetId": "Hoja 1", "rowNumber": "2",
                                     "tableFirstRow": "B1:Z1", "values": {"1": "done"}}),
        replies=(Reply(200, json={"spreadsheetId": "1AbC", "updatedRange": "'Hoja 1'!C2", "updatedCells": 1}),),
        calls=(Call("PUT", _V4 + "1AbC/values/'Hoja%201'!B2:C2", json={"values": [[None, "done"]]}),),
        output=[{"spreadsheetId": "1AbC", "updatedRange": "'Hoja 1'!C2", "updatedCells": 1}],
        source=_UPDATE),
]

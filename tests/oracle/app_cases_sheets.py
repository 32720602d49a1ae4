"""Google Sheets v4 cases for ``app_oracle``: reads with row filters, range options n8n ignores, Append or Update Row.

The replies are the Sheets API's shapes (``spreadsheets.get`` with ``fields=sheets.properties``,
``spreadsheets.values.get``, ``values.batchUpdate``, ``spreadsheets.batchUpdate``, ``values.update``),
as n8n's node reads them (``n8n-nodes-base/dist/nodes/Google/Sheet/v2``).
"""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

SHEETS = "n8n-nodes-base.googleSheets"
OAUTH = Credential("googleSheetsOAuth2Api", {
    "clientId": "oracle-client", "clientSecret": "oracle-secret", "grantType": "authorizationCode",
    "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
DOCUMENT = {"__rl": True, "value": "d1", "mode": "id"}
SHEET = {"__rl": True, "value": "gid=0", "mode": "list", "cachedResultName": "Sheet1"}
_PROPERTIES = Reply("GET", "/v4/spreadsheets/d1", {"sheets": [
    {"properties": {"sheetId": 7, "title": "Other", "index": 0}},
    {"properties": {"sheetId": 0, "title": "Sheet1", "index": 1}}]})
_ROWS = [["Branch ID", "Name", "", "Rate"], ["7", "North"], [], [12, "East", "", 0.5], ["7", "Again", "x"]]
_VALUES = Reply("GET", "/v4/spreadsheets/d1/values/*", {"range": "Sheet1!A1:Z1000", "majorDimension": "ROWS",
                                                        "values": _ROWS})


def _read(version: float, **params: object) -> dict[str, object]:
    return {"documentId": DOCUMENT, "sheetName": SHEET, **params}


def _upsert(version: float, **options: object) -> dict[str, object]:
    return {"operation": "appendOrUpdate", "documentId": DOCUMENT, "sheetName": SHEET, "options": options,
            "columns": {"mappingMode": "defineBelow", "matchingColumns": ["id"],
                        "value": {"id": "={{ $json.id }}", "title": "={{ $json.title }}", "n": "={{ $json.n }}"},
                        "schema": [{"id": c, "displayName": c, "required": False, "defaultMatch": c == "id",
                                    "display": True, "type": "string", "canBeUsedToMatch": True}
                                   for c in ("id", "title", "n")],
                        "attemptToConvertTypes": False, "convertFieldsToString": False}}


_TABLE = Reply("GET", "/v4/spreadsheets/d1/values/*", {"range": "Sheet1!A1:Z1000", "majorDimension": "ROWS",
                                                       "values": [["id", "title", "n"], ["a", "old", "1"], ["b", "keep"]]})
_WRITES = [Reply("POST", "/v4/spreadsheets/d1/values:batchUpdate", {"spreadsheetId": "d1", "totalUpdatedCells": 2}),
           Reply("POST", "/v4/spreadsheets/d1:batchUpdate", {"spreadsheetId": "d1", "replies": [{}]}),
           Reply("PUT", "/v4/spreadsheets/d1/values/*", {"spreadsheetId": "d1", "updatedRows": 1}),
           Reply("POST", "/v4/spreadsheets/d1/values/*", {"spreadsheetId": "d1", "updates": {"updatedRows": 1}})]

CASES = [
    AppCase("googleSheets v4.7 sheet.read every row, formatted values", SHEETS, 4.7,
            _read(4.7, options={"outputFormatting": {"values": {"general": "FORMATTED_VALUE",
                                                                "date": "SERIAL_NUMBER"}}}),
            OAUTH, [_PROPERTIES, _VALUES], items=({"n": 1}, {"n": 2})),
    AppCase("googleSheets v4.1 sheet.read every row, the first item's read only", SHEETS, 4.1, _read(4.1),
            OAUTH, [_PROPERTIES, _VALUES], items=({"n": 1}, {"n": 2})),
    AppCase("googleSheets v4 sheet.read every row, the first item's read only", SHEETS, 4, _read(4, options={}),
            OAUTH, [_PROPERTIES, _VALUES], items=({"n": 1}, {"n": 2})),
    AppCase("googleSheets v4.7 sheet.read filtersUI (AND, every match)", SHEETS, 4.7,
            _read(4.7, filtersUI={"values": [{"lookupColumn": "Branch ID", "lookupValue": "={{ $json.id }}"}]},
                  options={}),
            OAUTH, [_PROPERTIES, _VALUES], items=({"id": 7}, {"id": 12})),
    AppCase("googleSheets v4.5 sheet.read filtersUI (OR, first match per filter)", SHEETS, 4.5,
            _read(4.5, filtersUI={"values": [{"lookupColumn": "Branch ID", "lookupValue": "12"},
                                             {"lookupColumn": "Name", "lookupValue": "North"}]},
                  combineFilters="OR", options={"returnFirstMatch": True}),
            OAUTH, [_PROPERTIES, _VALUES]),
    AppCase("googleSheets v4.7 sheet.read filtersUI (OR, the first match ends the lookup)", SHEETS, 4.7,
            _read(4.7, filtersUI={"values": [{"lookupColumn": "Branch ID", "lookupValue": "12"},
                                             {"lookupColumn": "Name", "lookupValue": "North"}]},
                  combineFilters="OR", options={"returnFirstMatch": True}),
            OAUTH, [_PROPERTIES, _VALUES]),
    AppCase("googleSheets v4.5 sheet.read options.range n8n ignores", SHEETS, 4.5,
            _read(4.5, operation="read", options={"rangeDefinition": "specifyRange", "range": "A:F"}),
            OAUTH, [_PROPERTIES, _VALUES], items=({"n": 1}, {"n": 2})),
    AppCase("googleSheets v4.5 sheet.appendOrUpdate (one row updated, one appended)", SHEETS, 4.5, _upsert(4.5),
            OAUTH, [_PROPERTIES, _TABLE, *_WRITES],
            items=({"id": "b", "title": "new", "n": {"k": 1}}, {"id": "c", "title": "added"})),
    AppCase("googleSheets v4.7 sheet.appendOrUpdate useAppend RAW", SHEETS, 4.7, _upsert(4.7, useAppend=True, cellFormat="RAW"),
            OAUTH, [_PROPERTIES, _TABLE, *_WRITES], items=({"id": "z", "title": "t"}, {"id": "a", "n": 5})),
]

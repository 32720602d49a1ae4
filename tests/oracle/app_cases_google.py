"""Google BigQuery (v2.1), Google Sheets (v4.7) and Google Drive (v3) cases for ``app_oracle``, with the APIs'
replies: BigQuery's jobs.insert (a Job) and jobs.getQueryResults (schema, rows of ``f``/``v`` cells);
Sheets' spreadsheets.create (a Spreadsheet); Drive's files.create (a File)."""

from __future__ import annotations

from tests.oracle.app_oracle import PRIVATE_KEY, TOKEN, AppCase, Credential, Reply


def _oauth(kind: str) -> Credential:
    return Credential(kind, {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                             "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})


_PROJECT = {"__rl": True, "value": "wf-gcp-test", "mode": "list", "cachedResultName": "wf-gcp-test"}
_JOB = {"kind": "bigquery#job", "id": "wf-gcp-test:US.job_1", "jobReference": {"projectId": "wf-gcp-test", "jobId": "job_1",
                                                                              "location": "US"},
        "status": {"state": "DONE"}, "configuration": {"query": {"query": "SELECT 1", "useLegacySql": False}}}
_RESULTS = {"kind": "bigquery#getQueryResultsResponse", "jobReference": _JOB["jobReference"], "totalRows": "2",
            "schema": {"fields": [{"name": "week_start", "type": "DATE", "mode": "NULLABLE"},
                                  {"name": "visits", "type": "INTEGER", "mode": "NULLABLE"},
                                  {"name": "cvr", "type": "FLOAT", "mode": "NULLABLE"}]},
            "rows": [{"f": [{"v": "2024-01-07"}, {"v": "120"}, {"v": "0.25"}]},
                     {"f": [{"v": "2024-01-14"}, {"v": "98"}, {"v": None}]}],
            "jobComplete": True, "cacheHit": False}
_SPREADSHEET = {"spreadsheetId": "1fgSY9zhSusoV7N5PLFGzapM7xtlj8DKh_NhE6aAwUAc",
                "properties": {"title": "Weekly Supplier Actions", "locale": "en_US", "timeZone": "Etc/GMT"},
                "sheets": [{"properties": {"sheetId": 0, "title": "Top", "index": 0, "sheetType": "GRID"}},
                           {"properties": {"sheetId": 1, "title": "Drops", "index": 1, "sheetType": "GRID"}}],
                "spreadsheetUrl": "https://docs.google.com/spreadsheets/d/1fgSY9zhSusoV7N5PLFGzapM7xtlj8DKh_NhE6aAwUAc/edit"}
_FOLDER = {"kind": "drive#file", "id": "1zvEFjwoYiyl7a6O4qVEZqKwEuCq7V-Ml", "name": "ACME",
           "mimeType": "application/vnd.google-apps.folder"}

CASES = [
    AppCase("googleBigQuery v2.1 database.executeQuery", "n8n-nodes-base.googleBigQuery", 2.1,
            {"projectId": _PROJECT, "sqlQuery": "SELECT week_start, visits, cvr FROM t WHERE n = {{ $json.n }}",
             "options": {}},
            _oauth("googleBigQueryOAuth2Api"),
            [Reply("POST", "/bigquery/v2/projects/wf-gcp-test/jobs", _JOB),
             Reply("GET", "/bigquery/v2/projects/wf-gcp-test/queries/job_1", _RESULTS)]),
    AppCase("googleSheets v4.7 spreadsheet.create", "n8n-nodes-base.googleSheets", 4.7,
            {"resource": "spreadsheet", "title": "=Weekly Supplier Actions {{ $json.n }}",
             "sheetsUi": {"sheetValues": [{"title": "Top"}, {"title": "Drops"}]}, "options": {}},
            _oauth("googleSheetsOAuth2Api"), [Reply("POST", "/v4/spreadsheets", _SPREADSHEET)]),
    AppCase("googleDrive v3 folder.create", "n8n-nodes-base.googleDrive", 3,
            {"resource": "folder", "name": "={{ $json.name }}", "driveId": {"mode": "list", "value": "My Drive"},
             "folderId": {"__rl": True, "mode": "list", "value": "1parentFolder"}, "options": {}},
            _oauth("googleDriveOAuth2Api"), [Reply("POST", "/drive/v3/files", _FOLDER)],
            items=({"name": "ACME"},)),
]

_SHEET_ID = "16WmOAHB99b2UK9sw3Kt-1joTIZ12pmE-T1kj8bisdqc"
_META = {"spreadsheetId": _SHEET_ID, "properties": {"title": "Scores"},
         "sheets": [{"properties": {"sheetId": 0, "title": "Blad1", "index": 0, "sheetType": "GRID",
                                    "gridProperties": {"rowCount": 1000, "columnCount": 26}}}]}
_VALUES = {"range": "Blad1!A1:Z1000", "majorDimension": "ROWS",
           "values": [["Name", "Score", "Team"], ["Ada", "3", "red"], ["Bob", "5"]]}
_GID0 = {"__rl": True, "value": "gid=0", "mode": "list", "cachedResultName": "Blad1"}
_SHEET_REPLIES = [Reply("GET", f"/v4/spreadsheets/{_SHEET_ID}", _META),
                  Reply("GET", f"/v4/spreadsheets/{_SHEET_ID}/values/*", _VALUES),
                  Reply("POST", f"/v4/spreadsheets/{_SHEET_ID}:batchUpdate",
                        {"spreadsheetId": _SHEET_ID, "replies": [{}]}),
                  Reply("PUT", f"/v4/spreadsheets/{_SHEET_ID}/values/*",
                        {"spreadsheetId": _SHEET_ID, "updatedRange": "Blad1!A4:C4", "updatedRows": 1,
                         "updatedColumns": 3, "updatedCells": 3}),
                  Reply("POST", f"/v4/spreadsheets/{_SHEET_ID}/values:batchUpdate",
                        {"spreadsheetId": _SHEET_ID, "totalUpdatedRows": 1, "totalUpdatedColumns": 3,
                         "totalUpdatedCells": 3, "totalUpdatedSheets": 1}),
                  Reply("POST", f"/v4/spreadsheets/{_SHEET_ID}/values/*:append",
                        {"spreadsheetId": _SHEET_ID, "tableRange": "Blad1!A1:C3",
                         "updates": {"spreadsheetId": _SHEET_ID, "updatedRange": "Blad1!A4:C4", "updatedRows": 1,
                                     "updatedColumns": 3, "updatedCells": 3}})]

CASES += [
    AppCase("googleSheets v4.5 sheet.read url gid", "n8n-nodes-base.googleSheets", 4.5,
            {"documentId": {"__rl": True, "value": f"https://docs.google.com/spreadsheets/d/{_SHEET_ID}/edit",
                            "mode": "url"}, "sheetName": _GID0, "options": {}},
            _oauth("googleSheetsOAuth2Api"), _SHEET_REPLIES),
    AppCase("googleSheets v4.7 sheet.append", "n8n-nodes-base.googleSheets", 4.7,
            {"operation": "append", "documentId": {"__rl": True, "value": _SHEET_ID, "mode": "list"},
             "sheetName": _GID0, "columns": {"mappingMode": "defineBelow",
                                             "value": {"Name": "={{ $json.name }}", "Score": "={{ $json.n }}"},
                                             "matchingColumns": [], "schema": [
                                                 {"id": c, "displayName": c, "required": False, "defaultMatch": False,
                                                  "display": True, "type": "string", "canBeUsedToMatch": True}
                                                 for c in ("Name", "Score", "Team")]}, "options": {}},
            _oauth("googleSheetsOAuth2Api"), _SHEET_REPLIES, items=({"name": "Cyd", "n": 7},),
            differs="n8n reads the sheets, the whole sheet, adds a row (batchUpdate appendDimension), reads the header "
                    "row and writes the next empty row (PUT values/<sheet>!4:4); the scaffold sends one values:append "
                    "with the same row, and outputs the same item"),
]

_UPLOADED = {"kind": "drive#file", "id": "1uploadedFileId", "name": "scores.csv", "mimeType": "text/csv"}
CASES += [
    AppCase("googleDrive v3 file.upload", "n8n-nodes-base.googleDrive", 3,
            {"name": "=report-{{ $json.day }}.csv", "driveId": {"__rl": True, "mode": "list", "value": "My Drive"},
             "folderId": {"__rl": True, "value": "1zvEFjwoYiyl7a6O4qVEZqKwEuCq7V-Ml", "mode": "list",
                          "cachedResultName": "UGC News"}, "options": {}},
            _oauth("googleDriveOAuth2Api"),
            [Reply("POST", "/upload/drive/v3/files", _UPLOADED), Reply("PATCH", "/drive/v3/files/*", _UPLOADED),
             Reply("GET", "/drive/v3/files/*", _UPLOADED)],
            items=({"day": "2024-01-07"},), binary=("data",)),
]

# A service account: n8n signs a JWT (its iss the account's email, which carries the case's mark) and trades it
# at Google's token endpoint for the access token the stand-in answers; the scaffold's gateway sends that token.
_SERVICE_ACCOUNT = Credential("googleApi", {"email": f"{TOKEN}@oracle-project.iam.gserviceaccount.com",
                                            "privateKey": PRIVATE_KEY})
CASES += [
    AppCase("googleSheets v4 sheet.read service account", "n8n-nodes-base.googleSheets", 4,
            {"authentication": "serviceAccount", "documentId": {"__rl": True, "value": _SHEET_ID, "mode": "id"},
             "sheetName": _GID0, "options": {}},
            _SERVICE_ACCOUNT,
            [Reply("POST", "/token", {"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}),
             *_SHEET_REPLIES]),
]

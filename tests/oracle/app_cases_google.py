"""Google BigQuery (v2.1), Google Sheets (v4.7) and Google Drive (v3) cases for ``app_oracle``, with the APIs'
replies: BigQuery's jobs.insert (a Job) and jobs.getQueryResults (schema, rows of ``f``/``v`` cells);
Sheets' spreadsheets.create (a Spreadsheet); Drive's files.create (a File)."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply


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

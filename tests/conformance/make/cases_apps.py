"""Pinned cases of Make's data app modules: Airtable records, an app's "Make an API call", ClickUp, Fatture in Cloud.

Each module is written as Make's blueprints hold it (v3 Airtable modules with their ``expect``
spec), with the request the app's REST API documents and the bundle Make outputs (the
``metadata.interface`` Make writes into blueprints lists ``id``, ``createdTime`` and the fields by
name for Airtable). A reply marked ``X-Cutover-Recorded`` is a shadow replay's recording: the
module's recorded bundle, returned as it is.
"""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_AIRTABLE = ("https://www.make.com/en/help/app/airtable (Create a record / Update a record / Search records: "
             "output ID, Created Time, the fields); https://airtable.com/developers/web/api/create-records")
_API_CALL = ("https://www.make.com/en/help/app/supabase (Make an API call: URL relative to the connection's base, "
             "output Body, Headers, Status code)")
_CLICKUP = "https://www.make.com/en/help/app/clickup; https://clickup.com/api/clickupreference/operation/GetTasks/"
_FIC = "https://www.make.com/en/help/app/fatture-in-cloud; https://developers.fattureincloud.it (received documents)"
_RECORDED = {"X-Cutover-Recorded": "recording"}
_D = {"designer": {"x": 300, "y": 0}}

_EXPECT = [{"name": "base", "type": "select"}, {"name": "typecast", "type": "boolean"},
           {"name": "useColumnId", "type": "boolean"}, {"name": "table", "type": "select"},
           {"name": "record", "type": "collection", "spec": [
               {"name": "fldName", "type": "text", "label": "Name"},
               {"name": "fldAmount", "type": "number", "label": "Amount"},
               {"name": "fldPaid", "type": "boolean", "label": "Paid"}]}]


def _airtable(module: str, mapper: dict, expect: list | None = None) -> dict:
    return {"module": module, "version": 3, "parameters": {"__IMTCONN__": 1}, "mapper": mapper,
            "metadata": {**_D, "expect": expect or _EXPECT}}


_CREATE = _airtable("airtable:ActionCreateRecord", {
    "base": "appB1", "table": "tblT1", "typecast": False, "useColumnId": False,
    "record": {"fldName": "{{1.name}}", "fldAmount": "{{1.amount}}", "fldPaid": "{{1.paid}}", "fldNote": "{{1.note}}"}})
_LIVE_RECORD = {"id": "recA1", "createdTime": "2024-06-03T09:30:00.000Z", "fields": {"Name": "Ada", "Amount": 12.5,
                                                                                    "Paid": True}}

CASES = [
    MakeCase(
        id="airtable-create-record",
        module=_CREATE, input={"name": "Ada", "amount": 12.5, "paid": True, "note": ""},
        replies=(Reply(200, json=_LIVE_RECORD),),
        calls=(Call("POST", "https://api.airtable.com/v0/appB1/tblT1", provider="airtable",
                    json={"fields": {"fldName": "Ada", "fldAmount": 12.5, "fldPaid": True}, "typecast": False}),),
        output=[{"id": "recA1", "createdTime": "2024-06-03T09:30:00.000Z", "Name": "Ada", "Amount": 12.5, "Paid": True}],
        source=_AIRTABLE),
    MakeCase(
        id="airtable-create-record-recorded",
        module=_CREATE, input={"name": "Ada", "amount": 3, "paid": False, "note": "x"},
        replies=(Reply(200, json={"id": "recA1", "createdTime": "2024-06-03T09:30:00.000Z", "Name": "Ada",
                                  "fields": "a field named fields"}, headers=_RECORDED),),
        calls=(Call("POST", "https://api.airtable.com/v0/appB1/tblT1",
                    json={"fields": {"fldName": "Ada", "fldAmount": 3, "fldPaid": False, "fldNote": "x"},
                          "typecast": False}),),
        output=[{"id": "recA1", "createdTime": "2024-06-03T09:30:00.000Z", "Name": "Ada",
                 "fields": "a field named fields"}],
        source=_AIRTABLE),
    MakeCase(
        id="airtable-update-record",
        module=_airtable("airtable:ActionUpdateRecords", {
            "id": "{{1.record}}", "base": "appB1", "table": "tblT1", "typecast": True, "useColumnId": True,
            "record": {"fldName": "{{1.name}}", "fldAmount": ""}}),
        input={"record": "recA1", "name": "Grace"},
        replies=(Reply(200, json={"id": "recA1", "createdTime": "2024-06-01T00:00:00.000Z",
                                  "fields": {"fldName": "Grace", "fldAmount": 4}}),),
        calls=(Call("PATCH", "https://api.airtable.com/v0/appB1/tblT1/recA1",
                    json={"fields": {"fldName": "Grace"}, "typecast": True, "returnFieldsByFieldId": True}),),
        output=[{"id": "recA1", "createdTime": "2024-06-01T00:00:00.000Z", "fldName": "Grace", "fldAmount": 4}],
        source=_AIRTABLE),
    MakeCase(
        id="airtable-search-records-pages",
        module=_airtable("airtable:ActionSearchRecords", {
            "base": "appB1", "table": "tblT1", "formula": "{Status}='{{1.status}}'", "maxRecords": "3",
            "sort": [{"field": "Name", "direction": "desc"}], "useColumnId": False}),
        input={"status": "open"},
        replies=(Reply(200, json={"records": [{"id": "r1", "createdTime": "t1", "fields": {"Name": "c"}},
                                              {"id": "r2", "createdTime": "t2", "fields": {"Name": "b"}}],
                                  "offset": "itr1"}),
                 Reply(200, json={"records": [{"id": "r3", "createdTime": "t3", "fields": {"Name": "a"}},
                                              {"id": "r4", "createdTime": "t4", "fields": {"Name": "0"}}]})),
        calls=(Call("GET", "https://api.airtable.com/v0/appB1/tblT1",
                    params={"filterByFormula": "{Status}='open'", "maxRecords": "3", "sort[0][field]": "Name",
                            "sort[0][direction]": "desc"}),
               Call("GET", "https://api.airtable.com/v0/appB1/tblT1",
                    params={"filterByFormula": "{Status}='open'", "maxRecords": "3", "sort[0][field]": "Name",
                            "sort[0][direction]": "desc", "offset": "itr1"})),
        output=[{"id": "r1", "createdTime": "t1", "Name": "c"}, {"id": "r2", "createdTime": "t2", "Name": "b"},
                {"id": "r3", "createdTime": "t3", "Name": "a"}],
        source=_AIRTABLE),
    MakeCase(
        id="airtable-search-records-none",
        module=_airtable("airtable:ActionSearchRecords", {"base": "appB1", "table": "tblT1", "useColumnId": False}),
        replies=(Reply(200, json={"records": []}),),
        calls=(Call("GET", "https://api.airtable.com/v0/appB1/tblT1"),),
        output=[], source=_AIRTABLE),
    MakeCase(
        id="airtable-get-record",
        module=_airtable("airtable:ActionGetRecord", {"base": "appB1", "table": "tblT1", "id": "{{1.id}}",
                                                      "useColumnId": False}),
        input={"id": "recZ"},
        replies=(Reply(200, json={"id": "recZ", "createdTime": "t", "fields": {"Name": "Zed"}}),),
        calls=(Call("GET", "https://api.airtable.com/v0/appB1/tblT1/recZ"),),
        output=[{"id": "recZ", "createdTime": "t", "Name": "Zed"}], source=_AIRTABLE),
    MakeCase(
        id="supabase-make-an-api-call",
        module={"module": "supabase:makeAnApiCall", "version": 1, "parameters": {"__IMTCONN__": 1}, "metadata": _D,
                "mapper": {"url": "/rest/v1/orders?on_conflict=code", "method": "POST", "qs": [],
                           "headers": [{"key": "Content-Type", "value": "application/json"},
                                       {"key": "Prefer", "value": "return=representation"}],
                           "body": "{\"code\":\"{{1.code}}\",\"value\":{{1.value}}}"}},
        input={"code": "A-1", "value": 9},
        providers={"supabase": "supabase"},
        replies=(Reply(201, json=[{"id": 7, "code": "A-1"}], headers={"content-range": "*/*"}),),
        calls=(Call("POST", "/rest/v1/orders?on_conflict=code", provider="supabase",
                    content=b'{"code":"A-1","value":9}',
                    headers={"Content-Type": "application/json", "Prefer": "return=representation"}),),
        output=[{"body": [{"id": 7, "code": "A-1"}], "headers": {"content-range": "*/*", "content-length": "23",
                                                                  "content-type": "application/json"},
                 "statusCode": 201}],
        source=_API_CALL),
    MakeCase(
        id="slack-make-an-api-call-shares-the-app-provider",
        module={"module": "slack:makeAnApiCall", "version": 4, "parameters": {"__IMTCONN__": 1}, "metadata": _D,
                "mapper": {"url": "conversations.info", "method": "GET", "body": "",
                           "qs": [{"key": "channel", "value": "{{1.channel}}"}],
                           "headers": [{"key": "Authorization", "value": "Bearer xoxb-not-copied"}]}},
        input={"channel": "C1"},
        replies=(Reply(200, json={"ok": True, "channel": {"id": "C1"}}, headers={"content-type": "application/json"}),),
        calls=(Call("GET", "conversations.info", provider="slack", params={"channel": "C1"}),),
        output=[{"body": {"ok": True, "channel": {"id": "C1"}},
                 "headers": {"content-type": "application/json", "content-length": "33"}, "statusCode": 200}],
        source=_API_CALL),
    MakeCase(
        id="clickup-get-list-tasks-limit",
        module={"module": "clickup:getListTasks", "version": 2, "parameters": {"__IMTCONN__": 1}, "metadata": _D,
                "mapper": {"limit": "2", "list_id": "901", "team_id": "9", "archived": False, "statuses": ["complete"],
                           "subtasks": True, "assignees": [101, 102], "map_or_select": "select",
                           "include_closed": True}},
        replies=(Reply(200, json={"tasks": [{"id": "t1"}, {"id": "t2"}, {"id": "t3"}], "last_page": False}),),
        calls=(Call("GET", "https://api.clickup.com/api/v2/list/901/task", provider="clickup",
                    params={"archived": "false", "include_closed": "true", "subtasks": "true",
                            "statuses[]": ["complete"], "assignees[]": ["101", "102"], "page": "0"}),),
        output=[{"id": "t1"}, {"id": "t2"}], source=_CLICKUP),
    MakeCase(
        id="clickup-edit-task",
        module={"module": "clickup:editATaskAdvanced", "version": 2, "parameters": {"__IMTCONN__": 1}, "metadata": _D,
                "mapper": {"task_id": "{{1.value}}", "archived": True, "assignees": {}, "notify_all": False,
                           "due_date_time": False, "start_date_time": False}},
        input={"value": "86a"},
        replies=(Reply(200, json={"id": "86a", "archived": True, "name": "Write"}),),
        calls=(Call("PUT", "https://api.clickup.com/api/v2/task/86a", json={"archived": True}),),
        output=[{"id": "86a", "archived": True, "name": "Write"}], source=_CLICKUP),
    MakeCase(
        id="fic-list-received-documents",
        module={"module": "fatture-in-cloud:listReceivedDocuments", "version": 1, "parameters": {"__IMTCONN__": 1},
                "metadata": _D, "mapper": {"limit": "3", "companyId": 13, "documentType": "expense",
                                           "q": "date:>=:{{1.since}}"}},
        input={"since": "2024-01-01"},
        replies=(Reply(200, json={"data": [{"id": 1}, {"id": 2}], "current_page": 1, "next_page_url": "p2"}),
                 Reply(200, json={"data": [{"id": 3}, {"id": 4}], "current_page": 2, "next_page_url": None})),
        calls=(Call("GET", "https://api-v2.fattureincloud.it/c/13/received_documents",
                    params={"type": "expense", "q": "date:>=:2024-01-01", "fieldset": "detailed", "per_page": "100",
                            "page": "1"}),
               Call("GET", "https://api-v2.fattureincloud.it/c/13/received_documents",
                    params={"type": "expense", "q": "date:>=:2024-01-01", "fieldset": "detailed", "per_page": "100",
                            "page": "2"})),
        output=[{"id": 1}, {"id": 2}, {"id": 3}], source=_FIC),
]

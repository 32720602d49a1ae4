"""Airtable (v2.1) cases for ``app_oracle``: record.search, record.create, record.update and record.get, with the
Airtable Web API's replies (a record: ``id``, ``createdTime``, ``fields``; a list: ``records`` and no ``offset``)."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

AIRTABLE = "n8n-nodes-base.airtable"
TOKEN_CREDENTIAL = Credential("airtableTokenApi", {"accessToken": TOKEN})
BASE = {"__rl": True, "value": "appHBKxB7jB4Pu2sE", "mode": "list", "cachedResultName": "Onboarding"}
TABLE = {"__rl": True, "value": "tblMSTanDUwFONqwS", "mode": "list", "cachedResultName": "Employees"}
_RECORD = {"id": "recRezj5GL9DuElAN", "createdTime": "2024-01-01T00:00:00.000Z",
           "fields": {"Name": "Ada", "Department": "Engineering", "Work Email": "ada@example.test"}}
_LIST = {"records": [_RECORD, {**_RECORD, "id": "recB", "fields": {"Name": "Bob", "Department": "Engineering"}}]}
_ITEMS = ({"Department": "Engineering", "id": "recRezj5GL9DuElAN", "name": "Ada"},)
_LISTED = [Reply("GET", "/v0/*", _LIST), Reply("POST", "/v0/*/listRecords", _LIST)]

CASES = [
    AppCase("airtable v2.1 record.search formula", AIRTABLE, 2.1,
            {"operation": "search", "base": BASE, "table": TABLE,
             "filterByFormula": "={Department} = '{{ $json.Department }}'", "options": {}},
            TOKEN_CREDENTIAL, _LISTED, items=_ITEMS),
    AppCase("airtable v2.1 record.search sort limit", AIRTABLE, 2.1,
            {"base": {"__rl": True, "mode": "id", "value": "appHBKxB7jB4Pu2sE"}, "table": {"__rl": True, "mode": "id",
                                                                                       "value": "Trends"},
             "operation": "search", "filterByFormula": "={processed}=FALSE()",
             "sort": {"property": [{"field": "detectedAt", "direction": "desc"}]}, "returnAll": False, "limit": 10},
            TOKEN_CREDENTIAL, _LISTED, items=_ITEMS),
    AppCase("airtable v2.1 record.create", AIRTABLE, 2.1,
            {"operation": "create", "base": BASE, "table": TABLE,
             "columns": {"mappingMode": "defineBelow", "value": {"Name": "={{ $json.name }}", "Department": "Sales"},
                         "matchingColumns": [], "schema": []}, "options": {}},
            TOKEN_CREDENTIAL, [Reply("POST", "/v0/*", _RECORD)], items=_ITEMS),
    AppCase("airtable v2.1 record.update", AIRTABLE, 2.1,
            {"operation": "update", "base": BASE, "table": TABLE,
             "columns": {"mappingMode": "defineBelow", "value": {"id": "={{ $json.id }}", "Department": "Sales"},
                         "matchingColumns": ["id"], "schema": []}, "options": {}},
            TOKEN_CREDENTIAL, [Reply("PATCH", "/v0/*", {"records": [_RECORD]})], items=_ITEMS),
    AppCase("airtable v2.1 record.get", AIRTABLE, 2.1,
            {"base": BASE, "table": TABLE, "id": "recRezj5GL9DuElAN", "options": {}},
            TOKEN_CREDENTIAL, [Reply("GET", "/v0/*", _RECORD)], items=_ITEMS),
]

"""HubSpot v2 nodes with parameters n8n does not read, for ``app_oracle``: n8n runs them without those, and so must the scaffold.

contact.getAll with ``filters`` and ``additionalFields.properties`` (a hand-written workflow's v3
search shape) lists every contact (HubSpot's v1 ``lists/all/contacts/all``: ``contacts``,
``has-more``, ``vid-offset``); company.create with fields under other names creates the company
with n8n's own fields only (v2 companies API: ``companyId``, ``properties``); with no ``name`` (required)
n8n refuses to run the workflow at all, so that is a TODO, not a case.
"""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

HUBSPOT = "n8n-nodes-base.hubspot"
APP_TOKEN = Credential("hubspotAppToken", {"appToken": TOKEN})
_CONTACTS = {"contacts": [{"vid": 101, "canonical-vid": 101, "portal-id": 62515, "is-contact": True,
                           "properties": {"firstname": {"value": "Ada"}, "lastmodifieddate": {"value": "1733000000000"}}},
                          {"vid": 102, "canonical-vid": 102, "portal-id": 62515, "is-contact": True,
                           "properties": {"firstname": {"value": "Bob"}}}],
             "has-more": False, "vid-offset": 102}
_COMPANY = {"portalId": 62515, "companyId": 10444744, "isDeleted": False,
            "properties": {"name": {"value": "", "timestamp": 1733000000000}, "city": {"value": "Lisbon"}}}

CASES = [
    AppCase("hubspot v2 contact.getAll filters and properties n8n ignores", HUBSPOT, 2,
            {"authentication": "appToken", "resource": "contact", "operation": "getAll", "returnAll": False, "limit": 50,
             "filters": {"filterGroupsUi": {"filterGroupsValues": [{"filtersUi": {"filterValues": [
                 {"propertyName": "lastmodifieddate", "operator": "GT", "value": "={{ $json.since }}"}]}}]}},
             "additionalFields": {"properties": ["email", "firstname"]}},
            APP_TOKEN, [Reply("GET", "/contacts/v1/lists/all/contacts/all", _CONTACTS)], items=({"since": "2024-01-01"},)),
    AppCase("hubspot v2 company.create fields n8n ignores", HUBSPOT, 2,
            {"authentication": "appToken", "resource": "company", "operation": "create", "name": "={{ $json.name }}",
             "additionalFields": {"domain": "={{ $json.domain }}", "phone": "123",
                                  "city": "={{ $json.city }}", "state": "LX"}},
            APP_TOKEN, [Reply("POST", "/companies/v2/companies", _COMPANY)],
            items=({"name": "ACME", "domain": "acme.test", "city": "Lisbon"},)),
]

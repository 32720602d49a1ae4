"""HubSpot (v2, v2.1) and GitHub (v1.1) cases for ``app_oracle``, with the APIs' replies: HubSpot's v1 contact
createOrUpdate (``vid``, ``isNew``) and profile, CRM v3 search (``total``, ``results``); GitHub's organization
invitation."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

HUBSPOT = "n8n-nodes-base.hubspot"
APP_TOKEN = Credential("hubspotAppToken", {"appToken": TOKEN})
_PROFILE = {"vid": 3234574, "canonical-vid": 3234574, "portal-id": 62515, "is-contact": True,
            "properties": {"email": {"value": "ada@example.test", "versions": []},
                           "firstname": {"value": "Ada", "versions": []}}}
_FOUND = {"total": 1, "results": [{"id": "512", "properties": {"email": "ada@example.test", "firstname": "Ada",
                                                                "hs_object_id": "512"},
                                   "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-02T00:00:00Z",
                                   "archived": False}]}
_ITEMS = ({"email": "ada@example.test", "name": "Ada", "company": "ACME"},)

CASES = [
    AppCase("hubspot v2.1 contact.upsert", HUBSPOT, 2.1,
            {"authentication": "appToken", "email": "={{ $json.email }}",
             "additionalFields": {"companyName": "={{ $json.company }}", "firstName": "={{ $json.name }}"}, "options": {}},
            APP_TOKEN, [Reply("POST", "/contacts/v1/contact/createOrUpdate/email/*", {"vid": 3234574, "isNew": False}),
                        Reply("GET", "/contacts/v1/contact/vid/3234574/profile", _PROFILE)], items=_ITEMS),
    AppCase("hubspot v2.1 contact.search", HUBSPOT, 2.1,
            {"authentication": "appToken", "operation": "search",
             "filterGroupsUi": {"filterGroupsValues": [{"filtersUi": {"filterValues": [
                 {"propertyName": "email|string", "value": "={{ $json.email }}"}]}}]}, "additionalFields": {}},
            APP_TOKEN, [Reply("POST", "/crm/v3/objects/contacts/search", _FOUND)], items=_ITEMS),
    AppCase("github v1.1 user.invite", "n8n-nodes-base.github", 1.1,
            {"authentication": "oAuth2", "resource": "user", "operation": "invite", "organization": "Bursa-Line",
             "email": "={{ $json.email }}"},
            Credential("githubOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                           "server": "https://api.github.com",
                                           "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}}),
            [Reply("POST", "/orgs/Bursa-Line/invitations", {"id": 1, "login": None, "email": "ada@example.test",
                                                             "role": "direct_member", "created_at": "2024-01-01T00:00:00Z",
                                                             "team_count": 0, "failed_at": None})], items=_ITEMS),
]

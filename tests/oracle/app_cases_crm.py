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

_COMPANY = {"portalId": 62515, "companyId": 10444744, "isDeleted": False,
            "properties": {"dcs_score": {"value": "7", "timestamp": 1, "source": "API", "sourceId": None,
                                         "versions": []}}}
CASES += [
    AppCase("hubspot v2 company.update", HUBSPOT, 2,
            {"authentication": "appToken", "resource": "company", "operation": "update", "companyId": "={{ $json.id }}",
             "updateFields": {"customPropertiesUi": {"customPropertiesValues": [
                 {"property": "dcs_score", "value": "={{ $json.score }}"}, {"property": "dcs_tier", "value": "A"}]}}},
            APP_TOKEN, [Reply("PUT", "/companies/v2/companies/*", _COMPANY)], items=({"id": "10444744", "score": 7},)),
    AppCase("hubspot v2 contact.search", HUBSPOT, 2,
            {"authentication": "appToken", "resource": "contact", "operation": "search",
             "filterGroupsUi": {"filterGroupsValues": [{"filtersUi": {"filterValues": [
                 {"propertyName": "email|string", "operator": "EQ", "value": "={{ $json.email }}"}]}}]},
             "additionalFields": {}},
            APP_TOKEN, [Reply("POST", "/crm/v3/objects/contacts/search", _FOUND)], items=_ITEMS),
]

_GITHUB = Credential("githubOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                         "server": "https://api.github.com",
                                         "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
_OWNER = {"__rl": True, "value": "octo-org", "mode": "list", "cachedResultName": "octo-org"}
_REPO = {"__rl": True, "value": "n8n", "mode": "list", "cachedResultName": "n8n"}
_EXISTING = {"type": "file", "encoding": "base64", "size": 12, "name": "scores.json", "path": "flows/scores.json",
             "content": "e30K", "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
             "url": "https://api.github.com/repos/octo-org/n8n/contents/flows/scores.json"}
_COMMITTED = {"content": {"name": "scores.json", "path": "flows/scores.json", "sha": "95b966ae1c166bd92f8ae7d1c313e738c731dfc3",
                          "size": 12, "type": "file"},
              "commit": {"sha": "7638417db6d59f3c431d3e1f261cc637155684cd", "message": "none",
                         "author": {"name": "n8n", "email": "n8n@example.test", "date": "2024-01-01T00:00:00Z"}}}
CASES += [
    AppCase("github v1.1 file.create binary", "n8n-nodes-base.github", 1.1,
            {"authentication": "oAuth2", "resource": "file", "owner": _OWNER, "repository": _REPO,
             "filePath": "=flows/{{ $json.name }}.json", "binaryData": True, "binaryPropertyName": "=data",
             "commitMessage": "none"},
            _GITHUB, [Reply("PUT", "/repos/octo-org/n8n/contents/*", _COMMITTED, status=201)],
            items=({"name": "scores"},), binary=("data",)),
    AppCase("github v1.1 file.edit binary", "n8n-nodes-base.github", 1.1,
            {"authentication": "oAuth2", "resource": "file", "operation": "edit", "owner": _OWNER, "repository": _REPO,
             "filePath": "=flows/{{ $json.name }}.json", "binaryData": True, "binaryPropertyName": "=data",
             "commitMessage": "none"},
            _GITHUB, [Reply("GET", "/repos/octo-org/n8n/contents/*", _EXISTING),
                      Reply("PUT", "/repos/octo-org/n8n/contents/*", _COMMITTED)],
            items=({"name": "scores"},), binary=("data",)),
]

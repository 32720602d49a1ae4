"""Asana (v1) cases for ``app_oracle``: subtask.create and task.create, with the Asana API's replies
(``{"data": <task>}``)."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

ASANA = "n8n-nodes-base.asana"
OAUTH = Credential("asanaOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                      "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
_TASK = {"data": {"gid": "1204567890123456", "resource_type": "task", "name": "Collect Employee ID",
                  "assignee": {"gid": "12345", "resource_type": "user", "name": "Ada"}, "completed": False,
                  "notes": "Head over", "due_on": None, "projects": [], "workspace": {"gid": "1212072124144211"}}}
_ITEMS = ({"gid": "1204567890000001", "email": "ada@example.test"}, {"gid": "1204567890000002", "email": "bob@example.test"})

CASES = [
    AppCase("asana v1 subtask.create", ASANA, 1,
            {"authentication": "oAuth2", "resource": "subtask", "taskId": "={{ $json.gid }}", "name": "Collect Employee ID",
             "otherProperties": {"assignee": "={{ $json.email }}", "notes": "Head over to the room.\nThen a second line."}},
            OAUTH, [Reply("POST", "/api/1.0/tasks/*/subtasks", _TASK)], items=_ITEMS),
    AppCase("asana v1 task.create", ASANA, 1,
            {"authentication": "oAuth2", "workspace": "1212072124144211", "name": "Employee Onboarding",
             "otherProperties": {"assignee": "={{ $json.email }}", "due_on": "2024-03-08", "notes": "Collect Employee ID",
                                 "projects": ["1212072123905117"]}},
            OAUTH, [Reply("POST", "/api/1.0/tasks", _TASK)], items=_ITEMS),
]

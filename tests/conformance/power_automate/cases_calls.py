"""Pinned cases: HTTP, Delay and the connector actions made as documented REST calls."""

from __future__ import annotations

from tests.conformance.power_automate.runner import Case

HTTP = "https://learn.microsoft.com/azure/logic-apps/logic-apps-workflow-actions-triggers#http-action"
DELAY = "https://learn.microsoft.com/azure/logic-apps/logic-apps-workflow-actions-triggers#wait-action"
GROUPS = "https://learn.microsoft.com/connectors/office365groups/#send-an-http-request"
SHAREPOINT = "https://learn.microsoft.com/connectors/sharepointonline/#send-an-http-request-to-sharepoint"
SENDMAIL = "https://learn.microsoft.com/graph/api/user-sendmail"
CHANNEL = "https://learn.microsoft.com/graph/api/channel-post-messages"
OUTLOOK = "https://learn.microsoft.com/graph/api/message-delete"
MEMBERS = "https://learn.microsoft.com/graph/api/team-post-members"
CARD = "https://learn.microsoft.com/graph/api/channel-post-messages#example-4-send-a-message-with-an-adaptive-card"
USER = "https://learn.microsoft.com/connectors/office365users/#get-user-profile-(v2)"
MANAGER = "https://learn.microsoft.com/graph/api/user-list-manager"
SP_DELETE = ("https://learn.microsoft.com/sharepoint/dev/sp-add-ins/working-with-lists-and-list-items-with-rest"
             "#delete-list-item")


def _open_api(api: str, operation: str, parameters: dict[str, object]) -> dict[str, object]:
    return {"type": "OpenApiConnection", "runAfter": {},
            "inputs": {"host": {"apiId": f"/providers/Microsoft.PowerApps/apis/shared_{api}", "connectionName": f"shared_{api}",
                                "operationId": operation},
                       "parameters": parameters, "authentication": "@parameters('$authentication')"}}


CASES = [
    Case("http-sends-the-request-and-outputs-status-headers-body", ("Http",), HTTP,
         {"Create": {"type": "Http", "runAfter": {},
                     "inputs": {"method": "POST", "uri": "https://api.example.test/orders/@{triggerBody()?['id']}",
                                "headers": {"Accept": "application/json"}, "queries": {"dry": "no"},
                                "body": {"sku": "@triggerBody()?['sku']", "qty": 2}}}},
         body={"id": "o-9", "sku": "A-1"}, replies={"create": {"ok": True}},
         requests=[{"method": "POST", "url": "https://api.example.test/orders/o-9", "headers": {"Accept": "application/json"},
                    "params": {"dry": "no"}, "json": {"sku": "A-1", "qty": 2}}],
         outputs={"Create": {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": {"ok": True}}}),
    Case("http-answering-an-error-fails-the-action", ("Http",), HTTP,
         {"Get": {"type": "Http", "runAfter": {}, "inputs": {"method": "GET", "uri": "https://api.example.test/x"}}},
         replies={"get": (400, {"error": "bad"})}, status={"Get": "Failed"}, outcome="failed"),
    Case("delay-waits-the-interval", ("Wait",), DELAY,
         {"Delay": {"type": "Wait", "runAfter": {}, "inputs": {"interval": {"count": 2, "unit": "Minute"}}}},
         status={"Delay": "Succeeded"}, slept=[120.0]),
    Case("office-365-groups-send-an-http-request-calls-graph", ("OpenApiConnection:office365groups/HttpRequest",), GROUPS,
         {"Request": _open_api("office365groups", "HttpRequest", {
             "Uri": "https://graph.microsoft.com/v1.0/groups", "Method": "POST", "ContentType": "application/json",
             "Body": "{\"displayName\": \"@{triggerBody()?['name']}\"}"})},
         body={"name": "Sales"}, replies={"request": {"id": "g-1"}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/groups",
                    "headers": {"Content-Type": "application/json"}, "content": "{\"displayName\": \"Sales\"}"}],
         outputs={"Request": {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": {"id": "g-1"}}}),
    Case("sharepoint-send-an-http-request-calls-the-site", ("OpenApiConnection:sharepointonline/HttpRequest",), SHAREPOINT,
         {"Request": _open_api("sharepointonline", "HttpRequest", {
             "dataset": "https://contoso.sharepoint.com/sites/hr", "parameters/method": "GET",
             "parameters/uri": "_api/web/lists/getByTitle('Staff')/items?$top=1",
             "parameters/headers": {"Accept": "application/json;odata=nometadata"}})},
         replies={"request": {"value": []}},
         requests=[{"method": "GET", "url": "https://contoso.sharepoint.com/sites/hr/_api/web/lists/getByTitle('Staff')/items?$top=1",
                    "headers": {"Accept": "application/json;odata=nometadata"}}]),
    Case("outlook-send-an-email-v2-is-graph-sendmail", ("OpenApiConnection:office365/SendEmailV2",), SENDMAIL,
         {"Send": _open_api("office365", "SendEmailV2", {
             "emailMessage/To": "a@contoso.example;b@contoso.example", "emailMessage/Subject": "Hi @{triggerBody()?['who']}",
             "emailMessage/Body": "<p>Welcome</p>", "emailMessage/Importance": "High"})},
         body={"who": "Ana"}, replies={"send": {}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/me/sendMail", "json": {
             "message": {"subject": "Hi Ana", "body": {"contentType": "HTML", "content": "<p>Welcome</p>"},
                         "toRecipients": [{"emailAddress": {"address": "a@contoso.example"}},
                                          {"emailAddress": {"address": "b@contoso.example"}}],
                         "importance": "high"},
             "saveToSentItems": True}}]),
    Case("teams-post-in-a-channel-as-the-user-is-a-graph-channel-message",
         ("OpenApiConnection:teams/PostMessageToConversation",), CHANNEL,
         {"Post": _open_api("teams", "PostMessageToConversation", {
             "poster": "User", "location": "Channel", "body/recipient/groupId": "team-1",
             "body/recipient/channelId": "19:abc@thread.tacv2", "body/messageBody": "<p>@{triggerBody()?['text']}</p>"})},
         body={"text": "Deployed"}, replies={"post": {"id": "m-1"}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/teams/team-1/channels/19:abc@thread.tacv2/messages",
                    "json": {"body": {"contentType": "html", "content": "<p>Deployed</p>"}}}]),
    Case("teams-add-a-member-to-a-team-is-a-graph-team-member", ("OpenApiConnection:teams/AddMemberToTeam",), MEMBERS,
         {"Add": _open_api("teams", "AddMemberToTeam", {"teamId": "@triggerBody()?['team']",
                                                         "body/userId": "@triggerBody()?['user']", "body/owner": True})},
         body={"team": "ee0f5ae2", "user": "8b081ef6"}, replies={"add": {"id": "m-1"}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/teams/ee0f5ae2/members", "json": {
             "@odata.type": "#microsoft.graph.aadUserConversationMember", "roles": ["owner"],
             "user@odata.bind": "https://graph.microsoft.com/v1.0/users('8b081ef6')"}}]),
    Case("an-outlook-codeless-apiconnection-calls-that-graph-path", ("ApiConnection:office365/DeleteEmail_V2",), OUTLOOK,
         {"Delete_email_(V2)": {"type": "ApiConnection", "runAfter": {},
                                "metadata": {"flowSystemMetadata": {"swaggerOperationId": "DeleteEmail_V2"}},
                                "inputs": {"host": {"connection": {"name": "@parameters('$connections')['shared_office365']['connectionId']"}},
                                           "method": "delete",
                                           "path": "/codeless/v1.0/me/messages/@{triggerBody()?['id']}"}}},
         body={"id": "AAMk1"}, replies={"delete-email-v2": {}},
         requests=[{"method": "DELETE", "url": "https://graph.microsoft.com/v1.0/me/messages/AAMk1"}]),
    Case("teams-post-a-card-in-a-channel-as-the-user-is-a-graph-message-with-the-card-attached",
         ("OpenApiConnection:teams/PostCardToConversation",), CARD,
         {"Post_card": _open_api("teams", "PostCardToConversation", {
             "poster": "User", "location": "Channel", "body/recipient/groupId": "team-1",
             "body/recipient/channelId": "19:abc@thread.tacv2", "body/messageBody": "{\"type\":\"AdaptiveCard\",\"version\":\"1.4\",\"body\":[{\"type\":\"TextBlock\",\"text\":\"@{triggerBody()?['text']}\"}]}"})},
         body={"text": "Deployed"}, replies={"post-card": {"id": "m-2"}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/teams/team-1/channels/19:abc@thread.tacv2/messages",
                    "json": {"body": {"contentType": "html", "content": '<attachment id="332e5f725243598f9a97aeea103e2be9"></attachment>'},
                             "attachments": [{"id": "332e5f725243598f9a97aeea103e2be9", "contentType": "application/vnd.microsoft.card.adaptive",
                                              "content": "{\"type\":\"AdaptiveCard\",\"version\":\"1.4\",\"body\":[{\"type\":\"TextBlock\",\"text\":\"Deployed\"}]}"}]}}],
         outputs={"Post_card": {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": {"id": "m-2"}}}),
    Case("office-365-users-get-user-profile-v2-is-graph-user-with-its-select", ("OpenApiConnection:office365users/UserProfile_V2",),
         USER, {"Get_user": _open_api("office365users", "UserProfile_V2", {
             "id": "@triggerBody()?['email']", "$select": "displayName,department,accountEnabled"})},
         body={"email": "ana@contoso.example"}, replies={"get-user": {"displayName": "Ana", "department": "HR",
                                                                       "accountEnabled": True}},
         requests=[{"method": "GET", "url": "https://graph.microsoft.com/v1.0/users/ana@contoso.example",
                    "params": {"$select": "displayName,department,accountEnabled"}}],
         outputs={"Get_user": {"statusCode": 200, "headers": {"content-type": "application/json"},
                               "body": {"displayName": "Ana", "department": "HR", "accountEnabled": True}}}),
    Case("office-365-users-get-manager-v2-is-graph-users-manager", ("OpenApiConnection:office365users/Manager_V2",), MANAGER,
         {"Get_manager": _open_api("office365users", "Manager_V2", {"id": "a/b@contoso.example", "$select": "mail"}),
          "Who": {"type": "Compose", "runAfter": {"Get_manager": ["Succeeded"]}, "inputs": "@body('Get_manager')?['mail']"}},
         replies={"get-manager": {"mail": "boss@contoso.example"}},
         requests=[{"method": "GET", "url": "https://graph.microsoft.com/v1.0/users/a%2Fb@contoso.example/manager",
                    "params": {"$select": "mail"}}],
         outputs={"Who": "boss@contoso.example"}),
    Case("office-365-users-get-manager-v2-fails-when-none-is-set", ("OpenApiConnection:office365users/Manager_V2",), MANAGER,
         {"Get_manager": _open_api("office365users", "Manager_V2", {"id": "ana@contoso.example", "$select": "mail"})},
         replies={"get-manager": (404, {"error": {"code": "Request_ResourceNotFound"}})},
         status={"Get_manager": "Failed"}, outcome="failed"),
    Case("http-whose-host-is-computed-calls-the-provider-configured-for-it", ("Http",), HTTP,
         {"Next": {"type": "InitializeVariable", "runAfter": {},
                   "inputs": {"variables": [{"name": "Next Link", "type": "string", "value": "@triggerBody()?['next']"}]}},
          "Page": {"type": "Http", "runAfter": {"Next": ["Succeeded"]},
                   "inputs": {"method": "GET", "uri": "@variables('Next Link')"}}},
         body={"next": "https://graph.microsoft.com/v1.0/users?$skiptoken=X1"}, replies={"page": {"value": []}},
         requests=[{"method": "GET", "url": "https://graph.microsoft.com/v1.0/users?$skiptoken=X1"}],
         outputs={"Page": {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": {"value": []}}}),
    Case("http-whose-computed-host-has-no-provider-fails-naming-it", ("Http",), HTTP,
         {"Page": {"type": "Http", "runAfter": {}, "inputs": {"method": "GET", "uri": "@{triggerBody()?['base']}/items"}}},
         body={"base": "https://elsewhere.example.test"}, requests=[], status={"Page": "Failed"}, outcome="failed",
         error="no provider is configured for 'https://elsewhere.example.test'"),
    Case("sharepoint-delete-item-deletes-the-list-item-by-the-lists-id", ("OpenApiConnection:sharepointonline/DeleteItem",),
         SP_DELETE, {"Delete_item": _open_api("sharepointonline", "DeleteItem", {
             "dataset": "https://contoso.sharepoint.com/sites/hr", "table": "186b3c9f-e758-4e85-83d5-685946614a0a",
             "id": "@triggerBody()?['ID']"})},
         body={"ID": 7}, replies={"delete-item": ""},
         requests=[{"method": "POST", "url": "https://contoso.sharepoint.com/sites/hr/_api/web/lists"
                    "(guid'186b3c9f-e758-4e85-83d5-685946614a0a')/items(7)",
                    "headers": {"Accept": "application/json;odata=nometadata", "IF-MATCH": "*", "X-HTTP-Method": "DELETE"}}],
         status={"Delete_item": "Succeeded"}),
    Case("sharepoint-delete-item-by-the-lists-title", ("OpenApiConnection:sharepointonline/DeleteItem",), SP_DELETE,
         {"Delete_item": _open_api("sharepointonline", "DeleteItem", {
             "dataset": "https://contoso.sharepoint.com/sites/hr", "table": "Staff's list", "id": "12"})},
         replies={"delete-item": ""},
         requests=[{"method": "POST", "url": "https://contoso.sharepoint.com/sites/hr/_api/web/lists/"
                    "getbytitle('Staff''s%20list')/items(12)",
                    "headers": {"Accept": "application/json;odata=nometadata", "IF-MATCH": "*", "X-HTTP-Method": "DELETE"}}]),
    Case("outlook-send-an-email-v2-with-from-reply-to-and-attachments", ("OpenApiConnection:office365/SendEmailV2",),
         "https://learn.microsoft.com/graph/api/user-sendmail#example-2-create-a-message-with-a-file-attachment-and-send-the-message",
         {"Send": _open_api("office365", "SendEmailV2", {
             "emailMessage/To": "a@contoso.example", "emailMessage/Subject": "Report", "emailMessage/Body": "<p>Attached</p>",
             "emailMessage/From": "reports@contoso.example", "emailMessage/ReplyTo": "help@contoso.example",
             "emailMessage/Attachments": [{"Name": "r.txt", "ContentBytes": "@triggerBody()?['file']"}]})},
         body={"file": {"$content-type": "text/plain", "$content": "aGk="}}, replies={"send": {}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/me/sendMail", "json": {
             "message": {"subject": "Report", "body": {"contentType": "HTML", "content": "<p>Attached</p>"},
                         "toRecipients": [{"emailAddress": {"address": "a@contoso.example"}}],
                         "from": {"emailAddress": {"address": "reports@contoso.example"}},
                         "replyTo": [{"emailAddress": {"address": "help@contoso.example"}}],
                         "attachments": [{"@odata.type": "#microsoft.graph.fileAttachment", "name": "r.txt",
                                          "contentBytes": "aGk="}]},
             "saveToSentItems": True}}]),
    Case("teams-post-in-a-group-chat-as-the-user-is-a-graph-chat-message",
         ("OpenApiConnection:teams/PostMessageToConversation",), "https://learn.microsoft.com/graph/api/chat-post-messages",
         {"Post": _open_api("teams", "PostMessageToConversation", {
             "poster": "User", "location": "Group chat", "body/recipient": "19:70e0bb05@thread.v2",
             "body/messageBody": "<p>Hi @{triggerBody()?['who']}</p>"})},
         body={"who": "Ana"}, replies={"post": {"id": "m-3"}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/chats/19:70e0bb05@thread.v2/messages",
                    "json": {"body": {"contentType": "html", "content": "<p>Hi Ana</p>"}}}]),
    Case("teams-post-in-a-channel-reads-the-recipient-as-one-object-too",
         ("OpenApiConnection:teams/PostMessageToConversation",), CHANNEL,
         {"Post": _open_api("teams", "PostMessageToConversation", {
             "poster": "User", "location": "Channel", "body/recipient": {"groupId": "team-1", "channelId": "19:c@thread.tacv2"},
             "body/messageBody": "<p>Done</p>"})},
         replies={"post": {"id": "m-4"}},
         requests=[{"method": "POST", "url": "https://graph.microsoft.com/v1.0/teams/team-1/channels/19:c@thread.tacv2/messages",
                    "json": {"body": {"contentType": "html", "content": "<p>Done</p>"}}}]),
]

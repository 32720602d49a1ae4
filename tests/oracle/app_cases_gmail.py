"""Gmail (v2.1, v2.2) cases for ``app_oracle``: message.send, message.addLabels and draft.create, with the
Gmail API's replies (users.messages.send / modify: a Message resource; users.drafts.create: a Draft).

The MIME text (``raw``) is compared as ``app_oracle.gmail_raw`` reads it. n8n's attribution line
carries the n8n instance's id, which the scaffold cannot know: the cases turn it off.
"""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

GMAIL = "n8n-nodes-base.gmail"
OAUTH = Credential("gmailOAuth2", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                   "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
OFF = {"appendAttribution": False}
_SENT = {"id": "18c0f0a1b2c3d4e5", "threadId": "18c0f0a1b2c3d4e5", "labelIds": ["SENT"]}
_LABELLED = {"id": "18c0f0a1b2c3d4e5", "threadId": "18c0f0a1b2c3d4e5", "labelIds": ["INBOX", "Label_2070173096735304292"]}
_DRAFT = {"id": "r-5577106485306513213", "message": {"id": "18c0f0a1b2c3d4e6", "threadId": "18c0f0a1b2c3d4e6",
                                                      "labelIds": ["DRAFT"]}}
_ITEMS = ({"id": "18c0f0a1b2c3d4e5", "to": "ada@example.test", "subject": "Weekly report", "body": "<p>All <b>good</b></p>"},
          {"id": "18c0f0a1b2c3d4e7", "to": "bob@example.test", "subject": "Über café", "body": "Line one\nLine two"})


def _send(label: str, version: float, parameters: dict[str, object]) -> AppCase:
    return AppCase(f"gmail v{version:g} message.send {label}", GMAIL, version, parameters, OAUTH,
                   [Reply("POST", "/gmail/v1/users/me/messages/send", _SENT)], items=_ITEMS, view="gmail-raw")


CASES = [
    _send("html", 2.1, {"sendTo": "={{ $json.to }}", "subject": "={{ $json.subject }}", "message": "={{ $json.body }}",
                        "options": OFF}),
    _send("text", 2.1, {"sendTo": "redacted@example.invalid", "subject": "=Trades {{ $json.subject }}",
                        "emailType": "text", "message": "={{ $json.body }}", "options": OFF}),
    _send("text cc", 2.2, {"sendTo": "={{ $json.to }}", "subject": "Weekly Action Items", "emailType": "text",
                           "message": "=Hello\n\n{{ $json.body }}", "options": {**OFF, "ccList": "cc@example.test"}}),
    _send("html", 2.2, {"sendTo": "redacted@example.invalid", "subject": "Weekly Action Items",
                        "message": "={{ $json.body }}", "options": OFF}),
    AppCase("gmail v2.1 message.addLabels", GMAIL, 2.1,
            {"operation": "addLabels", "messageId": "={{ $json.id }}", "labelIds": ["Label_2070173096735304292"]},
            OAUTH, [Reply("POST", "/gmail/v1/users/me/messages/*/modify", _LABELLED)], items=_ITEMS),
    AppCase("gmail v2.1 message.addLabels literal id", GMAIL, 2.1,
            {"operation": "addLabels", "messageId": "{{ $json.id }}", "labelIds": ["Label_3092321957029092327"]},
            OAUTH, [Reply("POST", "/gmail/v1/users/me/messages/*/modify", _LABELLED)], items=_ITEMS[:1]),
    AppCase("gmail v2.1 draft.create", GMAIL, 2.1,
            {"resource": "draft", "subject": "={{ $json.subject }}", "message": "={{ $json.body }}", "options": {}},
            OAUTH, [Reply("POST", "/gmail/v1/users/me/drafts", _DRAFT)], items=_ITEMS, view="gmail-raw"),
]

"""Gmail v2.1/v2.2 thread.reply cases for ``app_oracle``: the message's headers read, the account's address, the reply sent.

The replies are the Gmail API's shapes (users.messages.get with format=metadata: a Message whose
payload holds the headers; users.getProfile; users.messages.send: a Message). The MIME text is
compared as ``app_oracle.gmail_raw`` reads it (addressing headers, In-Reply-To, References and
each part's type and text).
"""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

GMAIL = "n8n-nodes-base.gmail"
OAUTH = Credential("gmailOAuth2", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                   "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
_HEADERS = [{"name": "From", "value": "Ada Lovelace <ada@example.test>"},
            {"name": "To", "value": "me@example.test, Bob <bob@example.test>,carol@example.test"},
            {"name": "Subject", "value": "Printer jam"},
            {"name": "Message-ID", "value": "<CAF=abc123@mail.gmail.com>"},
            {"name": "Reply-To", "value": "support@example.test"}]
_MESSAGE = Reply("GET", "/gmail/v1/users/me/messages/*", {
    "id": "18c0f0a1b2c3d4e5", "threadId": "18c0f0a1b2c3d4e0", "labelIds": ["INBOX"],
    "payload": {"mimeType": "multipart/alternative", "headers": _HEADERS}, "sizeEstimate": 4321})
_PROFILE = Reply("GET", "/gmail/v1/users/me/profile", {"emailAddress": "me@example.test", "messagesTotal": 10,
                                                       "threadsTotal": 8, "historyId": "1234"})
_SENT = Reply("POST", "/gmail/v1/users/me/messages/send", {"id": "18c0f0a1b2c3d4f9", "threadId": "18c0f0a1b2c3d4e0",
                                                          "labelIds": ["SENT"]})
_ITEMS = ({"id": "18c0f0a1b2c3d4e5", "threadId": "18c0f0a1b2c3d4e0", "answer": "  Thanks, fixed.\nBest  "},)


def _reply(label: str, version: float, **params: object) -> AppCase:
    parameters = {"resource": "thread", "operation": "reply", "threadId": "={{ $json.threadId }}",
                  "messageId": "={{ $json.id }}", "message": "={{ $json.answer }}", "options": {}, **params}
    return AppCase(f"gmail v{version:g} thread.reply {label}", GMAIL, version, parameters, OAUTH,
                   [_MESSAGE, _PROFILE, _SENT], items=_ITEMS, view="gmail-raw")


CASES = [
    _reply("text (sender and other recipients)", 2.1),
    _reply("html, Reply-To, cc and sender name", 2.2, emailType="html",
           options={"ccList": "cc@example.test, Dan <dan@example.test>", "senderName": "Help Desk"}),
    _reply("to the sender only", 2.1, options={"replyToSenderOnly": True, "bccList": "audit@example.test"}),
]

"""Make's Gmail modules: the MIME message sent (decoded), a reply's thread headers, attachments listed."""

from __future__ import annotations

import asyncio
import base64
import email
from email.policy import default
from typing import Any

import httpx

from queue_core.compat import make


class GmailContext:
    def __init__(self, replies: list[Any]) -> None:
        self.replies, self.calls = list(replies), []  # type: ignore[var-annotated]

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
        self.calls.append((method, url, kwargs))
        reply = self.replies.pop(0)
        return httpx.Response(200, json=reply, request=httpx.Request(method, url))


def _sent(raw: str) -> email.message.EmailMessage:
    return email.message_from_bytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), policy=default)  # type: ignore[return-value]


def test_send_builds_the_html_message_with_its_attachment() -> None:
    ctx = GmailContext([{"id": "m1", "threadId": "t1", "labelIds": ["SENT"]}])
    out = asyncio.run(make.googlemail.send(ctx, "gmail", step="s", to=["ada@example.com"], subject="Your proposal",
                                           html="<p>Ready</p>", sender="Brad <brad@example.com>", cc=["c@example.com"],
                                           attachments=[{"filename": "link.txt", "data": "https://x"}]))
    assert out == {"id": "m1", "threadId": "t1", "labelIds": ["SENT"]}
    message = _sent(ctx.calls[0][2]["json"]["raw"])
    assert (message["To"], message["Cc"], message["Subject"], message["From"]) == (
        "ada@example.com", "c@example.com", "Your proposal", "Brad <brad@example.com>")
    parts = list(message.iter_parts())
    assert parts[0].get_content_type() == "text/html" and parts[0].get_content().strip() == "<p>Ready</p>"
    assert parts[1].get_filename() == "link.txt" and parts[1].get_content() == "https://x"


def test_send_without_a_recipient_fails() -> None:
    try:
        asyncio.run(make.googlemail.send(GmailContext([]), "gmail", step="s", to=[""], subject="x", html=""))
    except make.ModuleFailed as exc:
        assert "no recipient" in str(exc)
    else:
        raise AssertionError("sent without a recipient")


def test_reply_answers_the_threads_last_sender_in_the_thread() -> None:
    thread = {"messages": [{"payload": {"headers": [
        {"name": "From", "value": "Ada <ada@example.com>"}, {"name": "Subject", "value": "Invoice 7"},
        {"name": "Message-ID", "value": "<abc@mail>"}]}}]}
    ctx = GmailContext([thread, {"id": "m3", "threadId": "t2", "labelIds": ["SENT"]}])
    asyncio.run(make.googlemail.reply(ctx, "gmail", step="s", thread="t2", html="<p>Fix it</p>"))
    assert ctx.calls[0][:2] == ("GET", "https://gmail.googleapis.com/gmail/v1/users/me/threads/t2")
    body = ctx.calls[1][2]["json"]
    message = _sent(body["raw"])
    assert body["threadId"] == "t2"
    assert (message["To"], message["Subject"], message["In-Reply-To"]) == ("Ada <ada@example.com>", "Re: Invoice 7", "<abc@mail>")


def test_list_attachments_one_bundle_each_with_data() -> None:
    message = {"payload": {"parts": [{"mimeType": "text/plain", "body": {"data": ""}},
                                     {"mimeType": "application/pdf", "filename": "inv.pdf",
                                      "body": {"attachmentId": "a1", "size": 3}}]}}
    ctx = GmailContext([message, {"data": base64.urlsafe_b64encode(b"PDF").decode()}])
    out = asyncio.run(make.googlemail.list_attachments(ctx, "gmail", step="s", message="m2"))
    assert out == [{"filename": "inv.pdf", "mimeType": "application/pdf", "size": 3, "data": b"PDF"}]
    assert ctx.calls[1][1] == "https://gmail.googleapis.com/gmail/v1/users/me/messages/m2/attachments/a1"


def test_email_app_sends_the_message_over_smtp() -> None:
    ctx = GmailContext([{"accepted": ["ada@example.com"]}])
    out = asyncio.run(make.googlemail.smtp_send(ctx, "smtp", step="s", sender="shop@example.com", to=["ada@example.com"],
                                                subject="Order 7", content="Hi Ada", cc=["c@example.com"]))
    assert out == {}
    method, url, kwargs = ctx.calls[0]
    mail = kwargs["json"]
    assert (method, url, mail["from"], mail["to"]) == ("SMTP", "/send", "shop@example.com", ["ada@example.com", "c@example.com"])
    message = email.message_from_string(mail["message"], policy=default)
    assert (message["Subject"], message["To"], message.get_content().strip()) == ("Order 7", "ada@example.com", "Hi Ada")


def test_email_app_without_from_uses_the_connection_address_setting(monkeypatch) -> None:
    monkeypatch.delenv("MAKE_EMAIL_FROM", raising=False)
    try:
        asyncio.run(make.googlemail.smtp_send(GmailContext([]), "smtp", step="s", sender="", to=["a@example.com"], subject="x",
                                              content="y"))
    except make.ModuleFailed as exc:
        assert "MAKE_EMAIL_FROM" in str(exc)
    else:
        raise AssertionError("sent with no sender")
    monkeypatch.setenv("MAKE_EMAIL_FROM", "orders@example.com")
    ctx = GmailContext([{"accepted": ["a@example.com"]}])
    asyncio.run(make.googlemail.smtp_send(ctx, "smtp", step="s", sender="", to=["a@example.com"], subject="x", content="y"))
    assert ctx.calls[0][2]["json"]["from"] == "orders@example.com"

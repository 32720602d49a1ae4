"""An SMTP provider through the gateway: live calls reach a loopback mail server; shadow calls never do."""

from __future__ import annotations

import json
from email import message_from_bytes, policy
from typing import Any

import httpx
import pytest

from queue_core.compat import n8n
from queue_core.errors import TerminalError
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.provider import parse_providers
from tests.support import smtp_server
from tests.support.call_context import MemoryCallContext, call

PROVIDERS = parse_providers({"mail": {"base_url": "smtp://mail", "dsn_env": "CUTOVER_TEST_SMTP_URL"}})


def _mail(to: str = "ada@example.test") -> dict[str, Any]:
    return n8n.email_send(sender="Team <team@example.test>", to=to, subject="Hi", text="plain", html="<b>rich</b>",
                          bcc="audit@example.test")


async def _send(gateway: Gateway, job: MemoryCallContext, mail: dict[str, Any], step: str = "send") -> httpx.Response:
    return await call(gateway, job, "mail", "SMTP", "/send", step=step, json=mail)


async def test_a_live_call_sends_the_message_and_answers_as_nodemailer_and_the_url_is_in_no_record() -> None:
    job = MemoryCallContext()
    with smtp_server.serving() as server:
        url = f"smtp://127.0.0.1:{server.server_address[1]}?starttls=false&name=cutover.test"
        async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_SMTP_URL": url}) as gateway:
            response = await _send(gateway, job, _mail())
    (received,) = server.received
    assert received.sender == "team@example.test" and received.recipients == ["ada@example.test", "audit@example.test"]
    message = message_from_bytes(received.data, policy=policy.default)
    assert message["Bcc"] is None and message["Message-ID"] and message["Date"]
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
    answer = response.json()
    assert answer["accepted"] == ["ada@example.test", "audit@example.test"] and answer["rejected"] == []
    assert answer["response"] == "250 OK: message accepted" and answer["messageId"] == message["Message-ID"]
    assert n8n.email_items(response) == [{"json": answer}]
    assert url not in json.dumps([job.calls, job.events, job.intents], default=str)


async def test_a_message_every_recipient_of_which_is_refused_fails_the_call() -> None:
    with smtp_server.serving() as server:
        url = f"smtp://127.0.0.1:{server.server_address[1]}?starttls=false"
        async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_SMTP_URL": url}) as gateway:
            with pytest.raises(TerminalError, match="550"):
                await _send(gateway, MemoryCallContext(), {**_mail("refuse@example.test"), "to": ["refuse@example.test"]})
    assert server.received == []


async def test_a_shadow_call_is_answered_offline_and_never_reaches_the_mail_server() -> None:
    def recorded(automation: str, trigger: str | None, step: str, request: OutboundRequest) -> RecordedResponse | None:
        return RecordedResponse(json=[{"accepted": ["ada@example.test"]}]) if step == "send" else None

    job = MemoryCallContext(mode="shadow")
    with smtp_server.serving() as server:
        url = f"smtp://127.0.0.1:{server.server_address[1]}?starttls=false"  # a call reaching it would be received
        async with Gateway(PROVIDERS, None, response_source=recorded, environ={"CUTOVER_TEST_SMTP_URL": url}) as gateway:
            answered = n8n.email_items(await _send(gateway, job, _mail()))
            synthetic = n8n.email_items(await _send(gateway, job, _mail(), step="other"))
    assert server.received == []
    assert answered == [{"json": {"accepted": ["ada@example.test"]}}] and synthetic[0]["json"]["synthetic"] is True
    intent = job.intents[0]
    assert intent["method"] == "SMTP" and intent["mode"] == "shadow" and "Subject: Hi" in intent["body"]["message"]

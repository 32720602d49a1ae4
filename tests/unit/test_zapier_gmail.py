"""Gmail Send Email steps (a real export's params: to as a list, body_type, from): the MIME message they send."""

from __future__ import annotations

import asyncio
import base64
from email import message_from_bytes, policy
from typing import Any

from queue_core import Trigger
from tests.conformance.zapier.runner import FakeContext, function_of, scaffold_of, zapfile


def _gmail(**params: Any) -> dict[str, Any]:
    return {"type_of": "write", "selected_api": "GoogleMailV2CLIAPI@2.5.0", "action": "message",
            "params": {"send_to_groups": False, "body_type": "plain", "from": "ops@example.test", "file": [], **params}}


def _sent(node: dict[str, Any], trigger: dict[str, Any]) -> tuple[Any, Any]:
    made = scaffold_of(zapfile(node))
    row = next(r for r in made.rows if r.node.startswith("GoogleMail"))
    assert row.status == "translated", row.why
    ctx = FakeContext(({"id": "m1", "threadId": "t1", "labelIds": ["SENT"]},))
    asyncio.run(function_of(made)(ctx, Trigger("t", None, {}, trigger, "test")))
    (request,) = ctx.sent
    assert (request["method"], request["url"]) == ("POST", "/gmail/v1/users/me/messages/send")
    return message_from_bytes(base64.urlsafe_b64decode(request["json"]["raw"]), policy=policy.default), request


def test_send_email_builds_the_message_from_the_mapped_fields() -> None:
    message, _ = _sent(_gmail(to=["{{1__email}}", "boss@example.test"], subject="Hi {{1__name}}",
                              body="Hello {{1__name}},\nwelcome.", cc="a@example.test, b@example.test",
                              from_name="Ops"), {"email": "ada@example.test", "name": "Ada"})
    assert message["To"] == "ada@example.test, boss@example.test"
    assert message["Cc"] == "a@example.test, b@example.test"
    assert message["From"] == "Ops <ops@example.test>" and message["Subject"] == "Hi Ada"
    assert message.get_content_type() == "text/plain" and message.get_content() == "Hello Ada,\nwelcome.\n"


def test_an_html_body_is_an_html_part() -> None:
    message, _ = _sent(_gmail(to=["ada@example.test"], subject="s", body="<b>{{1__n}}</b>", body_type="html"), {"n": 3})
    assert message.get_content_type() == "text/html" and "<b>3</b>" in message.get_content()


def test_an_attachment_or_a_read_output_is_a_todo_naming_it() -> None:
    made = scaffold_of(zapfile(_gmail(to=["a@example.test"], body="x", file=["https://files.example.test/a.pdf"])))
    row = next(r for r in made.rows if r.node.startswith("GoogleMail"))
    assert row.status == "todo" and "attachment" in row.why and "messages/send" in row.why
    read = scaffold_of(zapfile(_gmail(to=["a@example.test"], body="x"), (
        {"id": 3, "parent_id": 2, "type_of": "write", "selected_api": "WebHookAPI", "action": "get",
         "params": {"url": "https://api.example.test/{{2__id}}"}},)))
    assert next(r for r in read.rows if r.node.startswith("GoogleMail")).status == "todo"

"""Send Email v2: the SMTP call's body (envelope and message) and what is left a TODO, naming why."""

from __future__ import annotations

from email import message_from_string, policy

import pytest

from queue_core.compat import n8n
from queue_core.errors import ConfigError
from queue_core.provider import ProviderKind, parse_provider
from tests.support.app_calls import scaffold_node


def _node(**params: object) -> dict[str, object]:
    return {"name": "Mail", "type": "n8n-nodes-base.emailSend", "typeVersion": 2, "parameters": {
        "fromEmail": "team@example.test", "toEmail": "={{ $json.email }}", "subject": "Hi", **params},
        "credentials": {"smtp": {"id": "1", "name": "SMTP"}}}


def test_the_default_format_of_v2_is_text_so_an_html_field_is_not_sent() -> None:
    status, source = scaffold_node(_node(html="<p>ignored</p>", text="=Hi {{ $json.name }}"))
    assert status.startswith("translated")
    assert "ctx.call('smtp', 'SMTP', '/send', json=mail" in source and "ignored" not in source


def test_the_html_format_sends_the_html_and_the_options_become_cc_bcc_and_reply_to() -> None:
    _, source = scaffold_node(_node(emailFormat="html", html="<p>x</p>", options={"ccEmail": "c@x.test",
                                                                                 "replyTo": "r@x.test"}))
    assert "html='<p>x</p>'" in source and "cc='c@x.test'" in source and "reply_to='r@x.test'" in source


@pytest.mark.parametrize(("node", "why"), [
    (_node(options={"attachments": "data"}), "binary properties 'data'"),
    (_node(emailFormat="html", options={"appendAttribution": True}), "instance's id"),
    (_node(operation="sendAndWait"), "waits for a reply"),
    ({**_node(), "typeVersion": 2.1}, "v2.1 is not translated"),
    ({**_node(attachments="file"), "typeVersion": 1}, "binary properties 'file'"),
    ({**_node(), "onError": "continueRegularOutput"}, "continue on error"),
])
def test_what_is_not_translated_is_a_todo_naming_why_and_the_call(node: dict[str, object], why: str) -> None:
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and why in status


def test_v1_sends_its_text_and_html_fields_and_its_cc_and_bcc() -> None:
    status, source = scaffold_node({**_node(text="t", html="<p>h</p>", ccEmail="c@x.test", bccEmail="b@x.test",
                                            options={"replyTo": "r@x.test"}), "typeVersion": 1})
    assert status.startswith("translated")
    assert all(f in source for f in ("text='t'", "html='<p>h</p>'", "cc='c@x.test'", "bcc='b@x.test'", "reply_to='r@x.test'"))


def test_an_empty_part_is_left_out_and_with_neither_the_body_is_empty_text() -> None:
    html_only = n8n.email_send(sender="s@x.test", to="t@x.test", subject="s", text="", html="<p>h</p>")
    assert message_from_string(html_only["message"], policy=policy.default).get_content_type() == "text/html"
    neither = n8n.email_send(sender="s@x.test", to="t@x.test", subject="s", text="", html="")
    assert message_from_string(neither["message"], policy=policy.default).get_content().strip() == ""


def test_the_message_has_the_headers_n8n_sends_and_bcc_only_in_the_envelope() -> None:
    mail = n8n.email_send(sender="Team <team@x.test>", to="A <a@x.test>, b@x.test", subject="Grüße", cc="c@x.test",
                          bcc="hidden@x.test", reply_to="r@x.test", text="plain", html="<b>rich</b>")
    assert mail["from"] == "team@x.test" and mail["to"] == ["a@x.test", "b@x.test", "c@x.test", "hidden@x.test"]
    message = message_from_string(mail["message"], policy=policy.default)
    assert message["Subject"] == "Grüße" and message["Bcc"] is None and message["Date"] is None
    assert message["Reply-To"] == "r@x.test" and message.get_content_type() == "multipart/alternative"
    assert [p.get_content() for p in message.iter_parts()] == ["plain", "<b>rich</b>"]


def test_a_field_is_made_text_as_to_mail_string_makes_it_and_attribution_is_appended_to_the_text() -> None:
    assert [n8n.email_send(sender="s@x.test", to="t@x.test", subject=v, text="t")["message"].count("Subject: " + s)
            for v, s in ((3.0, "3"), (True, "true"), ({"a": 1}, '{"a":1}'))] == [1, 1, 1]
    mail = n8n.email_send(sender="s@x.test", to="t@x.test", subject="s", text="Body", attribution=True)
    assert message_from_string(mail["message"], policy=policy.default).get_content().replace("\r\n", "\n").startswith(
        "Body\n\n---\nThis email was sent automatically with n8n\nhttps://n8n.io")


def test_an_smtp_provider_is_a_kind_of_its_own_and_needs_its_url_in_dsn_env() -> None:
    config = parse_provider("mail", {"base_url": "smtp://mail", "dsn_env": "MAIL_URL"})
    assert config.kind is ProviderKind.SMTP and config.dsn_env == "MAIL_URL"
    assert parse_provider("mail", {"kind": "smtp", "dsn_env": "MAIL_URL"}).base_url == "smtp://mail"
    with pytest.raises(ConfigError, match="dsn_env"):
        parse_provider("mail", {"base_url": "smtp://mail"})
    with pytest.raises(ConfigError, match="smtp://<name>"):
        parse_provider("mail", {"kind": "smtp", "base_url": "smtp://user:pw@host:25", "dsn_env": "MAIL_URL"})

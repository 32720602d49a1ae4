"""Gmail thread.reply's runtime: the reply's recipients and MIME text as n8n's replyToEmail builds them."""

from __future__ import annotations

import base64
from email import message_from_bytes, policy

import pytest

from queue_core.compat._n8n_gmail import _emails_input, reply_mime, reply_recipients
from queue_core.errors import NodeFailed

HEADERS = [{"name": "From", "value": "ada@example.test"}, {"name": "Reply-To", "value": "Help <help@example.test>"},
           {"name": "To", "value": "me@example.test, Bob <bob@example.test>"}]


def test_the_reply_goes_to_the_sender_and_the_other_recipients_and_from_v2_2_to_reply_to() -> None:
    assert reply_recipients(HEADERS, "me@example.test", sender_only=False, recipients_only=False, version=2.1) == \
        "<ada@example.test>,  Bob <bob@example.test>"
    assert reply_recipients(HEADERS, "me@example.test", sender_only=True, recipients_only=False, version=2.2) == \
        "Help <help@example.test>"


def test_the_mime_text_carries_the_thread_headers_and_a_bad_cc_fails_as_n8n_does() -> None:
    raw = reply_mime(to="<ada@example.test>, Bob <bob@example.test>", subject="Jam", message_id="<x@y>", body="ok",
                     html=False, sender="Desk <me@example.test>")
    message = message_from_bytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), policy=policy.default)
    assert (message["To"], message["From"], message["In-Reply-To"], message["References"]) == (
        "ada@example.test, Bob <bob@example.test>", "Desk <me@example.test>", "<x@y>", "<x@y>")
    assert message.get_content_type() == "text/plain" and message.get_content().strip() == "ok"
    with pytest.raises(NodeFailed, match="'nobody' in the 'CC' field"):
        _emails_input("a@b.test, nobody", "CC")

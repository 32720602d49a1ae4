"""n8n's Send Email node (v1; v2, send) at run time: the message nodemailer builds, as an SMTP provider call.

:func:`email_send` turns the node's fields into the body of ``ctx.call(provider, "SMTP", "/send",
json=…)`` (``queue_core.gateway.smtp``): the envelope (the sender's address; every address of To, Cc
and Bcc) and the message: ``From``, ``To``, ``Cc``, ``Reply-To``, ``Subject`` (Bcc is in the envelope
only), one ``text/plain`` or ``text/html`` part, or both as ``multipart/alternative`` (an empty
one is left out, as nodemailer leaves it out; neither: an empty ``text/plain``). Each field is first made text as n8n's ``toMailString`` makes it (an object as its JSON).
:func:`email_items` is the node's output: the server's answer (nodemailer's ``info``); in shadow
and dry-run the node's recorded output, which is its items already.
"""

from __future__ import annotations

import json
from email.message import EmailMessage, Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.policy import SMTP
from email.utils import getaddresses
from typing import Any

from ._n8n_records import _body, offline, recorded_items

Item = dict[str, Any]
ATTRIBUTION_TEXT = "\n\n---\nThis email was sent automatically with n8n\nhttps://n8n.io"


def mail_string(value: Any) -> str | None:
    """Return a field as n8n's ``toMailString`` makes it: None stays unset, text as it is, else JSON or its text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _addresses(*fields: str | None) -> list[str]:
    return [address for _, address in getaddresses([f for f in fields if f]) if address]


def email_send(*, sender: Any, to: Any, subject: Any, text: Any = None, html: Any = None, cc: Any = None,
               bcc: Any = None, reply_to: Any = None, attribution: bool = False) -> dict[str, Any]:
    """Return the SMTP call's body: ``{"from", "to", "message"}`` (no Date or Message-ID: the transport's).

    ``attribution`` appends n8n's text attribution to the text part, as the node's option does.
    """
    sender, to, subject, cc, bcc, reply_to = (mail_string(v) for v in (sender, to, subject, cc, bcc, reply_to))
    text, html = mail_string(text), mail_string(html)
    if attribution:
        text = ("undefined" if text is None else text) + ATTRIBUTION_TEXT
    parts = [(body, subtype) for body, subtype in ((text or "", "plain"), (html or "", "html")) if body]  # "" is none
    message: Message = EmailMessage(policy=SMTP)
    if len(parts) == 2:  # parts end where the boundary begins, with no newline added
        message = MIMEMultipart("alternative", policy=SMTP)
        for body, subtype in parts:
            message.attach(MIMEText(body, subtype, "utf-8"))
    for header, value in (("From", sender), ("To", to), ("Cc", cc), ("Reply-To", reply_to), ("Subject", subject)):
        if value:
            message[header] = value
    if len(parts) == 1 and isinstance(message, EmailMessage):
        message.set_content(parts[0][0], subtype=parts[0][1])
    elif not parts:  # neither: an empty text/plain body (set_content would write a line break)
        message["MIME-Version"], message["Content-Type"] = "1.0", "text/plain"
        message.set_payload("")
    envelope_from = next(iter(_addresses(sender)), "")
    return {"from": envelope_from, "to": _addresses(to, cc, bcc), "message": message.as_string()}


def email_items(response: Any) -> list[Item]:
    """Return the node's output of one send: the server's answer, or the recorded output offline."""
    body = _body(response)
    if offline(response):
        return recorded_items(body)
    return [{"json": body if isinstance(body, dict) else {"response": body}}]

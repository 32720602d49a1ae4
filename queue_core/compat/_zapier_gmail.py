"""Gmail "Send Email" steps of scaffolded Zaps (``GoogleMailV2CLIAPI`` ``message``): one Gmail API send.

A real export's step holds ``to`` (a list), ``cc``/``bcc``, ``subject``, ``body`` with ``body_type``
``plain`` or ``html``, ``from`` (the account's address) and ``from_name``, ``reply_to``. The message is
built as MIME (RFC 5322 headers, one text or HTML part) and sent base64url-encoded as Gmail's
``users.messages.send`` takes it (https://developers.google.com/gmail/api/reference/rest/v1/users.messages/send).
"""

from __future__ import annotations

import base64
from email.message import EmailMessage
from email.utils import formataddr
from typing import Any

from ..errors import TerminalError


def addresses(value: Any) -> str:
    """Return a field of addresses as a header: a list, or comma-separated text, joined by ``", "``."""
    from ._zapier_filter import text

    items = value if isinstance(value, list) else text(value).split(",")
    return ", ".join(a for a in (text(v).strip() for v in items) if a)


def mime(*, to: Any, subject: Any, body: Any, html: bool, cc: Any = None, bcc: Any = None, reply_to: Any = None,
         sender: Any = None, from_name: Any = None) -> bytes:
    """Return the MIME message a Send Email step sends."""
    from ._zapier_filter import text

    message = EmailMessage()
    if sender:
        message["From"] = formataddr((text(from_name), text(sender))) if from_name else text(sender)
    for header, value in (("To", to), ("Cc", cc), ("Bcc", bcc), ("Reply-To", reply_to)):
        joined = addresses(value)
        if joined:
            message[header] = joined
    message["Subject"] = text(subject)
    message.set_content(text(body), subtype="html" if html else "plain")
    return message.as_bytes()


async def send(ctx: Any, provider: str, *, step: str, to: Any, subject: Any, body: Any, body_type: Any = "plain",
               cc: Any = None, bcc: Any = None, reply_to: Any = None, sender: Any = None,
               from_name: Any = None) -> dict[str, Any]:
    """Send Email: POST users/me/messages/send ``{raw}``; the API's answer (the message's id, threadId, labelIds)."""
    from ._zapier_filter import text

    if not addresses(to):
        raise TerminalError(f"Gmail {step!r}: no recipient (To is empty)")
    kind = text(body_type).strip().lower() or "plain"
    if kind not in ("plain", "html"):
        raise TerminalError(f"Gmail {step!r}: body type {kind!r} is not plain or html")
    raw = mime(to=to, subject=subject, body=body, html=kind == "html", cc=cc, bcc=bcc, reply_to=reply_to,
               sender=sender, from_name=from_name)
    response = await ctx.call(provider, "POST", "/gmail/v1/users/me/messages/send", step=step,
                              json={"raw": base64.urlsafe_b64encode(raw).decode()})
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise TerminalError(f"Gmail {step!r}: the answer is not a JSON object")
    return answer

"""Gmail v2 *Reply* to a thread (``thread.reply``), as n8n 1.123's node runs it (``utils/replyToEmail``).

Per item, n8n reads the message replied to (``GET messages/{id}?format=metadata``: its headers and
thread) and the account's address (``GET profile``), then sends (``POST messages/send``, still with the read's ``format=metadata`` query) a MIME
message with the thread's id: To is the message's sender (``From``; from v2.2 its ``Reply-To``
when it has one) and its other recipients (``To``, less the account's own address), Subject is
the message's own, ``In-Reply-To`` and ``References`` its ``Message-ID``. The MIME text is built
with Python's ``email`` package (the parts and headers nodemailer's mailcomposer writes for it).
"""

from __future__ import annotations

import base64
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formataddr, getaddresses
from typing import Any

from ..errors import NodeFailed
from ._n8n_js import text

GMAIL = "https://gmail.googleapis.com/gmail/v1/users/me"


def _emails_input(value: Any, field: str) -> str:
    """n8n's ``prepareEmailsInput``: each address checked for ``@`` and put in angle brackets."""
    out = ""
    for entry in text(value).split(","):
        email = entry.strip()
        if "@" not in email:
            raise NodeFailed(f"Invalid email address (The email address '{email}' in the '{field}' field isn't valid)")
        out += f"{email}," if "<" in email and ">" in email else f"<{email}>, "
    return out


def _address_list(value: str) -> str:
    """Return an address list as mailcomposer writes it: ``Name <a@b>``, or ``a@b`` with no name."""
    pairs = [(name, address.strip()) for name, address in getaddresses([value]) if address.strip()]
    return ", ".join(formataddr((name, address)) if name else address for name, address in pairs)


def _message_id(value: str) -> str:
    return value if value.startswith("<") else f"<{value}>"


def reply_recipients(headers: list[dict[str, Any]], own: str, *, sender_only: bool, recipients_only: bool,
                     version: float) -> str:
    """Return the reply's To as n8n builds it from the message's headers (``own``: the account's address)."""
    names = [text(h.get("name")).lower() for h in headers]
    reply_to = "reply-to" if version >= 2.2 and "reply-to" in names else "from"
    to: list[str] = []
    for header in headers:
        name, value = text(header.get("name")).lower(), text(header.get("value"))
        if name == reply_to and not recipients_only:
            to.append(value if "<" in value and ">" in value else f"<{value}>")
        if name == "to" and not sender_only:
            for email in value.split(","):
                if own in email:
                    continue
                to.append(email if "<" in email and ">" in email else f"<{email}>")
    return ", ".join(dict.fromkeys(to))


def reply_mime(*, to: str, subject: str, message_id: str, body: str, html: bool, sender: str = "", cc: str = "",
               bcc: str = "") -> str:
    """Return the base64url MIME text of the reply (``raw`` of users.messages.send)."""
    email = EmailMessage(policy=SMTP)
    for header, value in (("From", sender), ("To", to), ("Cc", cc), ("Bcc", bcc)):
        listed = _address_list(value) if value else ""
        if listed:
            email[header] = listed
    if message_id:
        email["In-Reply-To"] = _message_id(message_id)
        email["References"] = " ".join(_message_id(part) for part in message_id.split())
    email["Subject"] = subject
    email.set_content(body, subtype="html" if html else "plain")
    return base64.urlsafe_b64encode(email.as_bytes()).decode("ascii").rstrip("=")


async def gmail_thread_reply(ctx: Any, provider: str, message_id: Any, *, message: Any, html: bool,
                             options: dict[str, Any], version: float, step: str) -> dict[str, Any]:
    """Reply to the message ``message_id`` in its thread as n8n's node does; return Gmail's answer (the item's json)."""
    if options.get("replyToSenderOnly") and options.get("replyToRecipientsOnly"):
        raise NodeFailed('Both "Reply to Sender Only" and "Reply to Recipient Only" cannot be enabled at the same '
                         "time. Please select only one option.")
    cc = _emails_input(options["ccList"], "CC") if options.get("ccList") else ""
    bcc = _emails_input(options["bccList"], "BCC") if options.get("bccList") else ""
    read = await ctx.call(provider, "GET", f"{GMAIL}/messages/{text(message_id)}", params={"format": "metadata"},
                          step=step)
    found = read.json() or {}
    headers = list((found.get("payload") or {}).get("headers") or [])

    def header(name: str) -> str:
        return next((text(h.get("value")) for h in headers if text(h.get("name")).lower() == name), "")
    profile = await ctx.call(provider, "GET", f"{GMAIL}/profile", step=step)
    own = text((profile.json() or {}).get("emailAddress"))
    to = reply_recipients(headers, own, sender_only=bool(options.get("replyToSenderOnly")),
                          recipients_only=bool(options.get("replyToRecipientsOnly")), version=version)
    sender = f"{text(options['senderName'])} <{own}>" if options.get("senderName") else ""
    raw = reply_mime(to=to, subject=header("subject"), message_id=header("message-id"), body=text(message).strip(),
                     html=html, sender=sender, cc=cc, bcc=bcc)
    # n8n sends the reply with the query object it read the message with (format=metadata) still set
    sent = await ctx.call(provider, "POST", f"{GMAIL}/messages/send", json={"raw": raw, "threadId": found.get("threadId")},
                          params={"format": "metadata"}, step=step)
    answer: dict[str, Any] = sent.json()
    return answer

"""Make's Gmail modules at run time (``make.googlemail.send(…)``): Gmail API v1 calls and Make's bundles.

- Send an email (``ActionSendEmail`` v2, ``sendAnEmail`` v4 with an HTML body) and Reply to an
  email (``replyToAnEmail``): ``POST users/me/messages/send`` with the base64url MIME message
  (``raw``; a reply also the ``threadId``, and ``In-Reply-To`` / ``References`` of the thread's
  last message, read first); the bundle is the API's answer (``id``, ``threadId``, ``labelIds``).
- List email attachments (``listEmailAttachments``): the message read (``format=full``), then each
  attachment's data; one bundle per attachment: ``filename``, ``mimeType``, ``size``, ``data``.
- Watch emails (``triggerWatchNewEmails``): a poller (``_make_poll``): the search's messages newer
  than the last poll, each read in full and shaped as Make's bundle.

In a shadow replay the first call's answer is the module's recorded output: it is returned as it is.
"""

from __future__ import annotations

import base64
import mimetypes
import os
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import getaddresses
from typing import Any

from ..errors import ModuleFailed
from ._make_filter import number, text
from ._make_google import bundles_of, recorded
from ._make_poll import positive_limit, start_items
from ._n8n_email import email_send

GMAIL = "https://gmail.googleapis.com/gmail/v1/users/me"
FROM_SETTING = "MAKE_EMAIL_FROM"  # the Email connection's address, when the module maps no From

__all__ = ["FROM_SETTING", "GMAIL", "list_attachments", "message_bundle", "mime", "reply", "send", "smtp_send", "watch_emails"]


def _addresses(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value] if value not in (None, "") else []
    return [text(a).strip() for a in items if text(a).strip()]


def _data(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return text(value).encode("utf-8")


def mime(*, to: Any, subject: Any, html: Any, sender: Any = "", cc: Any = None, bcc: Any = None,
         attachments: Any = None, headers: dict[str, str] | None = None) -> str:
    """Return the base64url MIME message (``raw``): an HTML body, each attachment a part of its own."""
    message = EmailMessage(policy=SMTP)
    for header, value in (("From", ", ".join(_addresses(sender))), ("To", ", ".join(_addresses(to))),
                          ("Cc", ", ".join(_addresses(cc))), ("Bcc", ", ".join(_addresses(bcc)))):
        if value:
            message[header] = value
    message["Subject"] = text(subject)
    for header, value in (headers or {}).items():
        message[header] = value
    message.set_content(text(html), subtype="html")
    for attachment in attachments or []:
        if not isinstance(attachment, dict) or attachment.get("data") in (None, ""):
            continue
        filename = text(attachment.get("filename")) or "attachment"
        kind = (mimetypes.guess_type(filename)[0] or "application/octet-stream").split("/")
        message.add_attachment(_data(attachment["data"]), maintype=kind[0], subtype=kind[1], filename=filename)
    return base64.urlsafe_b64encode(message.as_bytes()).decode("ascii").rstrip("=")


def _json(response: Any, what: str) -> Any:
    try:
        body = response.json()
    except ValueError:
        raise ModuleFailed(f"Gmail {what}: the answer is not JSON ({response.text[:200]!r})") from None
    return body


async def send(ctx: Any, provider: str, *, step: str, to: Any, subject: Any, html: Any, sender: Any = "",
               cc: Any = None, bcc: Any = None, attachments: Any = None) -> Any:
    """Send an email: ``POST messages/send`` with the MIME message; the API's answer."""
    if not _addresses(to):
        raise ModuleFailed("Gmail Send an email: no recipient (To)")
    raw = mime(to=to, subject=subject, html=html, sender=sender, cc=cc, bcc=bcc, attachments=attachments)
    response = await ctx.call(provider, "POST", f"{GMAIL}/messages/send", step=step, json={"raw": raw})
    found = recorded(response)
    return found if found is not None else _json(response, "Send an email")


def _header(headers: list[dict[str, Any]], wanted: str) -> str:
    return next((text(h.get("value")) for h in headers if text(h.get("name")).lower() == wanted.lower()), "")


async def reply(ctx: Any, provider: str, *, step: str, thread: Any, html: Any, mode: Any = "sender",
                sender: Any = "", attachments: Any = None) -> Any:
    """Reply to an email: read the thread, answer its last message's sender (``mode`` "sender") or
    everyone on it ("all"), in the thread, with ``Re:`` its subject; the send's answer."""
    thread_id = text(thread)
    response = await ctx.call(provider, "GET", f"{GMAIL}/threads/{thread_id}", step=step,
                              params={"format": "metadata"})
    found = recorded(response)
    if found is not None:
        return found
    messages = (_json(response, "Reply to an email") or {}).get("messages") or []
    if not messages:
        raise ModuleFailed(f"Gmail Reply to an email: thread {thread_id!r} has no message")
    headers = (messages[-1].get("payload") or {}).get("headers") or []
    origin = _header(headers, "Reply-To") or _header(headers, "From")
    to = [origin] + ([a for a in (_header(headers, "To"), _header(headers, "Cc")) if a] if text(mode) == "all" else [])
    subject = _header(headers, "Subject")
    message_id = _header(headers, "Message-ID")
    refs = " ".join(part for part in (_header(headers, "References"), message_id) if part)
    raw = mime(to=to, subject=subject if subject.lower().startswith("re:") else f"Re: {subject}", html=html,
               sender=sender, attachments=attachments,
               headers={"In-Reply-To": message_id, "References": refs} if message_id else None)
    sent = await ctx.call(provider, "POST", f"{GMAIL}/messages/send", step=step, json={"raw": raw, "threadId": thread_id})
    return _json(sent, "Reply to an email")


def _parts(payload: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [payload]
    while stack:
        part = stack.pop(0)
        out.append(part)
        stack[:0] = [p for p in part.get("parts") or [] if isinstance(p, dict)]
    return out


def _decoded(part: dict[str, Any]) -> str:
    data = (part.get("body") or {}).get("data")
    if not data:
        return ""
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)).decode("utf-8", "replace")


async def list_attachments(ctx: Any, provider: str, *, step: str, message: Any, data: bool = True,
                           attachments: bool = True, media: bool = False) -> list[Any]:
    """List email attachments: one bundle per attached file of the message (its data fetched when asked):
    ``attachments`` the parts attached, ``media`` the inline ones (``Content-Disposition: inline``)."""
    message_id = text(message)
    response = await ctx.call(provider, "GET", f"{GMAIL}/messages/{message_id}", step=step, params={"format": "full"})
    found = recorded(response)
    if found is not None:
        return bundles_of(found)
    payload = (_json(response, "List email attachments") or {}).get("payload") or {}
    bundles = []
    for part in _parts(payload):
        body = part.get("body") or {}
        if not part.get("filename") or not body.get("attachmentId"):
            continue
        inline = _header(part.get("headers") or [], "Content-Disposition").lower().startswith("inline")
        if not (media if inline else attachments):
            continue
        bundle: dict[str, Any] = {"filename": part["filename"], "mimeType": part.get("mimeType"), "size": body.get("size")}
        if data:
            got = await ctx.call(provider, "GET", f"{GMAIL}/messages/{message_id}/attachments/{body['attachmentId']}",
                                 step=step)
            raw = text((_json(got, "List email attachments") or {}).get("data"))
            bundle["data"] = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
        bundles.append(bundle)
    return bundles


def _people(value: str) -> list[dict[str, str]]:
    return [{"email": address, "name": name} for name, address in getaddresses([value]) if address]


def message_bundle(message: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    """Return Make's Watch emails bundle of a Gmail message read with ``format=full`` (``labels``: id -> name)."""
    payload = message.get("payload") or {}
    headers = payload.get("headers") or []
    parts = _parts(payload)
    sender = _people(_header(headers, "From"))
    label_ids = list(message.get("labelIds") or [])

    def folders(test: Any) -> list[dict[str, str]]:
        return [{"id": i, "name": labels.get(i, i)} for i in label_ids if test(i)]

    millis = number(message.get("internalDate"))
    return {
        "id": message.get("id"), "threadId": message.get("threadId"),
        "internalDate": datetime.fromtimestamp(int(millis) / 1000, UTC).isoformat().replace("+00:00", "Z")
        if millis is not None else None,
        "subject": _header(headers, "Subject"), "fromName": sender[0]["name"] if sender else "",
        "fromEmail": sender[0]["email"] if sender else "",
        "to": [p["email"] for p in _people(_header(headers, "To"))],
        "cc": _people(_header(headers, "Cc")), "bcc": _people(_header(headers, "Bcc")),
        "snippet": message.get("snippet"),
        "fullTextBody": "".join(_decoded(p) for p in parts if p.get("mimeType") == "text/plain" and not p.get("filename")),
        "htmlBody": "".join(_decoded(p) for p in parts if p.get("mimeType") == "text/html" and not p.get("filename")),
        "hasAttachment": any(p.get("filename") for p in parts),
        "sysFolders": folders(lambda i: not i.startswith(("CATEGORY_", "Label_"))),
        "categoryFolders": folders(lambda i: i.startswith("CATEGORY_")),
        "userLabelFolders": folders(lambda i: i.startswith("Label_")),
        "labelIds": label_ids, "headers": {text(h.get("name")): h.get("value") for h in headers},
        "sizeEstimate": message.get("sizeEstimate"), "historyId": message.get("historyId"),
    }


def _query(filter_type: str, search: dict[str, Any]) -> tuple[str, list[str]]:
    if filter_type == "gmailSearch":
        return " ".join(text(search.get("q")).split()), []
    parts = [text(search.get("criteria")) if text(search.get("criteria")) not in ("", "all") else ""]
    parts += [f"from:{text(search['from'])}" if search.get("from") else "",
              f"subject:({text(search['subject'])})" if search.get("subject") else "",
              text(search.get("includeWords")),
              " ".join(f"-{w}" for w in text(search.get("excludeWords")).split()),
              "has:attachment" if search.get("hasAttachment") else ""]
    found_size = search.get("size")
    size: dict[str, Any] = found_size if isinstance(found_size, dict) else {}
    if size.get("amount") not in (None, ""):
        parts.append(f"{text(size.get('criteria'))}:{text(size['amount'])}{text(size.get('unit') or 'M')}")
    folder = text(search.get("folder"))
    labels = search.get("labelIds")
    extra = [text(x) for x in labels] if isinstance(labels, list) else [text(labels)] if text(labels) else []
    return " ".join(p for p in parts if p), ([folder] if folder else []) + [x for x in extra if x and x != folder]


async def watch_emails(ctx: Any, provider: str, *, step: str, filter_type: str, search: dict[str, Any],
                       limit: Any = None, mark_seen: bool = False) -> list[Any]:
    """Watch emails: start a job per message the search finds since the last poll (oldest first, at most ``limit``)."""
    cursor = await ctx.poll_cursor(default=None)
    if not isinstance(cursor, dict):  # the first poll: from now on
        return await start_items(ctx, [], id_of=lambda b: b["id"], cursor={"after": int(ctx.now().timestamp())})
    q, label_ids = _query(filter_type, search)
    params: dict[str, Any] = {"q": f"{q} after:{int(number(cursor.get('after')) or 0)}".strip(), "maxResults": "100"}
    if label_ids:
        params["labelIds"] = label_ids
    listed = _json(await ctx.call(provider, "GET", f"{GMAIL}/messages", step=step, params=params), "Watch emails")
    ids = [m.get("id") for m in reversed(listed.get("messages") or []) if isinstance(m, dict)]
    top = positive_limit(limit)
    ids = ids[:top] if top else ids
    if not ids:
        return await start_items(ctx, [], id_of=lambda b: b["id"], cursor=cursor)
    labels_body = _json(await ctx.call(provider, "GET", f"{GMAIL}/labels", step=step), "Watch emails")
    labels = {text(label.get("id")): text(label.get("name")) for label in labels_body.get("labels") or []}
    messages = [_json(await ctx.call(provider, "GET", f"{GMAIL}/messages/{i}", step=step, params={"format": "full"}),
                      "Watch emails") for i in ids]
    bundles = [message_bundle(m, labels) for m in messages]
    newest = max(int(number(m.get("internalDate")) or 0) for m in messages) // 1000
    started = await ctx.start_new(ctx.automation, bundles, id_of=lambda b: b["id"], cursor={"after": newest})
    if mark_seen:
        for message_id in started:
            await ctx.call(provider, "POST", f"{GMAIL}/messages/{message_id}/modify", step=step,
                           json={"removeLabelIds": ["UNREAD"]})
    return []


def _joined(value: Any) -> str | None:
    found = _addresses(value)
    return ", ".join(found) if found else None


async def smtp_send(ctx: Any, provider: str, *, step: str, sender: Any, to: Any, subject: Any, content: Any,
                    html: bool = False, cc: Any = None, bcc: Any = None, reply_to: Any = None) -> Any:
    """Make's Email app, Send an email: the message through the SMTP provider (``queue_core.gateway.smtp``).

    An empty From is the Make connection's own address, which the blueprint does not hold: it is read
    from the setting ``MAKE_EMAIL_FROM``. The bundle is empty: the module documents no output fields
    (a shadow answer, its recorded output, is returned as it is)."""
    if not _addresses(to):
        raise ModuleFailed("Email Send an email: no recipient (To)")
    sender = text(sender) or os.environ.get(FROM_SETTING, "")
    if not sender:
        raise ModuleFailed(f"Email Send an email: no From mapped; set {FROM_SETTING} to the connection's address")
    body = text(content)
    mail = email_send(sender=sender, to=_joined(to), subject=text(subject), cc=_joined(cc), bcc=_joined(bcc),
                      reply_to=text(reply_to) or None, html=body if html else None, text=None if html else body)
    response = await ctx.call(provider, "SMTP", "/send", step=step, json=mail)
    found = recorded(response)
    if found is not None:
        return found
    if response.status_code >= 400:
        raise ModuleFailed(f"Email Send an email: the mail server refused it ({response.text[:200]})")
    return {}

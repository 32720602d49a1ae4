"""Message bodies n8n's Telegram and Gmail nodes send: sendMessage's fields, Gmail's MIME ``raw``, and
Telegram's files (an upload's multipart form, file.get's download into the item's binary ``data``).

The MIME message is built with Python's ``email`` package (``EmailMessage``), never by hand:
headers are encoded as RFC 2047 where needed, the body as UTF-8. Gmail's API takes it as
base64url text in ``raw``.
"""

from __future__ import annotations

import base64
import json
import re
from email.message import EmailMessage
from email.policy import SMTP
from typing import Any

from ..errors import NodeFailed
from ..gateway.request import OFFLINE_HEADERS, SECRET_SEGMENT
from ._n8n_binary import (
    STAND_IN_PART, binary_of, bounded, entry, file_part, max_item_bytes, mime_lookup, offline_stand_in, recorded_files,
)
from ._n8n_js import text, truthy

_URL = re.compile(r"(https?|ftp|file)://\S+|www\.\S+|\S+\.\S+")
_TELEGRAM_LINK = "https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.telegram"
_GMAIL_LINK = "https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.gmail"


def telegram_message(chat: Any, message: Any, fields: dict[str, Any], *, attribution: Any = True,
                     version: float = 1.2) -> dict[str, Any]:
    """Return sendMessage's body as n8n's Telegram node builds it.

    ``parse_mode`` is Markdown unless given; the link preview is off for text with no URL (and,
    from v1.2, unless ``disable_web_page_preview`` is given); from v1.1 the attribution line is
    appended in the parse mode's markup (the link without the n8n instance's id).
    """
    body: dict[str, Any] = {"chat_id": chat, "text": text(message)}
    extra = dict(fields)
    extra.setdefault("parse_mode", "Markdown")
    if not _URL.search(body["text"]):
        body["disable_web_page_preview"] = True
    if version >= 1.1 and attribution:
        words = "This message was sent automatically with "
        if extra["parse_mode"] == "Markdown":
            body["text"] = f"{body['text']}\n\n_{words}_[n8n]({_TELEGRAM_LINK})"
        elif extra["parse_mode"] == "HTML":
            body["text"] = f"{body['text']}\n\n<em>{words}</em><a href=\"{_TELEGRAM_LINK}\" target=\"_blank\">n8n</a>"
    if version >= 1.2 and "disable_web_page_preview" not in extra:
        body["disable_web_page_preview"] = True
    body.update(extra)
    return body


def _addresses(value: Any) -> str:
    return ", ".join(part.strip() for part in text(value).split(",") if part.strip())


def mime_message(to: Any, subject: Any, message: Any, *, html: bool = True, cc: Any = "", bcc: Any = "",
                 reply_to: Any = "", attribution: Any = False, sender_name: Any = "") -> str:
    """Return the base64url MIME text of a Gmail message (``raw`` of users.messages.send).

    Raises ValueError naming the field for an address without ``@`` (n8n refuses it too).
    """
    for field, value in (("To", to), ("CC", cc), ("BCC", bcc), ("ReplyTo", reply_to)):
        for part in (p.strip() for p in text(value).split(",") if p.strip()):
            if "@" not in part:
                raise ValueError(f"The email address '{part}' in the '{field}' field isn't valid")
    body = text(message).strip()
    if attribution:
        words = "This email was sent automatically with "
        body = (f"\n\t\t\t{body}\n\t\t\t<br>\n\t\t\t<br>\n\t\t\t---\n\t\t\t<br>\n\t\t\t<em>{words}<a href=\"{_GMAIL_LINK}\" "
                f"target=\"_blank\">n8n</a></em>\n\t\t\t") if html else f"{body}\n\n---\n{words}n8n\nhttps://n8n.io"
    email = EmailMessage(policy=SMTP)
    if text(to):  # a draft may have no recipient yet (no empty To header, as nodemailer leaves it out)
        email["To"] = _addresses(to)
    for header, value in (("Cc", cc), ("Bcc", bcc), ("Reply-To", reply_to)):
        if text(value):
            email[header] = _addresses(value)
    email["Subject"] = text(subject)
    email.set_content(body, subtype="html" if html else "plain")
    return base64.urlsafe_b64encode(email.as_bytes()).decode("ascii")


def telegram_form(chat: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """Return the text fields of a Telegram upload (sendAudio, sendDocument with Binary File) as n8n sends them:
    chat_id, the additional fields, and ``disable_notification`` as text (``"false"`` unless given)."""
    form: dict[str, Any] = {"chat_id": text(chat)}
    form.update({k: text(v) for k, v in fields.items() if v is not None})
    form["disable_notification"] = text(fields.get("disable_notification")) if fields.get(
        "disable_notification") not in (None, "") else "false"
    return form


def telegram_part(item: dict[str, Any], prop: Any, index: int, file_name: Any, operation: str,
                  node: str, ctx: Any = None) -> tuple[str, bytes, str]:
    """Return the file part of a Telegram upload: the item's binary property, named by the File Name field
    or the binary's own; NodeFailed (n8n's words) when neither names it (a shadow stand-in: ``file_part``)."""
    if offline_stand_in(ctx, item, text(prop)):
        return STAND_IN_PART
    name, data, mime = file_part(item, text(prop), index)
    given = text(file_name) if file_name not in (None, "") else ""
    if not given and not (binary_of(item, text(prop), index).get("fileName")):
        raise NodeFailed(f"{node}: File name is needed to {operation}. Make sure the property that holds the binary "
                         "data has the file name property set or set it manually in the node using the File Name "
                         "parameter under Additional Fields.")
    return given or name, data, mime


async def telegram_download(ctx: Any, provider: str, answer: Any, base: str, *, mime: Any, step: str,
                            node: str) -> list[dict[str, Any]]:
    """Return file.get's item with Download: getFile's answer as json and the file (``GET <base>/file/bot<token>/
    <file_path>``) as binary ``data``, typed by the MIME Type field, else by the file name's extension.

    A recorded getFile answer (a shadow run: the legacy node's output) is that output, with a stand-in
    entry (no bytes): nothing is downloaded.
    """
    if any(answer.headers.get(h) for h in OFFLINE_HEADERS):
        return recorded_files({"json": {}}, answer, "data")
    body = answer.json()
    path = text(((body or {}).get("result") or {}).get("file_path"))
    file = await ctx.call(provider, "GET", f"{base}/file/bot{SECRET_SEGMENT}/{path}", step=step)
    if len(file.content) > max_item_bytes():
        raise NodeFailed(f"{node}: the file is {len(file.content)} bytes, over the runtime's limit of "
                         f"{max_item_bytes()} bytes per item (set CUTOVER_N8N_BINARY_MAX_BYTES to allow more)")
    name = path.split("/")[-1]
    kind = text(mime) if mime not in (None, "") else (mime_lookup(name) or "application/octet-stream")
    return [bounded({"json": body, "binary": {"data": entry(file.content, mime_type=kind, file_path=name)}}, node)]


def slack_answer(response: Any) -> list[dict[str, Any]]:
    """Return a Slack v2 node's item from a Web API answer: its ``ts`` renamed ``message_timestamp``, as n8n
    does to every answer (``slackApiRequest``); an answer with ``ok: false`` fails the node with Slack's error."""
    body = response.json()
    if isinstance(body, dict) and body.get("ok") is False:
        raise NodeFailed(f"Slack error response: {json.dumps(body.get('error'))}")
    if isinstance(body, dict) and "ts" in body:
        body = {k: v for k, v in body.items() if k != "ts"} | {"message_timestamp": body["ts"]}
    return [{"json": body if isinstance(body, dict) else {"value": body}}]


def slack_blocks(blocks: Any, message: Any) -> dict[str, Any]:
    """Return a Slack v2 block message's content: the Blocks parameter as an object (JSON text parsed, as
    n8n's ``ensureType: 'object'``), with ``text`` set when the notification text is not empty."""
    content = json.loads(blocks) if isinstance(blocks, str) else blocks
    if not isinstance(content, dict):
        raise NodeFailed("Slack: the Blocks parameter must be a JSON object ({\"blocks\": [...]})")
    content = dict(content)
    if truthy(message):
        content["text"] = message
    return content

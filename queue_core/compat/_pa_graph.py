"""The request bodies of the connector actions a scaffolded flow makes as Microsoft Graph / SharePoint calls.

- Office 365 Outlook "Send an email (V2)" → Graph ``POST /v1.0/me/sendMail``
  (learn.microsoft.com/graph/api/user-sendmail): ``{"message": {subject, body{contentType HTML,
  content}, toRecipients, ccRecipients, bccRecipients, importance}, "saveToSentItems": true}``;
  the connector's To/Cc/Bcc/Reply To are addresses separated by semicolons; From (send as) is the message's
  ``from``; Attachments ``[{Name, ContentBytes}]`` are ``fileAttachment``s (name, contentBytes base64).
- Teams "Post message in a chat or channel" (as the user, in a channel) → Graph
  ``POST /v1.0/teams/{team}/channels/{channel}/messages`` (learn.microsoft.com/graph/api/channel-post-messages):
  ``{"body": {"contentType": "html", "content"}, "subject"?}``.
- Teams "Add a member to a team" → Graph ``POST /v1.0/teams/{team}/members`` (learn.microsoft.com/graph/api/team-post-members):
  ``{"@odata.type": "#microsoft.graph.aadUserConversationMember", "roles": [] or ["owner"], "user@odata.bind": users('{id}')}``.
- Teams "Post card in a chat or channel" (as the user, in a channel) → the same Graph call with the adaptive
  card as the message's one attachment (learn.microsoft.com/graph/api/channel-post-messages, "adaptive card"):
  ``{"body": {"contentType": "html", "content": "<attachment id=\"{id}\"></attachment>"}, "attachments":
  [{"id", "contentType": "application/vnd.microsoft.card.adaptive", "content": the card as JSON text}]}``.
- SharePoint "Send an HTTP request to SharePoint": the site URL and the relative uri joined.
- SharePoint "Delete item": ``{site}/_api/web/lists(guid'{id}')/items({item})`` for a list given by id, else
  ``…/lists/getbytitle('{title}')/items({item})`` (a quote in the title doubled, as OData strings escape it).
- a path segment (a user's UPN or id) is percent-encoded, as the connector encodes it.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import quote

from ..errors import ActionFailed
from ._pa_actions import text


def _recipients(raw: Any) -> list[dict[str, Any]]:
    addresses = raw if isinstance(raw, list) else text(raw).split(";")
    return [{"emailAddress": {"address": a.strip()}} for a in map(text, addresses) if a.strip()]


def _attachment(raw: Any) -> dict[str, Any]:
    """Return Graph's fileAttachment of the connector's ``{Name, ContentBytes}`` (base64 text, or a binary
    ``{"$content-type", "$content"}`` as a Get file content gives it)."""
    if not isinstance(raw, dict) or "Name" not in raw:
        raise ActionFailed(f"an attachment must be an object with Name and ContentBytes, got {raw!r:.80}", "InvalidTemplate")
    content = raw.get("ContentBytes")
    if isinstance(content, dict) and "$content" in content:
        content = content["$content"]
    return {"@odata.type": "#microsoft.graph.fileAttachment", "name": text(raw["Name"]), "contentBytes": text(content)}


def graph_mail(to: Any, subject: Any, body: Any, *, cc: Any = None, bcc: Any = None,
               importance: Any = "Normal", sender: Any = None, reply_to: Any = None,
               attachments: Any = None) -> dict[str, Any]:
    """Return Graph's sendMail body for the connector's To / Subject / Body / Cc / Bcc / Importance, From
    (send as: the message's ``from``), Reply To (``replyTo``) and Attachments (``fileAttachment``s)."""
    message: dict[str, Any] = {"subject": text(subject), "body": {"contentType": "HTML", "content": text(body)},
                               "toRecipients": _recipients(to)}
    if cc:
        message["ccRecipients"] = _recipients(cc)
    if bcc:
        message["bccRecipients"] = _recipients(bcc)
    if sender:
        message["from"] = {"emailAddress": {"address": text(sender).strip()}}
    if reply_to:
        message["replyTo"] = _recipients(reply_to)
    if attachments:
        items = attachments if isinstance(attachments, list) else [attachments]
        message["attachments"] = [_attachment(item) for item in items]
    if importance and text(importance).lower() != "normal":
        message["importance"] = text(importance).lower()
    return {"message": message, "saveToSentItems": True}


def channel_message(content: Any, subject: Any = None) -> dict[str, Any]:
    """Return Graph's channel message body (HTML content; the subject when the action sets one)."""
    out: dict[str, Any] = {"body": {"contentType": "html", "content": text(content)}}
    if subject:
        out["subject"] = text(subject)
    return out


def team_member(user: Any, owner: Any = False) -> dict[str, Any]:
    """Return Graph's conversationMember body for Teams' "Add a member to a team" (the user's id; an owner's role)."""
    return {"@odata.type": "#microsoft.graph.aadUserConversationMember", "roles": ["owner"] if owner is True else [],
            "user@odata.bind": f"https://graph.microsoft.com/v1.0/users('{text(user)}')"}


def site_url(site: Any, uri: Any) -> str:
    """Return a SharePoint request's URL: the site, then the uri relative to it (or the uri when absolute)."""
    relative = text(uri)
    if relative.startswith(("https://", "http://")):
        return relative
    return text(site).rstrip("/") + "/" + relative.lstrip("/")


def channel_card(card: Any) -> dict[str, Any]:
    """Return Graph's channel message body carrying an adaptive card (given as JSON text or as an object).

    The attachment id is derived from the card (the same card, the same id: a replay sends the same body)."""
    content = card if isinstance(card, str) else json.dumps(card, separators=(",", ":"))
    ident = uuid.uuid5(uuid.NAMESPACE_URL, content).hex
    return {"body": {"contentType": "html", "content": f'<attachment id="{ident}"></attachment>'},
            "attachments": [{"id": ident, "contentType": "application/vnd.microsoft.card.adaptive", "content": content}]}


def path_segment(value: Any) -> str:
    """Return ``value`` as one URL path segment (``/`` and the rest percent-encoded; ``@`` kept)."""
    return quote(text(value), safe="@")


_GUID = re.compile(r"^\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?$")


def sharepoint_item_url(site: Any, table: Any, item: Any) -> str:
    """Return the REST URL of a SharePoint list item: the list by id (a GUID) or by title, the item by id."""
    name = text(table).strip()
    if _GUID.match(name):
        where = f"lists(guid'{name.strip('{}')}')"
    else:
        where = "lists/getbytitle('" + quote(name.replace("'", "''"), safe="'") + "')"
    number = text(item).strip()
    if not number.isdigit():
        raise ActionFailed(f"the item id {number!r} is not a list item's number", "InvalidTemplate")
    return f"{text(site).rstrip('/')}/_api/web/{where}/items({number})"

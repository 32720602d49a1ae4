"""Reddit v1 *Get Many* posts (``post.getAll``) as n8n 1.123 runs it (``handleListing``); YouTube v1 *Upload* a video
(``youtube_upload``); the legacy OpenAI node's items.

n8n asks ``https://oauth.reddit.com/r/<subreddit>[/<category>].json`` with ``limit=100`` and
``api_type=json`` whatever the node's Limit says (``redditApiRequestAllItems`` sets the page size
over it), follows ``data.after`` until it holds 100 posts (every page with Return All), then keeps
the first Limit; each post's ``data`` is an item.
"""

from __future__ import annotations

from typing import Any

from ..errors import NodeFailed
from ._n8n_binary import STAND_IN_PART, binary_of, file_part
from ._n8n_js import text
from ._n8n_records import offline, recorded_items

REDDIT = "https://oauth.reddit.com/"


async def reddit_listing(ctx: Any, provider: str, subreddit: Any, category: Any, *, return_all: bool, limit: Any,
                         step: str) -> list[dict[str, Any]]:
    """Return the posts of a subreddit's listing as n8n's node pages through them (each post's ``data``)."""
    endpoint = f"r/{text(subreddit)}/{text(category)}.json" if category else f"r/{text(subreddit)}.json"
    query: dict[str, Any] = {"limit": 100, "api_type": "json"}
    posts: list[dict[str, Any]] = []
    while True:
        response = await ctx.call(provider, "GET", REDDIT + endpoint, params=dict(query),
                                  headers={"user-agent": "n8n"}, step=step)
        body = response.json() or {}
        data = (body.get("data") or {}) if isinstance(body, dict) else {}
        if not isinstance(body, list):
            query["after"] = data.get("after")
        posts += [child.get("data") for child in data.get("children") or []]
        if len(posts) >= 100 and not return_all:
            break
        if not data.get("after"):
            break
    return posts if return_all else posts[:int(limit)]


YOUTUBE_UPLOAD = "https://www.googleapis.com/upload/youtube/v3/videos"


def _defined(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}  # JSON.stringify leaves undefined out


def _spread(body: Any) -> dict[str, Any]:
    """Return JavaScript's ``{...body}``: an object's keys, a string's or array's items by index, else nothing."""
    if isinstance(body, dict):
        return dict(body)
    if isinstance(body, (str, list)):
        return {str(i): v for i, v in enumerate(body)}
    return {}


def _json(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text or None


async def youtube_upload(ctx: Any, provider: str, item: dict[str, Any], index: int, *, prop: Any, title: Any,
                         category: Any, options: dict[str, Any], step: str, node: str) -> list[dict[str, Any]]:
    """Return YouTube v1 *Upload*'s item as n8n makes it: a resumable session (``POST
    /upload/youtube/v3/videos?uploadType=resumable`` with the snippet, status and recordingDetails and the
    ``X-Upload-Content-Length``/``-Type`` headers), then the item's bytes ``PUT`` to the answer's ``Location``
    with their ``Content-Range`` in one piece (n8n's default binary mode streams an in-memory file as one chunk)
    and axios's default type, without the credential (``anonymous``: n8n's ``httpRequest``, not its OAuth2 request);
    the item is ``{uploadId: <the PUT answer's id>, ...<the session answer's body>}``. A recorded answer (a
    shadow run) is the node's output."""
    part = file_part(item, text(prop), index, ctx)
    _, data, stand_in = part
    mime: str | None = stand_in  # n8n's X-Upload-Content-Type is the binary's own MIME type (none: left out)
    if part != STAND_IN_PART:
        mime = binary_of(item, text(prop), index, node).get("mimeType")
    tags = options.get("tags")
    payload = {"snippet": _defined({"title": title, "categoryId": category, "description": options.get("description"),
                                    "tags": None if tags is None else text(tags).split(","),
                                    "defaultLanguage": options.get("defaultLanguage")}),
               "status": _defined({k: options.get(k) for k in ("privacyStatus", "embeddable", "publicStatsViewable",
                                                              "publishAt", "selfDeclaredMadeForKids", "license")}),
               "recordingDetails": _defined({"recordingDate": options.get("recordingDate")})}
    notify = options.get("notifySubscribers")
    start = await ctx.call(provider, "POST", YOUTUBE_UPLOAD, json=payload, step=step, params={
        "uploadType": "resumable", "part": "snippet,status,recordingDetails",
        "notifySubscribers": text(False if notify is None else notify)},
        headers=_defined({"X-Upload-Content-Length": str(len(data)), "X-Upload-Content-Type": mime}))
    if offline(start):
        return recorded_items(_json(start))
    location = start.headers.get("location")
    if not location:
        raise NodeFailed(f"{node}: YouTube's resumable upload answer has no Location header")
    sent = await ctx.call(provider, "PUT", location, content=data, step=step, anonymous=True,
                          headers={"Content-Range": f"bytes 0-{len(data) - 1}/{len(data)}",
                                   "Content-Type": "application/x-www-form-urlencoded"})  # n8n's (axios's default)
    answer = _json(sent)
    upload_id = answer.get("id") if isinstance(answer, dict) else None
    return [{"json": {**_defined({"uploadId": upload_id}), **_spread(_json(start))}}]


_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"  # what String.prototype.trim removes


def openai_v1_items(response: Any, *, simplify: bool, text_choices: bool = False) -> list[dict[str, Any]]:
    """Return the legacy OpenAI node's items: each of the answer's ``choices`` (Simplify), else the answer.

    A text completion's choice has its ``text`` trimmed, as the node's simplifying step does.
    """
    body = response.json()
    if not simplify:
        return [{"json": body}]
    choices = (body or {}).get("choices") or []
    if text_choices:
        return [{"json": {**choice, "text": text(choice.get("text")).strip(_JS_SPACE)}} for choice in choices]
    return [{"json": choice} for choice in choices]

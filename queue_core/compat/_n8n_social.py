"""Reddit v1 *Get Many* posts (``post.getAll``) as n8n 1.123 runs it (``handleListing``); the legacy OpenAI node's items.

n8n asks ``https://oauth.reddit.com/r/<subreddit>[/<category>].json`` with ``limit=100`` and
``api_type=json`` whatever the node's Limit says (``redditApiRequestAllItems`` sets the page size
over it), follows ``data.after`` until it holds 100 posts (every page with Return All), then keeps
the first Limit; each post's ``data`` is an item.
"""

from __future__ import annotations

from typing import Any

from ._n8n_js import text

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

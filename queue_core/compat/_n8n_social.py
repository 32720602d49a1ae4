"""Reddit v1 *Get Many* posts (``post.getAll``), as n8n 1.123's node runs it (``GenericFunctions.handleListing``).

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

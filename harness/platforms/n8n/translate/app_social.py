"""Reddit v1 *Get Many* posts and X (Twitter) v2 *Create Tweet* as n8n's nodes run them (runtime: ``_n8n_social``).

Reddit, per item: the subreddit's listing (``filters.category``: top, hot, new or rising; none: the
subreddit's front listing), paged as n8n pages it, each post an item. X, per item: ``POST /2/tweets``
with the text and each set field under the API's name (geo, media, quote_tweet_id, reply); the
answer's ``data`` is the item. YouTube v1 *Upload*, per item: the resumable session, then the item's
binary PUT to its Location (``queue_core.compat._n8n_social.youtube_upload``).
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import dict_of, name, stmts


def reddit_posts(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """post.getAll: each item's subreddit listing, every post (Return All) or the first Limit."""
    if not node.described:
        raise Untranslatable(f"reddit v{node.version:g} has no known description (its defaults are unknown)")
    params = node.settings
    filters = dict(params.get("filters") or {})
    unknown = sorted(set(filters) - {"category"})
    if unknown:
        raise Untranslatable(f"filters.{unknown[0]} is not translated (translated: category)")
    return stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    $var.extend({'json': post} for post in await n8n.reddit_listing(ctx, $provider, $subreddit, $category, return_all=n8n.truthy($all), limit=$limit, step=$step))
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
                 subreddit=expr.value(params.get("subreddit", "")), category=expr.value(filters.get("category")),
                 all=expr.value(params.get("returnAll", False)), limit=expr.value(params.get("limit", 100)),
                 step=slot.step, node=node.name)


def _tweet_id(raw: object, field: str) -> ast.expr:
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    if locator.get("mode") != "id":
        raise Untranslatable(f"additionalFields.{field} is given by URL: n8n reads the tweet id from it; give the id")
    return expr.value(locator.get("value"))


def tweet_create(node: Node) -> Request:
    """tweet.create (X v2): ``POST /2/tweets`` with the text and the set fields; the answer's ``data`` is the item."""
    if node.version < 2:
        raise Untranslatable("twitter v1 (the v1.1 API) is not translated (v2 is)")
    params = node.settings if node.described else node.parameters
    extra = dict(params.get("additionalFields") or {})
    unknown = sorted(set(extra) - {"location", "attachments", "inQuoteToStatusId", "inReplyToStatusId"})
    if unknown:
        raise Untranslatable(f"additionalFields.{unknown[0]} is not translated")
    body: list[tuple[str, ast.expr]] = [("text", expr.value(params.get("text", "")))]
    # n8n sends each field that is set (truthy), under the API's name
    optional: list[tuple[str, ast.expr]] = []
    if extra.get("location"):
        optional.append(("geo", dict_of([("place_id", expr.value(extra["location"]))])))
    if extra.get("attachments"):
        optional.append(("media", dict_of([("media_ids", ast.List([expr.value(extra["attachments"])], ast.Load()))])))
    if isinstance(extra.get("inQuoteToStatusId"), dict) and extra["inQuoteToStatusId"].get("value"):
        optional.append(("quote_tweet_id", _tweet_id(extra["inQuoteToStatusId"], "inQuoteToStatusId")))
    if isinstance(extra.get("inReplyToStatusId"), dict) and extra["inReplyToStatusId"].get("value"):
        optional.append(("reply", dict_of([("in_reply_to_tweet_id", _tweet_id(extra["inReplyToStatusId"],
                                                                              "inReplyToStatusId"))])))
    return Request(body=dict_of(body + optional), items=_code.expr("[{'json': n8n.get(response.json(), 'data')}]"))


_YOUTUBE_OPTIONS = {"defaultLanguage", "description", "embeddable", "license", "notifySubscribers", "privacyStatus",
                    "publicStatsViewable", "publishAt", "recordingDate", "selfDeclaredMadeForKids", "tags"}
_YOUTUBE_IGNORED = {"madeForKids"}  # not an option of the node's description: n8n's upload never reads it


def youtube_upload(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """video.upload (YouTube v1): per item, the resumable session and the PUT of the item's binary
    (``n8n.youtube_upload``); ``{uploadId, ...}`` is the item."""
    if not node.described:
        raise Untranslatable(f"youTube v{node.version:g} has no known description (its defaults are unknown)")
    params = node.settings
    options = {k: v for k, v in dict(params.get("options") or {}).items() if k not in _YOUTUBE_IGNORED}
    unknown = sorted(set(options) - _YOUTUBE_OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(_YOUTUBE_OPTIONS))})")
    return stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    $var.extend(await n8n.youtube_upload(ctx, $provider, item, i, prop=$prop, title=$title, category=$category, options=$options, step=$step, node=$node))
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
                 prop=expr.value(params.get("binaryProperty", "data")), title=expr.value(params.get("title", "")),
                 category=expr.value(params.get("categoryId", "")), options=expr.value(options), step=slot.step,
                 node=node.name)

"""Reddit v1 *Get Many* posts as n8n's node runs it (runtime: ``queue_core.compat._n8n_social``).

Per item: the subreddit's listing (``filters.category``: top, hot, new or rising; none: the
subreddit's front listing), paged as n8n pages it, each post an item.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold._code import name, stmts


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

"""Notion v2 block append as n8n's Notion node calls it: ``PATCH /v1/blocks/<id>/children``.

The block id is the resource locator's id (v2.2+, mode ``id``) or, before v2.2, the value with
n8n's ``extractPageId`` applied (the part after ``p=``, or after the last ``-`` of an https URL);
the children are n8n's ``formatBlocks`` of the plain-text blocks (``app_docs``), sent with the
``Notion-Version`` n8n pins for v2 (2021-08-16). n8n outputs Notion's answer as one item.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_docs import notion_block
from harness.platforms.n8n.translate.app_request import Request, check_version
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import dict_of, lit

NOTION_VERSION = "2021-08-16"  # n8n's apiVersion for typeVersion 2, 2.1 and 2.2


def block_id(node: Node) -> ast.expr:
    """Return the expression of the block id n8n reads from ``blockId``."""
    params = node.settings if node.described else node.parameters
    raw = params.get("blockId")
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    value = locator.get("value")
    if value in (None, ""):
        raise Untranslatable("the Notion blockId is not set")
    if locator.get("mode") != "id":
        raise Untranslatable(f"the Notion block is chosen by {locator.get('mode')} (n8n reads the id out of the URL): "
                             "choose it by id")
    if node.version >= 2.2:
        return expr.value(value)
    return _code.expr("n8n.notion_page_id($v)", v=expr.value(value))


def notion_append(node: Node) -> Request:
    """block.append: the blocks as Notion children; Notion's answer is the node's one item."""
    check_version(node, 2, "Notion")
    params = node.settings if node.described else node.parameters
    blocks = [notion_block(b) for b in (params.get("blockUi") or {}).get("blockValues") or []]
    return Request(body=dict_of([("children", blocks)]), headers=lit({"Notion-Version": NOTION_VERSION}))


_PROPERTY_TYPES = ("title", "rich_text", "number", "url", "checkbox", "multi_select", "email", "phone_number",
                   "select", "status", "date")


def _property(value: dict[str, object]) -> ast.expr:
    kind = str(value.get("key", "")).split("|")[1] if "|" in str(value.get("key", "")) else ""
    if expr.is_expression(value.get("key")):
        raise Untranslatable("a Notion property key given by an expression is not translated")
    if kind not in _PROPERTY_TYPES:
        raise Untranslatable(f"a Notion {kind or 'untyped'!r} property is not translated "
                             f"(translated: {', '.join(_PROPERTY_TYPES)})")
    if kind == "rich_text" and value.get("richText"):
        raise Untranslatable("a rich-text property with formatted text (richText) is not translated")
    return expr.value({k: v for k, v in value.items() if k != "type"})  # n8n's type is an expression of the key


_RICH_BLOCKS = ("paragraph", "heading_1", "heading_2", "heading_3", "toggle", "to_do", "bulleted_list_item",
                "numbered_list_item")


def _block(block: dict[str, Any]) -> ast.expr:
    """One block as n8n's ``formatBlocks`` writes it; a rich-text one's texts through ``n8n.notion_texts``."""
    if not block.get("richText"):
        return notion_block(block)
    kind = str(block.get("type", "paragraph"))
    if kind not in _RICH_BLOCKS:
        raise Untranslatable(f"a {kind!r} block with rich text is not translated (translated: {', '.join(_RICH_BLOCKS)})")
    texts = ((block.get("text") or {}).get("text")) or []
    inner: list[tuple[str, ast.expr]] = [("text", _code.expr("n8n.notion_texts($texts)", texts=expr.value(texts)))]
    if kind == "to_do":
        inner.insert(0, ("checked", expr.value(block.get("checked", False))))
    return dict_of([("object", lit("block")), ("type", lit(kind)), (kind, dict_of(inner))])


def database_page(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """databasePage.create (v2): n8n reads the database's title property first (``GET /v1/databases/<id>``,
    once), then ``POST /v1/pages`` per item with the title, the properties (``mapProperties``), the
    blocks and an icon. With Simplify (n8n's default) the created page is reshaped as n8n's
    ``simplifyObjects`` does (``n8n.notion_simplified``), else output as Notion answered."""
    from harness.scaffold._code import name, stmts

    check_version(node, 2, "Notion")
    params = node.settings if node.described else node.parameters
    if expr.is_expression(params.get("simple", True)):
        raise Untranslatable("Simplify given by an expression is not translated")
    simple = params.get("simple", True) is not False
    raw = params.get("databaseId")
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    if locator.get("mode") == "url" or locator.get("value") in (None, ""):
        raise Untranslatable("the Notion database is given by URL or not at all: choose it by id")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - {"icon", "iconType"})
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: icon, iconType)")
    properties = [_property(v) for v in (params.get("propertiesUi") or {}).get("propertyValues") or []]
    blocks = [_block(b) for b in (params.get("blockUi") or {}).get("blockValues") or []]
    return stmts("""
items = $inp
$var: n8n.Items = []
if items:
    i, item = 0, items[0]
    answer = await ctx.call($provider, 'GET', n8n.concat('https://api.notion.com/v1/databases/', n8n.encode_uri_component($db)), headers=$headers, step=$step)
    title_key = n8n.notion_title_key(answer)
    for i, item in enumerate(items):
        body = n8n.notion_page_body(title_key, $title, $db, $properties, $blocks, $icon, $icon_type, $timezone)
        response = await ctx.call($provider, 'POST', 'https://api.notion.com/v1/pages', json=body, headers=$headers, step=$step)
        $var.extend($output(response))
    flow.emit($node, $var)
""", output=_code.expr("n8n.notion_simplified" if simple else "n8n.response_items"), inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
        db=expr.value(locator.get("value")), headers=lit({"Notion-Version": NOTION_VERSION}), step=slot.step,
        title=expr.value(params.get("title", "")), properties=ast.List(properties, ast.Load()),
        blocks=ast.List(blocks, ast.Load()), icon=expr.value(options.get("icon", "")),
        icon_type=expr.value(options.get("iconType", "emoji")), node=node.name, timezone=slot.timezone)

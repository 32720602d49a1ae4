"""Notion v2 block append as n8n's Notion node calls it: ``PATCH /v1/blocks/<id>/children``.

The block id is the resource locator's id (v2.2+, mode ``id``) or, before v2.2, the value with
n8n's ``extractPageId`` applied (the part after ``p=``, or after the last ``-`` of an https URL);
the children are n8n's ``formatBlocks`` of the plain-text blocks (``app_docs``), sent with the
``Notion-Version`` n8n pins for v2 (2021-08-16). n8n outputs Notion's answer as one item.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_docs import notion_block
from harness.platforms.n8n.translate.app_request import Request, check_version
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

"""Google Sheets v4 (spreadsheets.values), Airtable v2 (records) and Notion v2 (pages) as n8n's nodes call them."""

from __future__ import annotations

import ast
import re
from typing import Any
from urllib.parse import quote

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request, check_version, mapped
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name, stmts

# -- Google Sheets v4 (spreadsheets.values) ----------------------------------------------------

_SHEET_OPTIONS = {"cellFormat"}


def _value_input(node: Node) -> str:
    options = node.parameters.get("options") or {}
    unknown = sorted(set(options) - _SHEET_OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: cellFormat)")
    return str(options.get("cellFormat") or ("RAW" if node.version < 4.1 else "USER_ENTERED"))


def sheet_append(node: Node) -> Request:
    check_version(node, 4, "Google Sheets")
    columns = node.parameters.get("columns") or {}
    ids = [str(c.get("id")) for c in columns.get("schema") or [] if not c.get("removed")]
    if not ids:
        raise Untranslatable("the node's column schema is empty: n8n reads the header row at run time")
    _, values = mapped(columns)
    return Request(body=_code.expr("{'values': [n8n.sheet_row($ids, $values)]}", ids=ids, values=values),
                   query=lit({"valueInputOption": _value_input(node)}),
                   items=_code.expr("[{'json': dict($values)}]", values=values))


_DOC_URL = re.compile(r"/spreadsheets/d/([0-9A-Za-z_-]+)")


def sheet_document(raw: Any) -> ast.expr:
    """Return the expression of a spreadsheet id from ``documentId`` (id, list or URL mode)."""
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    value = locator.get("value")
    if locator.get("mode") == "url":
        match = _DOC_URL.search(str(value)) if not expr.is_expression(value) else None
        if match is None:
            raise Untranslatable("documentId is a URL computed by an expression: give the spreadsheet id")
        return lit(match.group(1))
    return expr.value(value)


def _sheet_choice(raw: Any) -> Any:
    """Return a sheet's title parameter (text or an expression): the values API takes a title, not a gid."""
    locator = raw if isinstance(raw, dict) else {"mode": "name", "value": raw}
    mode, value = locator.get("mode"), locator.get("value")
    if mode == "name" and value not in (None, ""):
        return value
    if locator.get("cachedResultName"):
        return str(locator["cachedResultName"])
    if value in (None, ""):
        raise Untranslatable("sheetName is empty (no sheet chosen in the export): n8n cannot run this node as "
                             "exported; choose the sheet, by name")
    raise Untranslatable(f"sheetName is chosen by {mode} ({value!r}) with no sheet title recorded: "
                         "n8n looks the title up; choose the sheet by name")


def _sheet_name(raw: Any) -> ast.expr:
    """Return the expression of a sheet's title."""
    return expr.value(_sheet_choice(raw))


def sheet_title(raw: Any) -> ast.expr:
    """Return the expression of a sheet's title as one URL path segment."""
    title = _sheet_choice(raw)
    return call("n8n.quote_path", expr.value(title)) if expr.is_expression(title) else lit(quote(str(title), safe=""))


def sheet_update(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """n8n's *Update Row* (all items at once): read the sheet, match rows on the column, one batchUpdate."""
    check_version(node, 4, "Google Sheets")
    params = node.parameters
    columns = params.get("columns") or {}
    match = list(columns.get("matchingColumns") or [])
    if len(match) != 1:
        raise Untranslatable("update matches on one column in n8n; this node names "
                             f"{len(match)} (columns.matchingColumns)")
    mode, values = mapped(columns)
    record = (_code.expr("{k: '' if v is None else v for k, v in $values.items()}", values=values)
              if mode == "defineBelow" else call("dict", values))
    document, title = sheet_document(params.get("documentId")), _sheet_name(params.get("sheetName"))
    var = name(slot.var)
    # n8n outputs the written values when any row changed (Define Below), the input items always (Auto-Map)
    written = stmts("$var = [{'json': r} for r in records]", var=var) if mode == "defineBelow" else []
    always = stmts("$var = list(items)", var=var) if mode != "defineBelow" else []
    return stmts("""
items = $inp
$var: n8n.Items = []
if items:
    records = [$record for i, item in enumerate(items)]
    response = await ctx.call($provider, 'GET', n8n.concat($base, $document, '/values/', $path), params={'valueRenderOption': 'UNFORMATTED_VALUE', 'dateTimeRenderOption': 'FORMATTED_STRING'}, step=$step)
    data = n8n.sheet_updates(response, n8n.text($title), $match, records)
    if data:
        await ctx.call($provider, 'POST', n8n.concat($base, $document, '/values:batchUpdate'), json={'data': data, 'valueInputOption': $input_option}, step=$step)
        $written
    $always
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=var, record=record, provider=provider,
                 base="https://sheets.googleapis.com/v4/spreadsheets/", document=document,
                 path=sheet_title(params.get("sheetName")), step=slot.step, title=title, match=match[0],
                 input_option=_value_input(node), written=written, always=always, node=node.name)


# -- Airtable v2 (records) and Notion v2 (pages) ----------------------------------------------

def airtable_create(node: Node) -> Request:
    check_version(node, 2, "Airtable")
    options = dict(node.parameters.get("options") or {})
    typecast = bool(options.pop("typecast", False))
    if options:
        raise Untranslatable(f"options.{sorted(options)[0]} is not translated (translated: typecast)")
    _, fields = mapped(node.parameters.get("columns") or {})
    return Request(body=dict_of([("typecast", typecast), ("fields", fields)]))


_NOTION_TEXT_BLOCKS = {"paragraph", "heading_1", "heading_2", "heading_3", "toggle", "to_do", "bulleted_list_item",
                       "numbered_list_item"}


def notion_block(block: dict[str, Any]) -> ast.expr:
    kind = str(block.get("type", "paragraph"))
    if kind not in _NOTION_TEXT_BLOCKS or block.get("richText"):
        raise Untranslatable(f"a {kind!r} block{' with rich text' if block.get('richText') else ''} is not translated "
                             "(plain-text blocks are)")
    inner = [("text", _code.expr("[{'text': {'content': $text}}]", text=expr.value(block.get("textContent", ""))))]
    if kind == "to_do":
        inner.insert(0, ("checked", expr.value(block.get("checked"))))
    return dict_of([("object", "block"), ("type", kind), (kind, dict_of(inner))])


def notion_page(node: Node) -> Request:
    check_version(node, 2, "Notion")
    params = node.parameters
    if params.get("simple", True) is not False:
        raise Untranslatable("Simplify is on: n8n reshapes the created page (simplifyObjects); "
                             "turn Simplify off in the workflow, or write the reshaping")
    page = params.get("pageId")
    if not isinstance(page, dict) or page.get("mode") != "id":
        raise Untranslatable("the parent page is chosen by URL or from a list: n8n reads its id from the URL; "
                             "choose it by id")
    options = dict(params.get("options") or {})
    icon = options.pop("icon", None)
    if options.pop("iconType", "emoji") != "emoji" or options:
        raise Untranslatable("a file icon or another option is not translated (translated: an emoji icon)")
    blocks = [notion_block(b) for b in (params.get("blockUi") or {}).get("blockValues") or []]
    body = [("parent", dict_of([("page_id", expr.value(page.get("value")))])),
            ("properties", _code.expr("{'title': [{'text': {'content': $title}}]}",
                                      title=expr.value(params.get("title", "")))),
            ("children", blocks)]
    if icon:
        body.append(("icon", dict_of([("emoji", expr.value(icon))])))
    return Request(body=dict_of(body), headers=lit({"Notion-Version": "2021-08-16"}))



def spreadsheet_create(node: Node) -> Request:
    """spreadsheet.create (v2+ node): the title, each sheet's properties, and the locale/recalculation options."""
    check_version(node, 2, "Google Sheets")
    params = node.settings if node.described else node.parameters
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - {"autoRecalc", "locale"})
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: autoRecalc, locale)")
    properties = [("title", expr.value(params.get("title", "")))]
    properties += [(k, expr.value(options[k])) for k in ("autoRecalc", "locale") if options.get(k)]
    sheets = [dict_of([("properties", expr.value(s))]) for s in (params.get("sheetsUi") or {}).get("sheetValues") or []]
    return Request(body=dict_of([("properties", dict_of(properties)), ("sheets", sheets)]))

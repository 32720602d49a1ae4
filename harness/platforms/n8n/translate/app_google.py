"""Google Sheets v4 *Get Row(s)* (with or without row filters) and *Append or Update Row*, as n8n runs them.

What n8n 1.123's Google Sheets node (v4–v4.7) does with these parameters, so a scaffolded node
gives n8n's rows and sends n8n's calls (runtime: ``queue_core.compat._n8n_sheets``):

- a read: the sheet's properties (its title), then the whole sheet per item (v4.2+; once before),
  its rows prepared as n8n prepares them (``row_number``, empty columns and rows dropped);
- a read's ``filtersUI`` rows: the rows whose lookup column equals a
  value are kept (``combineFilters`` OR / AND; all matches, or the first: ``returnAllMatches`` before
  v4.5, ``returnFirstMatch`` from v4.5; from v4.6 the first match ends the lookup);
- ``options.range`` / ``options.rangeDefinition`` on a read are not options of n8n's read (a range
  is ``options.dataLocationOnSheet``): n8n ignores them and reads the whole sheet, and so does the
  translation, saying so in the node's note;
- ``appendOrUpdate`` (columns defined below): the sheet's properties, the sheet, the changed cells
  of matching rows, the other rows appended (``_n8n_sheets.sheet_append_or_update``).
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_docs import sheet_document
from harness.platforms.n8n.translate.app_request import check_version
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold._code import dict_of, lit, name, stmts

IGNORED_READ_OPTIONS = frozenset({"range", "rangeDefinition"})  # not options of n8n's read


def ignored_read_options(node: Node) -> list[str]:
    """Return the read options n8n ignores that this node sets (``range``, ``rangeDefinition``)."""
    return sorted(set(node.parameters.get("options") or {}) & IGNORED_READ_OPTIONS)


def read_note(node: Node) -> str | None:
    """Return the loud note of a read whose range options n8n ignores (None: it sets none)."""
    if (node.parameters.get("operation") or "read") != "read":
        return None
    ignored = ignored_read_options(node)
    if not ignored:
        return None
    return (f"NOTE: options.{', options.'.join(ignored)} {'is' if len(ignored) == 1 else 'are'} not "
            "options of n8n's Google Sheets read (a range is options.dataLocationOnSheet): n8n ignores "
            f"{'it' if len(ignored) == 1 else 'them'} and reads the whole sheet, and so does this translation")


_MATCH_OPTIONS = frozenset({"returnAllMatches", "returnFirstMatch"})  # read by the row filters only


def _all_matches(node: Node, options: dict[str, Any]) -> bool:
    if node.version < 4.5:
        return options.get("returnAllMatches") == "returnAllMatches"
    return not options.get("returnFirstMatch")


def sheet_read_whole(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """*Get Row(s)* (with row filters, or range options n8n ignores, or neither) as n8n runs it.

    The calls are n8n's: the sheet's properties once, then the whole sheet per item (v4.2+; the
    first item's only before), each read's rows prepared and filtered as n8n's node does.
    """
    check_version(node, 4, "Google Sheets")
    params = node.parameters
    filters = (params.get("filtersUI") or {}).get("values") or []
    if filters and node.version <= 4.1:
        raise Untranslatable("row filters (filtersUI) of a v4–v4.1 read: n8n reads once and looks up every "
                             "item's filters together; not translated (v4.2+ are)")
    options = dict(params.get("options") or {})
    formatting = (options.pop("outputFormatting", None) or {}).get("values") or {}
    unknown = sorted(set(options) - IGNORED_READ_OPTIONS - _MATCH_OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: outputFormatting)")
    lookups = [dict_of([("lookupColumn", expr.value(f.get("lookupColumn", ""))),
                        ("lookupValue", expr.value(f.get("lookupValue", "")))]) for f in filters]
    combine = str((node.settings if node.described else params).get("combineFilters", "OR"))
    mode, sheet = _sheet_locator(params.get("sheetName"))
    each = "items" if node.version > 4.1 else "items[:1]"
    return stmts(f"""
items = $inp
$var: n8n.Items = []
if items:
    lookups = [$lookups for i, item in enumerate({each})]
    $var = await n8n.sheet_read(ctx, $provider, $document, ($mode, $sheet), lookups, render=$render, dates=$dates, all_matches=$all, combine=$combine, version=$version, step=$step)
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), lookups=lookups, provider=provider,
                 document=sheet_document(params.get("documentId")), mode=mode, sheet=sheet,
                 render=expr.value(formatting.get("general", "UNFORMATTED_VALUE")),
                 dates=expr.value(formatting.get("date", "FORMATTED_STRING")), all=_all_matches(node, options),
                 combine=combine, version=node.version, step=slot.step, node=node.name)


_UPSERT_OPTIONS = {"cellFormat", "useAppend", "valueRenderMode"}


def _sheet_locator(raw: Any) -> tuple[str, ast.expr]:
    locator = raw if isinstance(raw, dict) else {"mode": "name", "value": raw}
    mode, value = str(locator.get("mode") or "name"), locator.get("value")
    if value in (None, ""):
        raise Untranslatable("sheetName is empty (no sheet chosen in the export): n8n cannot run this node as "
                             "exported; choose the sheet, by name")
    if mode == "url":
        raise Untranslatable("the sheet is given by URL (resource locator mode 'url'): choose it by name or id")
    return mode, expr.value(value)


def sheet_append_or_update(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """*Append or Update Row* (columns defined below), all items at once, as n8n's node runs it."""
    check_version(node, 4, "Google Sheets")
    params = node.parameters
    columns = params.get("columns") or {}
    if columns.get("mappingMode", "defineBelow") != "defineBelow":
        raise Untranslatable(f"columns.mappingMode {columns.get('mappingMode')!r} of appendOrUpdate is not "
                             "translated (n8n adds the items' new fields as columns first); defineBelow is")
    match = list(columns.get("matchingColumns") or [])
    if not match:
        raise Untranslatable("columns.matchingColumns is not set: n8n's appendOrUpdate fails without the column "
                             "to match on; choose it in the workflow")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _UPSERT_OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(_UPSERT_OPTIONS))})")
    value_input = str(options.get("cellFormat") or ("RAW" if node.version < 4.1 else "USER_ENTERED"))
    mode, sheet = _sheet_locator(params.get("sheetName"))
    schema = [str(c.get("id")) for c in columns.get("schema") or []]
    return stmts("""
items = $inp
$var: n8n.Items = []
if items:
    records = [dict($values) for i, item in enumerate(items)]
    $var = await n8n.sheet_append_or_update(ctx, $provider, $document, ($mode, $sheet), records, key=$key, schema=$schema, value_input=$value_input, use_append=$use_append, version=$version, step=$step)
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), values=expr.value(columns.get("value") or {}),
                 provider=provider, document=sheet_document(params.get("documentId")), mode=mode, sheet=sheet,
                 key=match[0], schema=lit(schema), value_input=value_input, use_append=bool(options.get("useAppend")),
                 version=node.version, step=slot.step, node=node.name)

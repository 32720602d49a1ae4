"""Translate n8n's pure data nodes (Limit, Sort, Split Out, Aggregate, Crypto) into calls of their runtime functions.

Each node's parameters are read with n8n's defaults for its typeVersion (``Node.settings``) and
become literal arguments of one ``queue_core.compat.n8n`` function (``_n8n_data``); a parameter
given as an expression (n8n evaluates it on the first item) is not translated, nor an option
the function does not take, and the node stays a TODO naming it.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold._code import call, name, stmts


def _plain(node: Node, *keys: str) -> list[Any]:
    values = []
    for key in keys:
        value = node.parameters.get(key)
        if expr.is_expression(value):
            raise Untranslatable(f"the parameter {key} is an expression: not translated (give it as text)")
        values.append(value)
    return values


def _options(node: Node, known: set[str]) -> dict[str, Any]:
    options = dict(node.parameters.get("options") or {})
    unknown = sorted(set(options) - known)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(known)) or 'none'})")
    return options


def _emit(node: Node, slot: Slot, value: ast.expr) -> NodeCode:
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    lines = [comment(node), *stmts("items = $inp\n$var = flow.emit($node, $value) if items else []",
                                   inp=inp, var=name(slot.var), node=node.name, value=value)]
    return NodeCode(lines, [slot.var])


def _described(node: Node) -> Node:
    if not node.described:
        raise Untranslatable(f"{node.short_type} v{node.version:g} has no known description (its defaults are unknown)")
    return replace(node, parameters=node.settings)


def limit_node(node: Node, slot: Slot) -> NodeCode:
    """Limit: the first or last N items."""
    node = _described(node)
    max_items, keep = _plain(node, "maxItems", "keep")
    return _emit(node, slot, call("n8n.limit", name("items"), max_items, keep))


def sort_node(node: Node, slot: Slot) -> NodeCode:
    """Sort (simple): by each field, ascending or descending."""
    node = _described(node)
    (kind,) = _plain(node, "type")
    if kind != "simple":
        raise Untranslatable(f"a {kind!r} sort is not translated (simple is)")
    options = _options(node, {"disableDotNotation"})
    fields = []
    for entry in (node.parameters.get("sortFieldsUi") or {}).get("sortField") or []:
        field, order = entry.get("fieldName", ""), entry.get("order", "ascending")
        if expr.is_expression(field):
            raise Untranslatable("a sort field given as an expression is not translated")
        fields.append((str(field), str(order)))
    return _emit(node, slot, call("n8n.sort_items", name("items"), fields,
                                  dotted=not options.get("disableDotNotation", False), node=node.name))


def split_out_node(node: Node, slot: Slot) -> NodeCode:
    """Split Out: one item per element of a list field."""
    node = _described(node)
    field, include = _plain(node, "fieldToSplitOut", "include")
    (chosen,) = _plain(node, "fieldsToInclude") if include == "selectedOtherFields" else ("",)
    options = _options(node, {"disableDotNotation", "destinationFieldName"})
    if expr.is_expression(options.get("destinationFieldName")):
        raise Untranslatable("options.destinationFieldName is an expression: not translated")
    return _emit(node, slot, call("n8n.split_out", name("items"), str(field), str(include), str(chosen or ""),
                                  str(options.get("destinationFieldName") or ""),
                                  dotted=not options.get("disableDotNotation", False), node=node.name))


def aggregate_node(node: Node, slot: Slot) -> NodeCode:
    """Aggregate: one item listing the items' values of some fields, or every item's data."""
    node = _described(node)
    (mode,) = _plain(node, "aggregate")
    if mode == "aggregateAllItemData":
        _options(node, set())
        destination, include = _plain(node, "destinationFieldName", "include")
        chosen = _plain(node, "fieldsToInclude")[0] if include == "specifiedFields" else ""
        dropped = _plain(node, "fieldsToExclude")[0] if include == "allFieldsExcept" else ""
        return _emit(node, slot, call("n8n.aggregate_all", name("items"), str(destination), str(include),
                                      str(chosen or ""), str(dropped or "")))
    options = _options(node, {"disableDotNotation", "mergeLists", "keepMissing"})
    fields = []
    for entry in (node.parameters.get("fieldsToAggregate") or {}).get("fieldToAggregate") or []:
        field = entry.get("fieldToAggregate", "")
        output = entry.get("outputFieldName", "") if entry.get("renameField") else ""
        if expr.is_expression(field) or expr.is_expression(output):
            raise Untranslatable("a field to aggregate given as an expression is not translated")
        fields.append((str(field), str(output or "")))
    return _emit(node, slot, call("n8n.aggregate_fields", name("items"), fields,
                                  merge_lists=bool(options.get("mergeLists", False)),
                                  keep_missing=bool(options.get("keepMissing", False)),
                                  dotted=not options.get("disableDotNotation", False), node=node.name))


def crypto_node(node: Node, slot: Slot) -> NodeCode:
    """Crypto hash and HMAC of a text value (per item; the value may be an expression)."""
    node = _described(node)
    action, kind, encoding, field = _plain(node, "action", "type", "encoding", "dataPropertyName")
    if action not in ("hash", "hmac"):
        raise Untranslatable(f"Crypto {action!r} is not translated (hash and hmac are; generate is random, sign needs a key)")
    if node.parameters.get("binaryData"):
        raise Untranslatable("Crypto of binary data is not translated")
    secret = {"action": ast.Constant("hmac"), "secret": expr.value(node.parameters.get("secret", ""))} \
        if action == "hmac" else {}
    value = call("n8n.crypto_item", name("item"), str(field), expr.value(node.parameters.get("value", "")),
                 str(kind), str(encoding), node=node.name)
    value.keywords += [ast.keyword(k, v) for k, v in secret.items()]
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    lines = [comment(node), *stmts("items = $inp\n$var = flow.emit($node, [$value for i, item in enumerate(items)]) "
                                   "if items else []", inp=inp, var=name(slot.var), node=node.name, value=value)]
    return NodeCode(lines, [slot.var])


def remove_duplicates_node(node: Node, slot: Slot) -> NodeCode:
    """Remove Duplicates v1-v2: items repeated within the input (all fields, all but some, or the named ones)."""
    node = _described(node)
    if node.parameters.get("operation", "removeDuplicateInputItems") != "removeDuplicateInputItems":
        raise Untranslatable("removing items seen in earlier executions keeps n8n's history: not translated")
    (compare,) = _plain(node, "compare")
    fields = _plain(node, "fieldsToExclude" if compare == "allFieldsExcept" else "fieldsToCompare")[0] \
        if compare != "allFields" else ""
    options = _options(node, {"disableDotNotation", "removeOtherFields"})
    if options.get("disableDotNotation") or options.get("removeOtherFields"):
        raise Untranslatable("options disableDotNotation and removeOtherFields are not translated")
    return _emit(node, slot, call("n8n.remove_duplicates", name("items"), str(compare), str(fields or ""),
                                  version=node.version, node=node.name))


TRANSLATORS = {"limit": limit_node, "sort": sort_node, "splitOut": split_out_node, "aggregate": aggregate_node,
               "crypto": crypto_node, "removeDuplicates": remove_duplicates_node}

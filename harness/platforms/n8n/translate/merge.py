"""Translate a Merge node (v2, v3) into Python with n8n's semantics (``queue_core.compat.n8n``'s merges).

Append, choose branch, and combine by matching fields, by position or every pair, each read the
way n8n 1.123 reads the node's parameters; the oracle suite (``tests/oracle``) proves every
Merge version against n8n itself. Merge v1's key modes are not translated (not claimed).
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment, emit_if
from harness.scaffold import _code
from harness.scaffold._code import call


def merge_node(node: Node, slot: Slot) -> NodeCode:
    """Merge: append, choose a branch, or combine (by matching fields, by position, every pair).

    Merge v3 has ``numberInputs`` inputs (2 by default); v1/v2 have two. "Choose branch" waits for
    every input, so it runs only when each has items, and outputs the chosen input's items (v2:
    ``output`` input1/input2; v3: ``useDataOfInput``) or one empty item (``output: empty``).
    """
    params = node.parameters
    count = max(2, int(params.get("numberInputs") or 2)) if node.version >= 3 else 2
    empty = ast.List([], ast.Load())
    inputs = [slot.inputs[i] if i < len(slot.inputs) else empty for i in range(max(count, len(slot.inputs)))]
    first, second = inputs[0], inputs[1]
    mode = params.get("mode", "append")
    body: ast.expr
    reached = _code.expr("$first or $second", first=first, second=second)
    if mode == "append":
        body = call("n8n.merge_append", *inputs[:count])
        reached = ast.BoolOp(ast.Or(), inputs[:count])
    elif mode == "chooseBranch":
        reached = ast.BoolOp(ast.And(), inputs[:count])
        output = str(params.get("output", "input1"))
        if output == "empty":
            body = _code.expr("[{'json': {}}]")
        else:
            which = int(params.get("useDataOfInput") or 1) - 1 if node.version >= 3 else (1 if output.endswith("2") else 0)
            body = call("n8n.merge_choose", inputs[:count], which)
    elif mode == "combine" and node.version >= 2:
        body = _merge_combine(node, inputs[:count], first, second)
    else:  # Merge v1's key modes (mergeByKey, keepKeyMatches, …) are not proved against n8n: not claimed
        raise Untranslatable(f"Merge mode {mode!r} is not translated")
    return NodeCode([comment(node), *emit_if(slot, node, body, reached)], [slot.var])


def _merge_combine(node: Node, inputs: list[ast.expr], first: ast.expr, second: ast.expr) -> ast.expr:
    """Merge v2/v3 "combine": by matching fields, by position, or every pair (multiplex / combine all)."""
    params = node.parameters
    how = str(params.get("combinationMode") if node.version < 3 else params.get("combineBy"))
    options = params.get("options") or {}
    clash, clash_options = _clash_handling(options)
    extra = {"clash_options": clash_options} if clash_options else {}
    if how in ("mergeByFields", "combineByFields"):
        return _merge_by_fields(node, first, second)
    if how in ("multiplex", "combineAll"):
        return call("n8n.merge_multiplex", first, second, clash=clash, **extra,
                    **({"in_place": True} if node.version < 3 else {}))
    unpaired = {"include_unpaired": True} if options.get("includeUnpaired") is True else {}
    if how == "mergeByPosition":
        return call("n8n.merge_by_position_v2", first, second, clash=clash, **extra, **unpaired)
    if how == "combineByPosition":
        return call("n8n.merge_by_position", ast.List(list(inputs), ast.Load()), clash=clash, **extra, **unpaired)
    raise Untranslatable(f"Merge combine mode {how!r} is not translated")


def _clash_handling(options: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """Return (resolveClash, the other clash settings); n8n reads a written ``values`` without a side as ""."""
    values = (options.get("clashHandling") or {}).get("values")
    if not isinstance(values, dict):
        return None, {}
    rest = {k: v for k, v in values.items() if k != "resolveClash"}
    return str(values.get("resolveClash", "")), rest


def _merge_by_fields(node: Node, first: ast.expr, second: ast.expr) -> ast.expr:
    """Merge "combine by matching fields" with n8n's checks, join modes, clash handling and order."""
    params = node.parameters
    options = params.get("options") or {}
    if options.get("fuzzyCompare") is True:
        raise Untranslatable("Merge's fuzzy compare option is not translated")
    values = ((params.get("mergeByFields") or params.get("fieldsToMatch") or {}).get("values")) or []
    pairs = [(str(v.get("field1", "")), str(v.get("field2", ""))) for v in values]
    if node.version >= 3 and not params.get("advanced"):  # "id, email": each name on both sides
        pairs = [(f.strip(), f.strip()) for f in str(params.get("fieldsToMatchString") or "").split(",")]
    clash, clash_options = _clash_handling(options)
    if node.version >= 3 and clash is not None:  # v3 names input 2 winning "preferLast"; "preferInput2" is no side there
        clash = {"preferLast": "preferInput2", "preferInput2": ""}.get(clash, clash)
    extra: dict[str, Any] = {"clash_options": clash_options} if clash_options else {}
    if node.version < 2.1:
        extra["check_fields"] = True
    if node.version < 3:
        extra["in_place"] = True
    if options.get("disableDotNotation") is True:
        extra["dot_notation"] = False
    if options.get("multipleMatches") == "first":
        extra["first_match_only"] = True
    join = params.get("joinMode", "keepMatches")
    # n8n shows "Output Data From" only for these joins and drops a parameter it does not show
    output_from = params.get("outputDataFrom", "both") if join in ("keepMatches", "keepNonMatches") else "both"
    return call("n8n.merge_by_fields", first, second, pairs, join=join, output_from=output_from, clash=clash, **extra,
                node=node.name)

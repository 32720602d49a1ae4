"""Execution Data (``n8n-nodes-base.executionData``): save highlight data, the items pass through.

n8n's node (operation ``save``, the only one) evaluates ``dataToSave.values`` per item and sets
each key on the execution's custom data (``$execution.customData.setAll``), then outputs its
input items unchanged. From version 1.1 an empty value is saved as ``""``. The runtime
(``queue_core.compat._n8n_custom``) keeps the custom data in the job's ledger, where an operator
reads and queries the execution's history (README "the ledger"): no new Context method.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code
from harness.scaffold._code import call, name, stmts


def execution_data_node(node: Node, slot: Slot) -> NodeCode:
    """Execution Data: each item's key/value pairs go to the execution's custom data; the items pass through."""
    params = node.settings
    if params.get("operation", "save") != "save":
        raise Untranslatable(f"Execution Data operation {params.get('operation')!r} is not one n8n has")
    if node.on_error != "stop":
        raise Untranslatable("Execution Data continuing on error is not translated")
    entries = (params.get("dataToSave") or {}).get("values") or []
    pairs: list[ast.expr] = [ast.Tuple([expr.value(e.get("key", "")), expr.value(e.get("value", ""))], ast.Load())
             for e in entries if isinstance(e, dict)]
    fn = _code.expr("lambda item, i: $pairs", pairs=ast.List(pairs, ast.Load()))
    runs = call("n8n.execution_data", name("flow"), node.name, name("items"), fn, version=node.version)
    lines = [comment(node), _code.comment("The execution's custom data: in the job's ledger (n8n_custom_data)"),
             *stmts("items = $inp", inp=_input(slot)),
             *stmts("$var = (await $runs) if items else []", var=name(slot.var), runs=runs)]
    return NodeCode(lines, [slot.var], why="custom data in the job's ledger (n8n_custom_data); the items pass through")

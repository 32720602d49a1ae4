"""Translate Convert to File (``n8n-nodes-base.convertToFile`` v1, v1.1): *Convert to CSV*, *to JSON*, *to Text File*.

The node's parameters are read with n8n's defaults for its typeVersion (``Node.settings``); its
options (a file name is often an expression) are evaluated per item as n8n evaluates them — the
first item's for *Convert to JSON* ``once``. The bytes and the binary entry are n8n's
(``queue_core.compat._n8n_convert``, ``_n8n_csv``). The other spreadsheet formats (xlsx, ods, …), HTML, RTF,
iCal and *Move Base64 String to File* stay a TODO naming the operation.
"""

from __future__ import annotations

from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold._code import name, stmts

_OPTIONS = {"toJson": {"fileName", "format", "encoding", "addBOM"}, "toText": {"fileName", "encoding", "addBOM"},
            "csv": {"delimiter", "fileName", "headerRow", "sheetName"}}


def _plain(params: dict[str, Any], key: str) -> Any:
    value = params.get(key)
    if expr.is_expression(value):
        raise Untranslatable(f"the parameter {key} is an expression: not translated (give it as text)")
    return value


def convert_to_file_node(node: Node, slot: Slot) -> NodeCode:
    """Convert to File: *Convert to JSON* (once or each item) and *Convert to Text File*, into a binary property."""
    if not node.described:
        raise Untranslatable(f"convertToFile v{node.version:g} has no known description (its defaults are unknown)")
    params = node.settings
    operation = str(params.get("operation"))
    if operation not in _OPTIONS:
        raise Untranslatable(f"Convert to File {operation!r} is not translated (csv, toJson and toText are)")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _OPTIONS[operation])
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(_OPTIONS[operation]))})")
    encoding = options.get("encoding", "utf8") if operation != "csv" else "utf8"
    if encoding not in ("utf8", "utf-8"):
        raise Untranslatable(f"options.encoding {encoding!r} is not translated (utf8 is)")
    if options.get("encoding") not in ("utf8", "cesu8", "ucs2"):
        # n8n shows addBOM only beside an encoding chosen in the options, and drops a parameter it does not show
        options.pop("addBOM", None)
    output = str(_plain(params, "binaryPropertyName") or "data")
    inp: Any = slot.inputs[0] if slot.inputs else []
    if operation == "csv":  # n8n reads the first item's options for the one file of every item
        lines = [comment(node), *stmts("items = $inp\n$var = flow.emit($node, n8n.to_csv_file(items, output=$output, "
                                       "options=[$options for i, item in enumerate(items[:1])][0])) if items else []",
                                       inp=inp, var=name(slot.var), node=node.name, output=output,
                                       options=expr.value(options))]
        return NodeCode(lines, [slot.var])
    if operation == "toJson":
        mode = str(_plain(params, "mode"))
        each = "items" if mode == "each" else "items[:1]"
        body = (f"n8n.to_json_file(items, mode=$mode, output=$output, options=[$options for i, item in enumerate({each})])")
        holes: dict[str, Any] = {"mode": mode}
    else:
        body = "n8n.to_text_file(items, output=$output, source=$source, options=[$options for i, item in enumerate(items)])"
        holes = {"source": str(_plain(params, "sourceProperty") or "")}
    lines = [comment(node), *stmts("items = $inp\n$var = flow.emit($node, " + body + ") if items else []",
                                            inp=inp, var=name(slot.var), node=node.name, output=output,
                                            options=expr.value(options), **holes)]
    return NodeCode(lines, [slot.var])


TRANSLATORS = {"convertToFile": convert_to_file_node}

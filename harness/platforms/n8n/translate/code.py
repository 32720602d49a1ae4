"""Code, Function and Function Item nodes: their JavaScript kept as written, run by ``n8n.code``.

A JavaScript Code node becomes "translated (JavaScript kept)": the generated module holds the
node's source as a constant and calls ``n8n.code(flow, node, source, items, mode=…, kind=…)``,
which runs it unchanged in V8 with n8n's data model (``queue_core.compat._n8n_code``). What the
sandbox cannot give is found here and left as a TODO naming it: ``require`` of a Node.js module,
workflow static data, ``$http`` / ``this.helpers`` calls, Node's ``Buffer``. A Python Code node
(``language: python``) is left as a TODO with its source kept for a person.
"""

from __future__ import annotations

import ast
import re

from queue_core.compat._n8n_code import natives_syntax

from harness.platforms.n8n.definition import Node
from harness.scaffold import _code
from harness.scaffold._code import name, stmts

KEPT = "JavaScript kept"
_REQUIRE = re.compile(r"""\brequire\s*\(\s*(['"`])([^'"`]+)\1""")
_UNAVAILABLE = (
    (re.compile(r"\$?getWorkflowStaticData\b"), "keeps workflow static data between runs"),
    (re.compile(r"\$http\b|\bthis\.helpers\b|\bhelpers\.(?:request|httpRequest)"), "makes HTTP calls from code"),
    (re.compile(r"\bBuffer\b"), "uses Node.js's Buffer"),
    (re.compile(r"\$evaluateExpression\b|\$secrets\b|\$vars\b"), "uses $evaluateExpression, $secrets or $vars"),
)
KINDS = {"code": "code", "function": "function", "functionItem": "functionItem"}


def unavailable(source: str) -> str | None:
    """Return why the sandbox cannot run ``source`` as n8n did (None: it can)."""
    modules = sorted({m.group(2) for m in _REQUIRE.finditer(source)})
    if modules or re.search(r"\brequire\s*\(", source):
        shown = ", ".join(repr(m) for m in modules) or "a module"
        return f"Code node requires {shown}: the sandbox has no Node.js modules, write this part in Python"
    if natives_syntax(source):
        return "Code node uses V8 natives syntax (%Name): the sandbox refuses it, write this part in Python"
    for pattern, why in _UNAVAILABLE:
        if pattern.search(source):
            return f"Code node {why}: the sandbox cannot, write this part in Python"
    return None


def js_source(node: Node) -> str:
    """Return the node's JavaScript (a Code node's ``jsCode``, a Function node's ``functionCode``)."""
    params = node.parameters
    return str(params.get("jsCode") if node.short_type == "code" else params.get("functionCode") or "")


def mode_of(node: Node) -> str:
    """Return the node's run mode as n8n reads it (Function Item: once per item)."""
    if node.short_type == "functionItem":
        return "runOnceForEachItem"
    if node.short_type == "function":
        return "runOnceForAllItems"
    return str(node.parameters.get("mode") or "runOnceForAllItems")


def kept(node: Node, var: str, items: ast.expr, source: str) -> list[ast.stmt]:
    """Return the statements that run ``source`` through ``n8n.code`` when items reached the node."""
    const = f"{var}_js"
    return [_code.comment(f"{KEPT}: the node's own code runs unchanged in V8 with n8n's data model "
                          f"({mode_of(node)})"),
            *stmts("$const = $source", const=name(const), source=source),
            *stmts("$var = n8n.code(flow, $node, $const, $items, mode=$mode, kind=$kind) if $items else []",
                   var=name(var), node=node.name, const=name(const), items=items, mode=mode_of(node),
                   kind=KINDS[node.short_type])]

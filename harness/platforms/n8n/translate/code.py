"""Code, Function and Function Item nodes: their JavaScript kept as written, run by ``n8n.code``.

A JavaScript Code node becomes "translated (JavaScript kept)": the generated module holds the
node's source as a constant and calls ``n8n.code(flow, node, source, items, mode=…, kind=…)``,
which runs it unchanged in V8 with n8n's data model (``queue_core.compat._n8n_code``). What the
sandbox cannot give is found here and left as a TODO naming it: ``require`` of a Node.js module
other than ``crypto`` (``fs``, ``https``, …), ``this.helpers`` functions other than the HTTP ones.
A node whose code calls ``this.helpers.httpRequest`` / ``this.helpers.request`` runs through
``await n8n.code_http(..., step=...)``, which makes each request through ``ctx.call``
(``queue_core.compat._n8n_code_http``); ``$http`` is no global of n8n's Code node, and code that
uses it meets the ReferenceError it met in n8n. Node's ``Buffer``
and ``require('crypto')`` are the sandbox's (a subset, ``_n8n_node.js``); a node that uses
``$getWorkflowStaticData`` runs through ``await n8n.code_static(...)``, which reads and writes the
workflow's static data in Postgres (``queue_core.compat._n8n_static``). A Python Code node
(``language: python``, n8n's Pyodide one) becomes "translated (Python kept)": its code kept as
written and run by ``n8n.python_code`` with n8n's ``_input``/``_json``/``_('Node')`` model
(``queue_core.compat._n8n_python``); a native Python node (``pythonNative``, n8n's task runner)
stays a TODO.
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
# What a person writes instead of a module the sandbox lacks (the TODO names it).
_MODULE_HINTS = {
    "fs": "files on the n8n host (fs) are read or written where the worker can reach them, with pathlib",
    "https": "each HTTP request (https) becomes `await ctx.call(provider, method, url, step=...)`",
    "http": "each HTTP request (http) becomes `await ctx.call(provider, method, url, step=...)`",
    "url": "URL parsing (url) is urllib.parse",
    "path": "path handling (path) is pathlib",
    "child_process": "commands (child_process) are asyncio.create_subprocess_exec, if the worker may run them",
}
_STATIC = re.compile(r"\$?getWorkflowStaticData\b")
SANDBOX_MODULES = frozenset({"crypto", "node:crypto"})  # what the sandbox's require gives (_n8n_node.js)
_UNAVAILABLE = (
    (re.compile(r"\$evaluateExpression\b|\$secrets\b|\$vars\b"), "uses $evaluateExpression, $secrets or $vars"),
)
_HELPERS = re.compile(r"\bhelpers\s*\.\s*([A-Za-z_$][\w$]*)")
_HELPERS_ANY = re.compile(r"\bhelpers\b")
# The helpers n8n's Code node has that the sandbox gives (_n8n_code_http.js): the HTTP ones; the
# *WithAuthentication ones fail as in n8n (a Code node has no credentials).
HTTP_HELPERS = frozenset({"httpRequest", "request", "httpRequestWithAuthentication", "requestWithAuthentication"})
KINDS = {"code": "code", "function": "function", "functionItem": "functionItem"}


def unavailable(source: str) -> str | None:
    """Return why the sandbox cannot run ``source`` as n8n did (None: it can)."""
    named = {m.group(2) for m in _REQUIRE.finditer(source)}
    modules = sorted(named - SANDBOX_MODULES)
    if modules or len(re.findall(r"\brequire\s*\(", source)) > len(_REQUIRE.findall(source)):
        shown = ", ".join(repr(m) for m in modules) or "a module it names at run time"
        hints = [_MODULE_HINTS[m.removeprefix("node:")] for m in modules if m.removeprefix("node:") in _MODULE_HINTS]
        return (f"Code node requires {shown}: the sandbox has no Node.js module but crypto (no file system, "
                f"no network), write this part in Python{': ' + '; '.join(dict.fromkeys(hints)) if hints else ''}")
    if natives_syntax(source):
        return "Code node uses V8 natives syntax (%Name): the sandbox refuses it, write this part in Python"
    other = sorted({m.group(1) for m in _HELPERS.finditer(source)} - HTTP_HELPERS)
    if other:
        return (f"Code node calls this.helpers.{', this.helpers.'.join(other)}: the sandbox gives only the HTTP "
                f"helpers (httpRequest, request), write this part in Python")
    for pattern, why in _UNAVAILABLE:
        if pattern.search(source):
            return f"Code node {why}" if ":" in why else f"Code node {why}: the sandbox cannot, write this part in Python"
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


def uses_static_data(source: str) -> bool:
    """Whether ``source`` reads the workflow's static data (``$getWorkflowStaticData``)."""
    return bool(_STATIC.search(source))


def uses_http(source: str) -> bool:
    """Whether ``source`` reaches n8n's helpers (``this.helpers.httpRequest`` and the like)."""
    return bool(_HELPERS_ANY.search(source))


def kept(node: Node, var: str, items: ast.expr, source: str, *, step: str = "") -> list[ast.stmt]:
    """Return the statements that run ``source`` through ``n8n.code`` when items reached the node
    (``await n8n.code_static`` when it uses the workflow's static data, ``await n8n.code_http``
    at step ``step`` when it makes HTTP calls)."""
    const = f"{var}_js"
    static, http = uses_static_data(source), uses_http(source)
    run = "await n8n.code_http" if http else "await n8n.code_static" if static else "n8n.code"
    note = "; the workflow's static data read from and written back to Postgres" if static else ""
    note += "; its HTTP requests made through ctx.call" if http else ""
    extra = (", step=$step" if http else "") + (", static_data=True" if http and static else "")
    return [_code.comment(f"{KEPT}: the node's own code runs unchanged in V8 with n8n's data model "
                          f"({mode_of(node)}){note}"),
            *stmts("$const = $source", const=name(const), source=source),
            *stmts(f"$var = {run}(flow, $node, $const, $items{extra}, mode=$mode, kind=$kind) if $items else []",
                   var=name(var), node=node.name, const=name(const), items=items, mode=mode_of(node),
                   kind=KINDS[node.short_type], step=step)]


PYTHON_KEPT = "Python kept"
_PY_UNAVAILABLE = (
    (re.compile(r"\b_getWorkflowStaticData\b"), "keeps workflow static data between runs (_getWorkflowStaticData)"),
    (re.compile(r"\b_jmespath\b|\b_items\s*\(|\b_node\b|\b_evaluateExpression\b|\b_vars\b|\b_secrets\b"),
     "uses _jmespath, _items(), _evaluateExpression, _vars or _secrets, which cutover's Python model lacks"),
    (re.compile(r"\bfrom\s+js\b|\bimport\s+js\b|\bpyodide\b"), "imports Pyodide's js or pyodide modules"),
)


def python_unavailable(node: Node) -> str | None:
    """Return why a Python Code node stays a TODO (None: ``n8n.python_code`` runs it)."""
    params = node.parameters
    if params.get("language") == "pythonNative":
        return ("Code node: native Python (n8n's Python task runner, `_items`/`_item`) to rewrite over the items; "
                "cutover runs only the Pyodide model (language python)")
    source = str(params.get("pythonCode") or "")
    for pattern, why in _PY_UNAVAILABLE:
        if pattern.search(source):
            return f"Python Code node {why}: write this part by hand"
    return None


def python_kept(node: Node, var: str, items: ast.expr) -> list[ast.stmt]:
    """Return the statements that run the node's Python through ``n8n.python_code`` when items reached it."""
    const = f"{var}_py"
    mode = str(node.parameters.get("mode") or "runOnceForAllItems")
    return [_code.comment(f"{PYTHON_KEPT}: the node's own Python runs as n8n's Pyodide runs it, with _input, "
                          f"_json and _('Node') ({mode})"),
            *stmts("$const = $source", const=name(const), source=str(node.parameters.get("pythonCode") or "")),
            *stmts("$var = n8n.python_code(flow, $node, $const, $items, mode=$mode) if $items else []",
                   var=name(var), node=node.name, const=name(const), items=items, mode=mode)]

"""Which fields of the recorded trigger a branch node's conditions read (for ``probe-triggers``).

A probe mutates a recorded trigger so that a node's translated condition selects an output no
recorded trigger took. Only what the condition reads from the *trigger* can be mutated: this
module parses every expression of the node's parameters (esprima, as the scaffold does), finds
the values it reads (``$json.a.b``, ``$('Node').item.json.x``, ``$node["Node"].json.x``,
``$input.item.json.x``) and follows each back through the graph to the trigger. A value read
through an IF, Switch, Filter, NoOp, Wait or Merge is the same item's; through a Set, the field
it assigns from a plain ``$json`` path is followed to that path; a value from an HTTP Request,
an app node or a Code node is a response or computed, and no mutation of the trigger reaches
it: the read carries the reason instead of a path.

A path is a tuple into the recorded trigger record: ``("body", "total")`` or
``("headers", "x-kind")`` (a non-webhook trigger's item is the body itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.translate.expr import member_chain
from harness.platforms.n8n.translate.js import parse_expression
from harness.platforms.n8n.definition import Node, Workflow

Path = tuple[str | int, ...]

_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.S)
PASS_THROUGH = frozenset({"if", "filter", "switch", "noOp", "wait", "merge"})
BRANCHING = frozenset({"if", "filter", "switch"})
_ITEM_METHODS = ("first", "last", "all")
_STRIPPED_TAIL = ("length",)


@dataclass(frozen=True)
class Read:
    """One value a condition reads: its trigger path, or why mutating the trigger cannot reach it."""

    expression: str
    path: Path | None
    why: str | None = None


def expressions(value: Any) -> list[str]:
    """Return the JavaScript inside every ``{{ }}`` of the expression parameters in ``value``."""
    if isinstance(value, str):
        return [m.group(1) for m in _TEMPLATE.finditer(value)] if value.startswith("=") else []
    if isinstance(value, dict):
        return [e for v in value.values() for e in expressions(v)]
    if isinstance(value, list):
        return [e for v in value for e in expressions(v)]
    return []


def literals(value: Any) -> list[Any]:
    """Return the constants a node's parameters compare with (plain values and expression literals)."""
    out: list[Any] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in ("rightValue", "value2", "value1", "leftValue") and not _is_expression(inner):
                if isinstance(inner, str | int | float | bool) and inner != "":
                    out.append(inner)
            else:
                out.extend(literals(inner))
    elif isinstance(value, list):
        for inner in value:
            out.extend(literals(inner))
    elif _is_expression(value):
        for source in expressions(value):
            out.extend(_expression_literals(source))
    return out


def _is_expression(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("=")


def _parse(source: str) -> Any:
    try:
        return parse_expression(source)
    except Untranslatable:
        return None


def _expression_literals(source: str) -> list[Any]:
    found: list[Any] = []

    def visit(node: Any) -> None:
        if getattr(node, "type", None) == "Literal" and getattr(node, "regex", None) is None:
            if isinstance(node.value, str | int | float | bool) and node.value != "":
                found.append(node.value)
        for child in _children(node):
            visit(child)

    tree = _parse(source)
    if tree is not None:
        visit(tree)
    return found


def _children(node: Any) -> list[Any]:
    out: list[Any] = []
    for key, value in vars(node).items() if hasattr(node, "__dict__") else []:
        if key in ("type", "loc", "range"):
            continue
        items = value if isinstance(value, list) else [value]
        out.extend(v for v in items if hasattr(v, "type"))
    return out


def node_reads(workflow: Workflow, node: Node, value: Any = None) -> list[Read]:
    """Return every value ``node``'s expressions read, resolved to trigger paths where they can be.

    ``value`` is a part of the node's parameters (one condition) to read instead of all of them.
    """
    reads: list[Read] = []
    for source in expressions(node.parameters if value is None else value):
        tree = _parse(source)
        if tree is None:
            reads.append(Read(source.strip(), None, "the expression does not parse"))
            continue
        for chain in _chains(tree):
            reads.extend(_resolve_chain(workflow, node, source.strip(), chain))
    return reads


def _chains(tree: Any) -> list[Any]:
    """Return the outermost member chains of ``tree`` (a method call's callee minus the method)."""
    found: list[Any] = []

    def visit(node: Any) -> None:
        kind = getattr(node, "type", None)
        if kind == "MemberExpression":
            found.append(node)
            base, props = member_chain(node)
            for prop in props:
                if prop.computed:
                    visit(prop.property)
            for arg in getattr(base, "arguments", None) or []:
                visit(arg)
            return
        if kind == "CallExpression" and getattr(node.callee, "type", None) == "MemberExpression":
            visit(node.callee.object)
            for arg in node.arguments:
                visit(arg)
            return
        for child in _children(node):
            visit(child)

    visit(tree)
    return found


def _key(prop: Any) -> str | int | None:
    if not prop.computed:
        return str(prop.property.name)
    if prop.property.type == "Literal" and isinstance(prop.property.value, str | int):
        value = prop.property.value
        return int(value) if isinstance(value, float) else value
    return None


def _keys(props: list[Any]) -> list[str | int] | None:
    keys = [_key(p) for p in props]
    return None if any(k is None for k in keys) else [k for k in keys if k is not None]


def _source(chain: Any) -> tuple[str | None, list[str | int] | None]:
    """Return (node the value comes from, or None for the input item; the path inside its json)."""
    base, props = member_chain(chain)
    keys = _keys(props)
    if keys is None:
        return "?computed", None
    if base.type == "Identifier" and base.name == "$json":
        return None, keys
    if base.type == "Identifier" and base.name == "$input" and keys[:2] == ["item", "json"]:
        return None, keys[2:]
    if base.type == "Identifier" and base.name == "$node" and len(keys) >= 2 and keys[1] == "json":
        return str(keys[0]), keys[2:]
    named = _named_node(base)
    if named is not None and keys[:2] == ["item", "json"]:
        return named, keys[2:]
    if (base.type == "CallExpression" and getattr(base.callee, "type", None) == "MemberExpression"
            and base.callee.property.name in _ITEM_METHODS):
        named = _named_node(base.callee.object)
        if named is not None and keys[:1] == ["json"]:
            return named, keys[1:]
    return "?other", None


def _named_node(call: Any) -> str | None:
    """Return X of a ``$('X')`` call (None for anything else)."""
    if getattr(call, "type", None) != "CallExpression" or getattr(call.callee, "name", None) != "$":
        return None
    arg = call.arguments[0] if call.arguments else None
    return str(arg.value) if arg is not None and getattr(arg, "type", None) == "Literal" else None


def _resolve_chain(workflow: Workflow, node: Node, expression: str, chain: Any) -> list[Read]:
    origin, keys = _source(chain)
    if origin == "?computed":
        return [Read(expression, None, "a field chosen by a computed key")]
    if origin == "?other" or keys is None:
        return []  # not a read of item data ($now, a literal's method, ...)
    while keys and keys[-1] in _STRIPPED_TAIL:
        keys = keys[:-1]
    if origin is None:
        return [Read(expression, path, why) for path, why in _through_input(workflow, node.name, tuple(keys), set())]
    if origin not in workflow.nodes:
        return [Read(expression, None, f"reads node {origin!r}, which the workflow does not have")]
    return [Read(expression, path, why) for path, why in _output_of(workflow, origin, tuple(keys), set())]


def _through_input(workflow: Workflow, name: str, keys: Path, seen: set[str]) -> list[tuple[Path | None, str | None]]:
    parents = [e.source for e in workflow.parents(name)]
    if not parents:
        return [(None, f"node {name!r} has no input")]
    out: list[tuple[Path | None, str | None]] = []
    for parent in dict.fromkeys(parents):
        out.extend(_output_of(workflow, parent, keys, seen))
    good = [r for r in out if r[0] is not None]
    return good or out[:1]


def _output_of(workflow: Workflow, name: str, keys: Path, seen: set[str]) -> list[tuple[Path | None, str | None]]:
    """Follow field ``keys`` of node ``name``'s output items back to the trigger."""
    if name in seen:
        return [(None, f"the value goes round a loop through {name!r}")]
    seen = seen | {name}
    node = workflow.nodes[name]
    start = workflow.trigger()
    if start is not None and name == start.name:
        return [_trigger_path(node, keys)]
    kind = node.short_type
    if kind in PASS_THROUGH:
        return _through_input(workflow, name, keys, seen)
    if kind == "set":
        return _through_set(workflow, node, keys, seen)
    what = {"httpRequest": "the response of the HTTP Request", "code": "computed by the Code"}.get(
        kind, f"the output of the {kind}")
    return [(None, f"{what} node {name!r}, not the trigger")]


def _through_set(workflow: Workflow, node: Node, keys: Path, seen: set[str]) -> list[tuple[Path | None, str | None]]:
    assigned = _set_fields(node)
    dotted = ".".join(str(k) for k in keys)
    for field_name, value in assigned.items():
        if dotted == field_name or dotted.startswith(field_name + "."):
            rest = tuple(keys[len(field_name.split(".")):])
            if not _is_expression(value):
                return [(None, f"a constant the Set node {node.name!r} assigns")]
            inner = _single_chain(str(value))
            if inner is None:
                return [(None, f"computed by an expression of the Set node {node.name!r}")]
            origin, base_keys = _source(inner)
            if origin is None and base_keys is not None:
                return _through_input(workflow, node.name, (*base_keys, *rest), seen)
            if origin in workflow.nodes and base_keys is not None:
                return _output_of(workflow, str(origin), (*base_keys, *rest), seen)
            return [(None, f"computed by an expression of the Set node {node.name!r}")]
    if _keeps_only_set(node):
        return [(None, f"the Set node {node.name!r} keeps only the fields it sets, and not this one")]
    return _through_input(workflow, node.name, keys, seen)


def _single_chain(value: str) -> Any:
    body = value[1:].strip()
    match = re.fullmatch(r"\{\{(.*)\}\}", body, re.S)
    tree = _parse(match.group(1)) if match else None
    return tree if getattr(tree, "type", None) == "MemberExpression" else None


def _set_fields(node: Node) -> dict[str, Any]:
    params = node.parameters
    assignments = (params.get("assignments") or {}).get("assignments")
    if assignments is not None:
        return {str(a.get("name", "")): a.get("value") for a in assignments}
    out: dict[str, Any] = {}
    for kind in ("string", "number", "boolean"):
        for entry in (params.get("values") or {}).get(kind) or []:
            out[str(entry.get("name", ""))] = entry.get("value")
    for entry in (params.get("fields") or {}).get("values") or []:
        kind = str(entry.get("type", "stringValue"))
        out[str(entry.get("name", ""))] = entry.get(kind)
    return out


def _keeps_only_set(node: Node) -> bool:
    params = node.parameters
    if node.version < 3:
        return bool(params.get("keepOnlySet"))
    if node.version < 3.3:
        return bool(params.get("include", "all") == "none")
    return not params.get("includeOtherFields", False)


def _trigger_path(trigger: Node, keys: Path) -> tuple[Path | None, str | None]:
    if trigger.short_type.lower() != "webhook":
        return (("body", *keys), None) if keys else (None, "the whole trigger item")
    if not keys:
        return None, "the whole webhook item"
    head, rest = keys[0], keys[1:]
    if head == "body":
        return ("body", *rest), None
    if head == "headers" and len(rest) == 1:
        return ("headers", str(rest[0]).lower()), None
    if head in ("query", "params"):
        return None, f"the webhook's {head} (a recorded trigger holds its headers and body only)"
    return None, f"the webhook item has no field {head!r}"


def conditions(value: Any) -> list[dict[str, Any]]:
    """Return every single condition in a node's parameters (the objects with a left and a right value)."""
    if isinstance(value, dict):
        if "leftValue" in value or "value1" in value:
            return [value]
        return [c for inner in value.values() for c in conditions(inner)]
    if isinstance(value, list):
        return [c for inner in value for c in conditions(inner)]
    return []


def ancestors(workflow: Workflow, name: str) -> list[str]:
    """Return the nodes upstream of ``name``, nearest first."""
    out: list[str] = []
    frontier = [e.source for e in workflow.parents(name)]
    while frontier:
        current = frontier.pop(0)
        if current in out or current == name:
            continue
        out.append(current)
        frontier.extend(e.source for e in workflow.parents(current))
    return out

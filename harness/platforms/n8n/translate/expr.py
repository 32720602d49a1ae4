"""Translate n8n parameter values and ``{{ … }}`` expressions into Python source.

A parameter that starts with ``=`` is an expression template: a single ``{{ expr }}`` yields the
expression's value, text around or between expressions makes a string (``n8n.concat``). Inside
``{{ }}`` the JavaScript is parsed with esprima and translated node by node into calls of
``queue_core.compat.n8n`` (``$json.a.b`` → ``n8n.get(item, "json", "a", "b")``, ``a + b`` →
``n8n.add(a, b)``, ``s.toLowerCase()`` → ``n8n.method(s, "toLowerCase")``, …). Anything else
raises ``Untranslatable`` with the reason, and the caller keeps the text verbatim beside a TODO.

The generated code evaluates in a scope with ``item`` (the current item), ``i`` (its index),
``items`` (the node's input items), ``flow`` (the run's ``n8n.Flow``) and ``ctx``.
"""

from __future__ import annotations

import re
from typing import Any

import esprima

from harness.errors import Untranslatable
from queue_core.compat.n8n import JS_GLOBALS, JS_METHODS

_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.S)
_OPTIONAL_CHAIN = re.compile(r"\?\.(?!\d)")
_COMPARE = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ARITH = {"-", "*", "/", "%"}


def is_expression(value: Any) -> bool:
    """Return whether a parameter value is an n8n expression (a string starting with ``=``)."""
    return isinstance(value, str) and value.startswith("=")


def value(param: Any) -> str:
    """Return Python source for a parameter: a literal, or its expression translated."""
    if is_expression(param):
        return template(param[1:])
    if isinstance(param, dict):
        return "{" + ", ".join(f"{k!r}: {value(v)}" for k, v in param.items()) + "}"
    if isinstance(param, list):
        return "[" + ", ".join(value(v) for v in param) + "]"
    return repr(param)


def template(text: str) -> str:
    """Translate an expression template (the text after ``=``)."""
    parts: list[str] = []
    pos = 0
    for match in _TEMPLATE.finditer(text):
        if match.start() > pos:
            parts.append(repr(text[pos:match.start()]))
        parts.append(expression(match.group(1)))
        pos = match.end()
    if pos < len(text):
        parts.append(repr(text[pos:]))
    if not parts:
        return repr("")
    only_expression = len(parts) == 1 and _TEMPLATE.fullmatch(text.strip()) is not None
    return parts[0] if only_expression else f"n8n.concat({', '.join(parts)})"


def expression(source: str) -> str:
    """Translate one JavaScript expression (the inside of ``{{ }}``)."""
    cleaned = _OPTIONAL_CHAIN.sub(".", source.strip())
    if not cleaned:
        return "None"
    try:
        program = esprima.parseScript(f"({cleaned})")
    except esprima.Error as exc:
        raise Untranslatable(f"not an expression this translation parses ({exc})") from None
    if len(program.body) != 1 or program.body[0].type != "ExpressionStatement":
        raise Untranslatable("more than one statement")
    return _node(program.body[0].expression)


def _node(node: Any) -> str:
    handler = _HANDLERS.get(node.type)
    if handler is None:
        raise Untranslatable(f"JavaScript {node.type} is not translated")
    return handler(node)


def _literal(node: Any) -> str:
    if node.regex is not None:
        raise Untranslatable("regular expression literals are not translated")
    return repr(node.value)


_LOCALS: list[dict[str, str]] = []  # arrow-function parameters in scope, innermost last
_ARRAY_CALLBACKS = ("map", "filter", "some", "every", "find")


def _identifier(node: Any) -> str:
    name = node.name
    for scope in reversed(_LOCALS):
        if name in scope:
            return scope[name]
    simple = {"$json": 'item["json"]', "$itemIndex": "i", "$runIndex": "0", "undefined": "None",
              "$now": "n8n.now(ctx)", "$today": "n8n.now(ctx).replace(hour=0, minute=0, second=0, microsecond=0)"}
    if name in simple:
        return simple[name]
    raise Untranslatable(f"the variable {name} is not translated")


def member_chain(node: Any) -> tuple[Any, list[Any]]:
    """Split ``a.b[c].d`` into its base and the list of property nodes."""
    props: list[Any] = []
    while node.type == "MemberExpression":
        props.append(node)
        node = node.object
    return node, list(reversed(props))


def _key(member: Any) -> str:
    if member.computed:
        return _node(member.property)
    return repr(member.property.name)


def _member(node: Any) -> str:
    base, props = member_chain(node)
    special = _special_base(base, props)
    if special is not None:
        source, props = special
    else:
        source = _node(base)
    if not props:
        return source
    keys = ", ".join(_key(p) for p in props)
    return f"n8n.get({source}, {keys})"


def _special_base(base: Any, props: list[Any]) -> tuple[str, list[Any]] | None:
    """``$('X').item``, ``$node["X"]``, ``$input.item``: the item a chain starts from."""
    if base.type == "Identifier" and base.name == "$node" and props and props[0].computed:
        _require_json(props[1:], '$node["…"]')
        return f"flow.node({_node(props[0].property)}).item(i)", props[1:]
    if (base.type == "CallExpression" and base.callee.type == "Identifier" and base.callee.name == "$"
            and props and not props[0].computed and props[0].property.name == "item"):
        _require_json(props[1:], "$('…').item")
        return f"flow.node({_node(base.arguments[0])}).item(i)", props[1:]
    if base.type == "Identifier" and base.name == "$input" and props and not props[0].computed:
        if props[0].property.name == "item":
            return "item", props[1:]
    if base.type == "Identifier" and base.name == "$execution" and len(props) == 1 and props[0].property.name == "id":
        return "str(ctx.job_id)", []
    if base.type == "Identifier" and base.name == "$workflow" and len(props) == 1:
        raise Untranslatable("$workflow is not translated")
    return None


def _require_json(props: list[Any], what: str) -> None:
    if props and (props[0].computed or props[0].property.name != "json"):
        raise Untranslatable(f"{what} is read only through .json here (.{getattr(props[0].property, 'name', '[…]')} is not)")


def _call(node: Any) -> str:
    callee = node.callee
    if (callee.type == "MemberExpression" and not callee.computed and callee.property.name in _ARRAY_CALLBACKS
            and any(a.type == "ArrowFunctionExpression" for a in node.arguments)):
        return _method_call(callee, [], list(node.arguments))
    args = [_node(a) for a in node.arguments]
    if callee.type == "Identifier" and callee.name == "$" and len(args) == 1:
        return f"flow.node({args[0]})"
    if callee.type == "Identifier" and callee.name in JS_GLOBALS:
        return f"n8n.call({callee.name!r}{''.join(', ' + a for a in args)})"
    if callee.type == "MemberExpression" and not callee.computed:
        return _method_call(callee, args, list(node.arguments))
    raise Untranslatable("a call of this function is not translated")


def _array_callback(name: str, target: str, fn: Any) -> str:
    """``xs.map(x => …)`` and its kin, with one parameter and an expression body, as comprehensions."""
    if len(fn.params) != 1 or fn.params[0].type != "Identifier" or fn.body.type == "BlockStatement":
        raise Untranslatable("an arrow function with other than one parameter and an expression body")
    var = f"v_{fn.params[0].name.lstrip('$')}_{len(_LOCALS)}"
    _LOCALS.append({fn.params[0].name: var})
    try:
        body = _node(fn.body)
    finally:
        _LOCALS.pop()
    source = f"n8n.as_list({target})"
    return {
        "map": f"[{body} for {var} in {source}]",
        "filter": f"[{var} for {var} in {source} if n8n.truthy({body})]",
        "some": f"any(n8n.truthy({body}) for {var} in {source})",
        "every": f"all(n8n.truthy({body}) for {var} in {source})",
        "find": f"next(({var} for {var} in {source} if n8n.truthy({body})), None)",
    }[name]


def _method_call(callee: Any, args: list[str], callee_args: list[Any]) -> str:
    name = callee.property.name
    obj = callee.object
    if obj.type == "Identifier" and f"{obj.name}.{name}" in JS_GLOBALS:
        return f"n8n.call({obj.name + '.' + name!r}{''.join(', ' + a for a in args)})"
    if obj.type == "Identifier" and obj.name == "$input" and name in ("first", "last", "all") and not args:
        return {"first": "(items[0] if items else None)", "last": "(items[-1] if items else None)",
                "all": "items"}[name]
    target = _node(obj)
    if name in _ARRAY_CALLBACKS and len(callee_args) == 1 and callee_args[0].type == "ArrowFunctionExpression":
        return _array_callback(name, target, callee_args[0])
    if target.startswith("flow.node(") and name in ("first", "last", "all") and not args:
        return f"{target}.{name}()"
    if name in JS_METHODS:
        return f"n8n.method({target}, {name!r}{''.join(', ' + a for a in args)})"
    raise Untranslatable(f"the method .{name}() is not translated")


def _binary(node: Any) -> str:
    left, right, op = _node(node.left), _node(node.right), node.operator
    if op == "+":
        return f"n8n.add({left}, {right})"
    if op in _ARITH:
        return f"n8n.arith({op!r}, {left}, {right})"
    if op in ("===", "!=="):
        return f"{'' if op == '===' else 'not '}n8n.strict_eq({left}, {right})"
    if op in ("==", "!="):
        return f"{'' if op == '==' else 'not '}n8n.loose_eq({left}, {right})"
    if op in _COMPARE:
        return f"n8n.compare({op!r}, {left}, {right})"
    raise Untranslatable(f"the operator {op} is not translated")


def _logical(node: Any) -> str:
    left, right = _node(node.left), _node(node.right)
    fn = {"||": "either", "&&": "both", "??": "coalesce"}[node.operator]
    return f"n8n.{fn}({left}, lambda: {right})"


def _unary(node: Any) -> str:
    arg = _node(node.argument)
    if node.operator == "!":
        return f"(not n8n.truthy({arg}))"
    if node.operator == "-":
        return f"(-n8n.num({arg}))"
    if node.operator == "+":
        return f"n8n.num({arg})"
    raise Untranslatable(f"the operator {node.operator} is not translated")


def _conditional(node: Any) -> str:
    return f"({_node(node.consequent)} if n8n.truthy({_node(node.test)}) else {_node(node.alternate)})"


def _template_literal(node: Any) -> str:
    parts: list[str] = []
    for index, quasi in enumerate(node.quasis):
        if quasi.value.cooked:
            parts.append(repr(quasi.value.cooked))
        if index < len(node.expressions):
            parts.append(_node(node.expressions[index]))
    return f"n8n.concat({', '.join(parts)})" if parts else repr("")


def _array(node: Any) -> str:
    return "[" + ", ".join(_node(e) for e in node.elements) + "]"


def _object(node: Any) -> str:
    entries = []
    for prop in node.properties:
        if prop.type != "Property" or prop.computed:
            raise Untranslatable("computed or spread object keys are not translated")
        key = prop.key.name if prop.key.type == "Identifier" else prop.key.value
        entries.append(f"{str(key)!r}: {_node(prop.value)}")
    return "{" + ", ".join(entries) + "}"


_HANDLERS = {
    "Literal": _literal, "Identifier": _identifier, "MemberExpression": _member, "CallExpression": _call,
    "BinaryExpression": _binary, "LogicalExpression": _logical, "UnaryExpression": _unary,
    "ConditionalExpression": _conditional, "TemplateLiteral": _template_literal,
    "ArrayExpression": _array, "ObjectExpression": _object,
}

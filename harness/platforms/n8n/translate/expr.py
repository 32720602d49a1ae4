"""Translate n8n parameter values and ``{{ … }}`` expressions into Python expressions (``ast`` nodes).

A parameter that starts with ``=`` is an expression template: a single ``{{ expr }}`` yields the
expression's value, text around or between expressions makes a string (``n8n.concat``). Inside
``{{ }}`` the JavaScript is parsed (``js``) and translated node by node into calls of
``queue_core.compat.n8n`` (``$json.a.b`` → ``n8n.get(item['json'], 'a', 'b')``, ``a + b`` →
``n8n.add(a, b)``, ``s.toLowerCase()`` → ``n8n.method(s, 'toLowerCase')``, …). Anything else
raises ``Untranslatable`` with the reason, and the caller keeps the text verbatim beside a TODO.
Every result is an expression node (``harness.scaffold._code``): literals are never written by
hand and each operand is parenthesised by ``ast.unparse`` as its precedence needs.

The generated code evaluates in a scope with ``item`` (the current item), ``i`` (its index),
``items`` (the node's input items), ``flow`` (the run's ``n8n.Flow``) and ``ctx``. The
parameters of arrow functions (``xs.map(x => …)``) are an ``ArrowScope`` handed down explicitly.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from harness.errors import Untranslatable
from harness.platforms.n8n.translate.js import parse_expression
from harness.scaffold._code import call, dict_of, expr, lit, name
from queue_core.compat.n8n import JS_GLOBALS, JS_METHODS

_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.S)
_COMPARE = {"<", "<=", ">", ">="}
_ARITH = {"-", "*", "/", "%"}
_ARRAY_CALLBACKS = ("map", "filter", "some", "every", "find")
_SIMPLE = {"$json": "item['json']", "$itemIndex": "i", "$runIndex": "0", "undefined": "None",
           "$now": "n8n.now(ctx)", "$today": "n8n.now(ctx).replace(hour=0, minute=0, second=0, microsecond=0)"}


@dataclass(frozen=True)
class ArrowScope:
    """The arrow-function parameters in scope, innermost last: (JavaScript name, Python name)."""

    frames: tuple[tuple[str, str], ...] = ()

    def lookup(self, js_name: str) -> str | None:
        return next((py for js, py in reversed(self.frames) if js == js_name), None)

    def with_param(self, js_name: str) -> tuple[ArrowScope, str]:
        """Return the scope with ``js_name`` bound, and its Python name (unique by depth)."""
        py = f"v_{re.sub(r'[^0-9A-Za-z_]', '_', js_name.lstrip('$'))}_{len(self.frames)}"
        return ArrowScope((*self.frames, (js_name, py))), py


def is_expression(value: Any) -> bool:
    """Return whether a parameter value is an n8n expression (a string starting with ``=``)."""
    return isinstance(value, str) and value.startswith("=")


def value(param: Any) -> ast.expr:
    """Return the Python expression of a parameter: a literal, or its expression translated."""
    if is_expression(param):
        return template(param[1:])
    if isinstance(param, dict):
        return dict_of((k, value(v)) for k, v in param.items())
    if isinstance(param, list):
        return ast.List([value(v) for v in param], ast.Load())
    return lit(param)


def template(text: str) -> ast.expr:
    """Translate an expression template (the text after ``=``): into Python where the translation is
    faithful, else kept as JavaScript for V8 (``kept``); raise Untranslatable when neither can."""
    try:
        return _python_template(text)
    except Untranslatable as exc:
        return kept(text, exc.reason)


def _python_template(text: str) -> ast.expr:
    parts: list[ast.expr] = []
    pos = 0
    for match in _TEMPLATE.finditer(text):
        if match.start() > pos:
            parts.append(lit(text[pos:match.start()]))
        parts.append(strict_part(_python_expression(match.group(1))))
        pos = match.end()
    if pos < len(text):
        parts.append(lit(text[pos:]))
    if not parts:
        return lit("")
    only_expression = len(parts) == 1 and _TEMPLATE.fullmatch(text.strip()) is not None
    return parts[0] if only_expression else call("n8n.concat", *parts)


def expression(source: str, scope: ArrowScope | None = None) -> ast.expr:
    """Translate one JavaScript expression (the inside of ``{{ }}``); kept as JavaScript as ``template``."""
    try:
        translated = _python_expression(source, scope)
        return translated if scope is not None else strict_part(translated)
    except Untranslatable as exc:
        if scope is not None:
            raise
        return kept(f"{{{{{source}}}}}", exc.reason)


_OPTIONAL_CALL = re.compile(r"""\?\.[\w$.\[\]'"?\s]*\(""")


def _python_expression(source: str, scope: ArrowScope | None = None) -> ast.expr:
    if not source.strip():
        return lit(None)
    if _OPTIONAL_CALL.search(source):  # `a?.b.c()` is undefined when a is: Python's reading calls on
        raise Untranslatable("optional chaining before a call is not translated")
    return _node(parse_expression(source), scope or ArrowScope())


_STRICT = {"get": "read", "method": "call_method", "as_list": "array_of"}


def strict_part(part: ast.expr) -> ast.expr:
    """Return one ``{{ }}`` part that reads through undefined as n8n does: a part more than a bare
    read (``$json.a.b.length > 3``) reads strictly (``n8n.read``, ``n8n.call_method`` raise where
    JavaScript throws a TypeError) inside ``n8n.part(lambda: …)``, which makes it None, as n8n's
    template engine makes it undefined. A bare read is left as it is (None either way)."""
    calls = [n for n in ast.walk(part) if isinstance(n, ast.Call) and _is_n8n_call(n, tuple(_STRICT)) and _can_throw(n)]
    if not calls or calls == [part]:  # a bare read: None either way
        return part
    for node in calls:
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        node.func = ast.Attribute(node.func.value, _STRICT[node.func.attr], ast.Load())
    return call("n8n.part", ast.Lambda(ast.arguments([], [], None, [], [], None, []), part))


def _can_throw(node: ast.Call) -> bool:
    """Whether JavaScript could throw here: a method call (an array's callback method too), or a
    read past the first field (one field of the item's json never reads through undefined)."""
    assert isinstance(node.func, ast.Attribute)
    if node.func.attr in ("method", "as_list"):
        return True
    return len(node.args) > 2 or ast.unparse(node.args[0]) != "item['json']"


def _is_n8n_call(node: ast.AST, names: tuple[str, ...]) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "n8n")


# What an expression reads that the V8 evaluation has no value for.
_UNAVAILABLE = (
    (re.compile(r"\$fromAI\s*\("), "$fromAI() (an AI agent's tool parameter)"),
    (re.compile(r"\$execution\s*\.\s*resume(?:Form)?Url"), "$execution.resumeUrl (a Wait node's resume URL)"),
    (re.compile(r"\$evaluateExpression|\$secrets|\$getWorkflowStaticData|\$http\b"),
     "$evaluateExpression, $secrets, $getWorkflowStaticData or $http"),
    (re.compile(r"\$prevNode|\$parameter|\$position|\$agentInfo|\$tool\b"),
     "$prevNode, $parameter, $position or an AI agent's variable"),
    (re.compile(r"(?:\]|\)|\$input)\s*\.\s*(?:context|parameter|params)\b"),
     "a node's context or parameters (a loop's noItemsLeft)"),
)
KEPT_CALL = "n8n.js_expression"


def kept(text: str, why: str) -> ast.expr:
    """Return the call that evaluates the template ``text`` as n8n's JavaScript in V8, for the item
    in scope (``n8n.js_expression``; ``why`` is why the Python translation did not take it).

    Raises Untranslatable when the V8 evaluation cannot be faithful either: a variable it has no
    value for, or text V8 does not compile.
    """
    for pattern, what in _UNAVAILABLE:
        if pattern.search(text):
            raise Untranslatable(f"{why}; kept as JavaScript it reads {what}, which cutover does not provide")
    from queue_core.compat._n8n_expr import syntax_error

    error = syntax_error(text)
    if error is not None:
        raise Untranslatable(f"{why}; as JavaScript it does not compile ({error})")
    return call(KEPT_CALL, name("flow"), text, name("item"), name("i"), name("items"))


def kept_count(lines: list[ast.stmt]) -> int:
    """Return how many expressions of a node's code are kept as JavaScript (``n8n.js_expression`` calls)."""
    return sum(1 for stmt in lines for n in ast.walk(stmt)
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "js_expression")


class _NodeCode(Protocol):
    lines: list[ast.stmt]
    translated: bool
    why: str | None


_Code = TypeVar("_Code", bound=_NodeCode)


def note_kept(code: _Code) -> _Code:
    """Add to a translated node's note how many of its expressions are kept as JavaScript (the
    table then reads "translated" with "JavaScript kept: …"); return the node's code."""
    count = kept_count(code.lines) if code.translated else 0
    if count:
        note = f"JavaScript kept: {count} expression{'s' if count > 1 else ''} evaluated in V8 ({KEPT_CALL})"
        code.why = "; ".join(filter(None, [code.why, note]))
    return code


def _node(node: Any, scope: ArrowScope) -> ast.expr:
    handler = _HANDLERS.get(node.type)
    if handler is None:
        raise Untranslatable(f"JavaScript {node.type} is not translated")
    return handler(node, scope)


def _literal(node: Any, scope: ArrowScope) -> ast.expr:
    if node.regex is not None:
        raise Untranslatable("regular expression literals are not translated")
    return lit(node.value)


def _identifier(node: Any, scope: ArrowScope) -> ast.expr:
    local = scope.lookup(node.name)
    if local is not None:
        return name(local)
    if node.name in _SIMPLE:
        return expr(_SIMPLE[node.name])
    raise Untranslatable(f"the variable {node.name} is not translated")


def member_chain(node: Any) -> tuple[Any, list[Any]]:
    """Split ``a.b[c].d`` into its base and the list of property nodes."""
    props: list[Any] = []
    while node.type == "MemberExpression":
        props.append(node)
        node = node.object
    return node, list(reversed(props))


def _key(member: Any, scope: ArrowScope) -> ast.expr:
    return _node(member.property, scope) if member.computed else lit(member.property.name)


def _member(node: Any, scope: ArrowScope) -> ast.expr:
    base, props = member_chain(node)
    _require_not_date(base)
    special = _special_base(base, props, scope)
    if special is not None:
        source, props = special
    else:
        source = _node(base, scope)
    if not props:
        return source
    return call("n8n.get", source, *(_key(p, scope) for p in props))


def _special_base(base: Any, props: list[Any], scope: ArrowScope) -> tuple[ast.expr, list[Any]] | None:
    """``$('X').item``, ``$node["X"]``, ``$input.item``: the item a chain starts from."""
    if base.type == "Identifier" and base.name == "$node" and props and props[0].computed:
        _require_json(props[1:], '$node["…"]')
        return expr("flow.node($n).item(i)", n=_node(props[0].property, scope)), props[1:]
    if (base.type == "CallExpression" and base.callee.type == "Identifier" and base.callee.name == "$"
            and props and not props[0].computed and props[0].property.name == "item"):
        _require_json(props[1:], "$('…').item")
        return expr("flow.node($n).item(i)", n=_node(base.arguments[0], scope)), props[1:]
    if base.type == "Identifier" and base.name == "$input" and props and not props[0].computed:
        if props[0].property.name == "item":
            return name("item"), props[1:]
    if base.type == "Identifier" and base.name == "$execution" and len(props) == 1 and props[0].property.name == "id":
        return expr("str(ctx.job_id)"), []
    if base.type == "Identifier" and base.name == "$workflow" and len(props) == 1:
        raise Untranslatable("$workflow is not translated")
    return None


def _require_not_date(base: Any) -> None:
    if base.type == "Identifier" and base.name in ("$now", "$today"):  # Luxon DateTimes, not Python's datetime
        raise Untranslatable(f"a property or method of {base.name} (a Luxon DateTime) is not translated")


def _require_json(props: list[Any], what: str) -> None:
    if props and (props[0].computed or props[0].property.name != "json"):
        raise Untranslatable(f"{what} is read only through .json here (.{getattr(props[0].property, 'name', '[…]')} is not)")


def _call(node: Any, scope: ArrowScope) -> ast.expr:
    callee = node.callee
    if (callee.type == "MemberExpression" and not callee.computed and callee.property.name in _ARRAY_CALLBACKS
            and any(a.type == "ArrowFunctionExpression" for a in node.arguments)):
        return _method_call(callee, [], list(node.arguments), scope)
    args = [_node(a, scope) for a in node.arguments]
    if callee.type == "Identifier" and callee.name == "$" and len(args) == 1:
        return call("flow.node", args[0])
    if callee.type == "Identifier" and callee.name in JS_GLOBALS:
        return call("n8n.call", callee.name, *args)
    if callee.type == "MemberExpression" and not callee.computed:
        return _method_call(callee, args, list(node.arguments), scope)
    raise Untranslatable("a call of this function is not translated")


_CALLBACKS = {
    "map": "[$body for $var in n8n.as_list($target)]",
    "filter": "[$var for $var in n8n.as_list($target) if n8n.truthy($body)]",
    "some": "any((n8n.truthy($body) for $var in n8n.as_list($target)))",
    "every": "all((n8n.truthy($body) for $var in n8n.as_list($target)))",
    "find": "next(($var for $var in n8n.as_list($target) if n8n.truthy($body)), None)",
}


def _array_callback(method: str, target: ast.expr, fn: Any, scope: ArrowScope) -> ast.expr:
    """``xs.map(x => …)`` and its kin, with one parameter and an expression body, as comprehensions."""
    if len(fn.params) != 1 or fn.params[0].type != "Identifier" or fn.body.type == "BlockStatement":
        raise Untranslatable("an arrow function with other than one parameter and an expression body")
    inner, var = scope.with_param(fn.params[0].name)
    return expr(_CALLBACKS[method], body=_node(fn.body, inner), var=name(var), target=target)


def _is_flow_node(target: ast.expr) -> bool:
    return (isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) and target.func.attr == "node"
            and isinstance(target.func.value, ast.Name) and target.func.value.id == "flow")


def _method_call(callee: Any, args: list[ast.expr], callee_args: list[Any], scope: ArrowScope) -> ast.expr:
    method = callee.property.name
    obj = callee.object
    if obj.type == "Identifier" and f"{obj.name}.{method}" in JS_GLOBALS:
        return call("n8n.call", f"{obj.name}.{method}", *args)
    if obj.type == "Identifier" and obj.name == "$input" and method in ("first", "last", "all") and not args:
        return expr({"first": "items[0] if items else None", "last": "items[-1] if items else None",
                     "all": "items"}[method])
    _require_not_date(obj)
    target = _node(obj, scope)
    if method in _ARRAY_CALLBACKS and len(callee_args) == 1 and callee_args[0].type == "ArrowFunctionExpression":
        return _array_callback(method, target, callee_args[0], scope)
    if _is_flow_node(target) and method in ("first", "last", "all") and not args:
        return ast.Call(ast.Attribute(target, method, ast.Load()), [], [])
    if method in JS_METHODS:
        return call("n8n.method", target, method, *args)
    raise Untranslatable(f"the method .{method}() is not translated")


def _binary(node: Any, scope: ArrowScope) -> ast.expr:
    left, right, op = _node(node.left, scope), _node(node.right, scope), node.operator
    if op == "+":
        return call("n8n.add", left, right)
    if op in _ARITH:
        return call("n8n.arith", op, left, right)
    if op in ("===", "!==", "==", "!="):
        same = call("n8n.strict_eq" if op in ("===", "!==") else "n8n.loose_eq", left, right)
        return same if op in ("===", "==") else expr("not $same", same=same)
    if op in _COMPARE:
        return call("n8n.compare", op, left, right)
    raise Untranslatable(f"the operator {op} is not translated")


def _logical(node: Any, scope: ArrowScope) -> ast.expr:
    left, right = _node(node.left, scope), _node(node.right, scope)
    fn = {"||": "either", "&&": "both", "??": "coalesce"}[node.operator]
    return call(f"n8n.{fn}", left, expr("lambda: $right", right=right))


def _unary(node: Any, scope: ArrowScope) -> ast.expr:
    arg = _node(node.argument, scope)
    if node.operator == "!":
        return expr("not n8n.truthy($arg)", arg=arg)
    if node.operator == "-":
        return expr("-n8n.num($arg)", arg=arg)
    if node.operator == "+":
        return call("n8n.num", arg)
    raise Untranslatable(f"the operator {node.operator} is not translated")


def _conditional(node: Any, scope: ArrowScope) -> ast.expr:
    return expr("$then if n8n.truthy($test) else $other", then=_node(node.consequent, scope),
                test=_node(node.test, scope), other=_node(node.alternate, scope))


def _template_literal(node: Any, scope: ArrowScope) -> ast.expr:
    parts: list[ast.expr] = []
    for index, quasi in enumerate(node.quasis):
        if quasi.value.cooked:
            parts.append(lit(quasi.value.cooked))
        if index < len(node.expressions):
            parts.append(_node(node.expressions[index], scope))
    return call("n8n.concat", *parts) if parts else lit("")


def _array(node: Any, scope: ArrowScope) -> ast.expr:
    return ast.List([_node(e, scope) for e in node.elements], ast.Load())


def _object(node: Any, scope: ArrowScope) -> ast.expr:
    entries = []
    for prop in node.properties:
        if prop.type != "Property" or prop.computed:
            raise Untranslatable("computed or spread object keys are not translated")
        key = prop.key.name if prop.key.type == "Identifier" else prop.key.value
        entries.append((str(key), _node(prop.value, scope)))
    return dict_of(entries)


_HANDLERS = {
    "Literal": _literal, "Identifier": _identifier, "MemberExpression": _member, "CallExpression": _call,
    "BinaryExpression": _binary, "LogicalExpression": _logical, "UnaryExpression": _unary,
    "ConditionalExpression": _conditional, "TemplateLiteral": _template_literal,
    "ArrayExpression": _array, "ObjectExpression": _object,
}

"""Workflow Definition Language values and expressions as Python (``ast``) for a scaffolded flow.

``template(raw)`` is an action input as WDL evaluates it (``_wdl_parse`` reads the ``@``
forms): a whole ``@expr`` keeps its value's type, ``@{…}`` interpolation is a string, dicts and
lists are walked, other JSON is literal. The generated expression reads the run state through
the run's methods (``run.trigger_body()``, ``run.body('X')``, ``run.variables('v')``,
``run.items('F')``: ``queue_core.compat.power_automate.Run``) and calls the function library as
``power_automate.wdl.<name>`` (``queue_core.compat._wdl``)::

    "@toLower(triggerBody()?['name'])"
    -> power_automate.wdl.toLower(power_automate.wdl.member(run.trigger_body(), 'name', safe=True))
    "Hello @{variables('who')}!"
    -> power_automate.wdl.interpolate('Hello ', run.variables('who'), '!')

A function the library does not implement (``xpath``, ``binary``…: ``_wdl.UNSUPPORTED``), an
unknown name, a wrong number of arguments, a literal time zone or locale outside the tables, or
text that is not an expression raises ``harness.errors.Untranslatable`` naming it: the caller
writes a TODO, never a traceback. Function names match ignoring case, as WDL's do. ``and``, ``or``,
``if`` and ``coalesce`` short-circuit (Python's ``and`` / ``or`` / conditional expression over
``power_automate.wdl.boolean`` checks; ``coalesce_lazy`` of lambdas), so an operand never
reached is never evaluated.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.power_automate.translate._wdl_parse import Call, Lit, Member, Node, read, walk
from harness.scaffold._code import call, dict_of, expr, lit, name
from queue_core.compat._wdl import FUNCTIONS, STATEFUL, UNSUPPORTED, literal_problem

__all__ = ["condition", "functions", "is_expression", "loops", "references", "template"]

LIBRARY = "power_automate.wdl"

# The WDL functions that read the run state, as the run's method and its number of arguments.
STATE: dict[str, tuple[str, int]] = {
    "trigger": ("trigger", 0), "triggerOutputs": ("trigger_outputs", 0), "triggerBody": ("trigger_body", 0),
    "body": ("body", 1), "actionBody": ("body", 1), "outputs": ("outputs", 1), "actionOutputs": ("outputs", 1),
    "actions": ("actions", 1), "result": ("result", 1), "variables": ("variables", 1), "item": ("item", 0),
    "items": ("items", 1), "iterationIndexes": ("iteration_indexes", 1), "parameters": ("parameters", 1),
    "workflow": ("workflow", 0),
}
# The functions whose first argument names an action (for ordering checks) or a loop.
_ACTION_READERS = {"body", "actionBody", "outputs", "actionOutputs", "actions", "result", "formDataValue",
                   "formDataMultiValues", "multipartBody"}
_LOOP_READERS = {"items", "iterationIndexes"}

_CANONICAL = {n.lower(): n for n in (*STATE, *FUNCTIONS, *UNSUPPORTED)}


def _canonical(word: str) -> str | None:
    return _CANONICAL.get(word.lower())


def _arity(function: str) -> tuple[int, int | None]:
    params = list(inspect.signature(FUNCTIONS[function]).parameters.values())
    if function in STATEFUL:
        params = params[1:]
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return sum(p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_POSITIONAL
                   for p in params), None
    return sum(p.default is inspect.Parameter.empty for p in params), len(params)


def _count(function: str, given: int, low: int, high: int | None) -> None:
    if given < low or (high is not None and given > high):
        wanted = f"{low}" if low == high else (f"at least {low}" if high is None else f"{low} to {high}")
        raise Untranslatable(f"WDL function {function}() takes {wanted} argument(s), given {given}")


class _WdlPython:
    def __init__(self, run: str) -> None:
        self.run = run

    def node(self, node: Node) -> ast.expr:
        if isinstance(node, Lit):
            return lit(node.value)
        if isinstance(node, Member):
            target, key = self.node(node.target), self.node(node.key)
            if node.safe:
                return call(f"{LIBRARY}.member", target, key, safe=True)
            return call(f"{LIBRARY}.member", target, key)
        return self.call(node)

    def call(self, node: Call) -> ast.expr:
        function = _canonical(node.name)
        if function is None:
            raise Untranslatable(f"unknown WDL function {node.name}() at position {node.pos}")
        if function in UNSUPPORTED:
            raise Untranslatable(f"WDL function {function}() is not translated: {UNSUPPORTED[function]}")
        args = [self.node(a) for a in node.args]
        if function in STATE:
            method, count = STATE[function]
            _count(function, len(args), count, count)
            return call(f"{self.run}.{method}", *args)
        low, high = _arity(function)
        _count(function, len(args), low, high)
        problem = literal_problem(function, [a.value if isinstance(a, Lit) else ... for a in node.args])
        if problem is not None:
            raise Untranslatable(f"WDL function {function}(): {problem}")
        if function in ("and", "or") and len(args) > 1:   # short-circuits, as Logic Apps evaluates it
            return ast.BoolOp(ast.And() if function == "and" else ast.Or(),
                              [call(f"{LIBRARY}.boolean", a, function) for a in args])
        if function == "if":                               # only the branch taken is evaluated
            return ast.IfExp(call(f"{LIBRARY}.boolean", args[0]), args[1], args[2])
        if function == "coalesce" and not all(isinstance(a, Lit) for a in node.args[1:]):
            return call(f"{LIBRARY}.coalesce_lazy", *[expr("lambda: $v", v=a) for a in args])
        python = FUNCTIONS[function].__name__
        if function in STATEFUL:
            return call(f"{LIBRARY}.{python}", name(self.run), *args)
        return call(f"{LIBRARY}.{python}", *args)

    def value(self, raw: Any) -> ast.expr:
        if isinstance(raw, dict):
            return dict_of((self.value(k) if isinstance(k, str) and is_expression(k) else k, self.value(v))
                           for k, v in raw.items())
        if isinstance(raw, list):
            return ast.List([self.value(v) for v in raw], ast.Load())
        if not isinstance(raw, str):
            return lit(raw)
        try:
            form, found = read(raw)
            if form == "literal":
                return lit(found)
            if form == "expression":
                return self.node(found)
            return call(f"{LIBRARY}.interpolate", *[p if isinstance(p, str) else self.node(p) for p in found])
        except Untranslatable as err:
            if repr(raw) in err.reason or repr(raw[1:]) in err.reason:
                raise
            raise Untranslatable(f"{err.reason} in {raw!r}") from None


def template(raw: Any, *, run: str = "run") -> ast.expr:
    """Return the Python expression of the action input ``raw`` (any JSON value) as WDL evaluates it."""
    return _WdlPython(run).value(raw)


def condition(raw: Any, *, run: str = "run") -> ast.expr:
    """Return the Python test of an ``If`` / ``Until`` expression: its value, which must be a Boolean."""
    if isinstance(raw, bool):
        return lit(raw)
    return call(f"{LIBRARY}.truth", template(raw, run=run))


def is_expression(raw: Any) -> bool:
    """Return whether the string ``raw`` is evaluated (``@expr`` or ``@{…}``), not a literal."""
    if not isinstance(raw, str) or raw.startswith("@@") or raw == "@":
        return False
    return raw.startswith("@") or "@{" in raw.replace("@@{", "")


def _nodes(raw: Any) -> list[Node]:
    if isinstance(raw, dict):
        return [n for k, v in raw.items() for n in (*_nodes(k), *_nodes(v))]
    if isinstance(raw, list):
        return [n for v in raw for n in _nodes(v)]
    if not isinstance(raw, str) or not is_expression(raw):
        return []
    form, found = read(raw)
    roots = [found] if form == "expression" else [p for p in found if not isinstance(p, str)] if form == "parts" else []
    return [n for root in roots for n in walk(root)]


def _first_literals(raw: Any, readers: set[str]) -> set[str]:
    out: set[str] = set()
    for node in _nodes(raw):
        if isinstance(node, Call) and _canonical(node.name) in readers and node.args \
                and isinstance(node.args[0], Lit) and isinstance(node.args[0].value, str):
            out.add(node.args[0].value)
    return out


def references(raw: Any) -> set[str]:
    """Return the action names ``raw`` reads (``body('X')``, ``outputs('X')``, ``actions('X')``, ``result('S')``…)."""
    return _first_literals(raw, _ACTION_READERS)


def loops(raw: Any) -> set[str]:
    """Return the loop names ``raw`` reads (``items('F')``, ``iterationIndexes('U')``)."""
    return _first_literals(raw, _LOOP_READERS)


def functions(raw: Any) -> set[str]:
    """Return the WDL functions ``raw`` calls, by canonical name (unknown ones as written)."""
    return {_canonical(n.name) or n.name for n in _nodes(raw) if isinstance(n, Call)}

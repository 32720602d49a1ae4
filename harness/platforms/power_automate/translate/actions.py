"""Translate one (non-container) WDL action into the body of its inner function.

A translator gets the action and the ``FlowBuild`` (providers, names chosen so far) and returns an
``ActionCode``: statements ending in ``return <the action's outputs>`` (``power_automate.NO_OUTPUTS``
for an action that has none), built as ``ast`` nodes. What each action does at run time is
``queue_core.compat._pa_actions``; HTTP and the connectors are ``connectors``. An action with no
translation is a TODO: reaching it fails the run, naming it (``power_automate.todo``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.power_automate.definition import FlowAction, obj
from harness.platforms.power_automate.translate import connectors
from harness.platforms.power_automate.translate.gen import ActionCode, FlowBuild, row_type, todo
from harness.platforms.power_automate.translate.values import value
from harness.scaffold import _code
from harness.scaffold._code import call, lit, name, stmts


def _inputs(action: FlowAction) -> dict[str, Any]:
    raw = action.inputs
    if not isinstance(raw, dict):
        raise Untranslatable("its inputs are not an object")
    return raw


def _returns(outputs: ast.expr) -> list[ast.stmt]:
    return [ast.Return(outputs)]


def compose(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Compose: the outputs are the inputs, evaluated."""
    return ActionCode(_returns(call("power_automate.compose", value(action.inputs))))


def initialize(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Initialize variable: each ``{name, type, value}`` declared (a value of another type fails it)."""
    variables = _inputs(action).get("variables")
    if not isinstance(variables, list) or not all(isinstance(v, dict) and isinstance(v.get("name"), str) for v in variables):
        raise Untranslatable("inputs.variables is not a list of {name, type, value}")
    declared = ast.List([_code.dict_of((k, value(v) if k == "value" else lit(v)) for k, v in d.items()
                                       if k in ("name", "type", "value")) for d in variables], ast.Load())
    return ActionCode(_returns(call("power_automate.initialize", name("run"), declared)))


def _variable(function: str, action: FlowAction, *, by: str = "value") -> ActionCode:
    inputs = _inputs(action)
    if not isinstance(inputs.get("name"), str):
        raise Untranslatable("inputs.name is not a variable name")
    args: list[Any] = [name("run"), inputs["name"]]
    if by in inputs:
        args.append(value(inputs[by]))
    elif function in ("set_variable", "append_array", "append_string"):
        args.append(lit(None))
    return ActionCode(_returns(call(f"power_automate.{function}", *args)))


TRANSLATORS_OF_VARIABLES: dict[str, Callable[[FlowAction, FlowBuild], ActionCode]] = {
    "SetVariable": lambda a, g: _variable("set_variable", a),
    "IncrementVariable": lambda a, g: _variable("increment", a),
    "DecrementVariable": lambda a, g: _variable("decrement", a),
    "AppendToArrayVariable": lambda a, g: _variable("append_array", a),
    "AppendToStringVariable": lambda a, g: _variable("append_string", a),
}


def parse_json(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Parse JSON: the content parsed (text) or taken (a value), checked against the schema."""
    inputs = _inputs(action)
    return ActionCode(_returns(call("power_automate.parse_json", value(inputs.get("content")), lit(inputs.get("schema")))),
                      note="the schema's type / required / properties / items are checked")


def _per_item(raw: Any) -> ast.expr:
    """Return ``lambda run: <raw>``: a value evaluated per element, ``item()`` the element."""
    return ast.Lambda(ast.arguments([], [ast.arg("run")], None, [], [], None, []), value(raw))


def query(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Filter array: the elements of ``from`` for which ``where`` holds."""
    inputs = _inputs(action)
    return ActionCode(_returns(call("power_automate.query", name("run"), action.name, value(inputs.get("from")),
                                    _per_item(inputs.get("where")))))


def select(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Select: ``select`` evaluated per element of ``from``."""
    inputs = _inputs(action)
    return ActionCode(_returns(call("power_automate.select", name("run"), action.name, value(inputs.get("from")),
                                    _per_item(inputs.get("select")))))


def join(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Join: the elements of ``from`` as text joined by ``joinWith``."""
    inputs = _inputs(action)
    return ActionCode(_returns(call("power_automate.join", value(inputs.get("from")), value(inputs.get("joinWith", "")),
                                    action.name)))


def table(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Create CSV / HTML table: automatic columns, or the given ``{header, value}`` columns."""
    inputs = _inputs(action)
    kind = str(inputs.get("format") or "CSV")
    if kind.upper() not in ("CSV", "HTML"):
        raise Untranslatable(f"table format {kind!r} is not translated")
    columns = inputs.get("columns")
    cols: ast.expr = lit(None)
    if columns is not None:
        if not isinstance(columns, list) or not all(isinstance(c, dict) for c in columns):
            raise Untranslatable("inputs.columns is not a list of {header, value}")
        cols = ast.List([ast.Tuple([value(c.get("header", "")), _per_item(c.get("value"))], ast.Load())
                         for c in columns], ast.Load())
    return ActionCode(_returns(call("power_automate.table", name("run"), action.name, value(inputs.get("from")),
                                    kind, cols)))


def response(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Response: the answer to the Request trigger's caller (``ctx.respond``)."""
    inputs = _inputs(action)
    return ActionCode(_returns(ast.Await(call("power_automate.respond", name("ctx"), value(inputs.get("statusCode", 200)),
                                              value(inputs.get("headers") or {}), value(inputs.get("body"))))),
                      note="answers the caller (ctx.respond)")


def wait(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Delay: a durable sleep of ``interval``; Delay until: a durable sleep until ``until.timestamp``."""
    inputs = _inputs(action)
    interval = inputs.get("interval")
    if not isinstance(interval, dict):
        raise Untranslatable("a Delay until (inputs.until) is not translated; Delay (inputs.interval) is")
    return ActionCode(_returns(ast.Await(call("power_automate.wait", name("ctx"), value(interval.get("count")),
                                              value(interval.get("unit"))))), note="a durable ctx.sleep")


def terminate(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Terminate: the run ends now with ``runStatus`` (its error code and message when Failed)."""
    inputs = _inputs(action)
    error = obj(inputs.get("runError"))
    return ActionCode(_returns(call("power_automate.terminate", value(inputs.get("runStatus", "Succeeded")),
                                    value(error.get("code", "")), value(error.get("message", "")))))


def expression(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """The Text functions' "Find text position" (Expression, kind IndexOf): the body is the index (-1: none)."""
    if action.spec.get("kind") != "IndexOf":
        raise Untranslatable(f"the text function {action.spec.get('kind')!r} is not translated (IndexOf is)")
    inputs = _inputs(action)
    return ActionCode(stmts("return {'body': power_automate.text($text).find(power_automate.text($search))}",
                            text=value(inputs.get("text")), search=value(inputs.get("searchText"))),
                      note="the index is of the text as given (case-sensitive)")


TRANSLATORS: dict[str, Callable[[FlowAction, FlowBuild], ActionCode]] = {
    "Compose": compose, "InitializeVariable": initialize, **TRANSLATORS_OF_VARIABLES, "ParseJson": parse_json,
    "Query": query, "Select": select, "Join": join, "Table": table, "Response": response, "Wait": wait,
    "Terminate": terminate, "Expression": expression,
}


def translate(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Translate a non-container action, or return its TODO (the reason named)."""
    translator = TRANSLATORS.get(action.kind) or connectors.TRANSLATORS.get(action.kind)
    if translator is None:
        return todo(action, f"no translation for action type {action.kind}")
    try:
        return translator(action, gen)
    except Untranslatable as exc:
        return todo(action, exc.reason)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # inputs of a shape no one expects
        return todo(action, f"its inputs could not be read ({type(exc).__name__}: {exc})")

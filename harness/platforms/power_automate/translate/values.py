"""An action's input values as Python expressions: WDL expressions through ``expr.template``, and
the Condition designer's expression objects (``{"and": [{"equals": [a, b]}]}``) as tests.

``value`` is the one door to the expression translator (``expr``, the WDL parser and function
library); ``condition`` builds an If's or an Until's test from the designer's object form, each
comparison a WDL function of ``queue_core.compat._wdl`` (``power_automate.wdl.equals``).
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.power_automate.translate.expr import template
from harness.scaffold._code import call, lit

# The designer's comparison operators: each is the WDL function of the same name.
COMPARISONS = ("equals", "greater", "greaterOrEquals", "less", "lessOrEquals", "contains", "startsWith", "endsWith")


def value(raw: Any) -> ast.expr:
    """Return the Python expression that evaluates an input value at run time (reading ``run``)."""
    return template(raw)


def literal(raw: Any) -> bool:
    """Return whether ``raw`` holds no expression (no string in it starts with ``@`` or holds ``@{``)."""
    if isinstance(raw, str):
        return not (raw.startswith("@") or "@{" in raw)
    if isinstance(raw, dict):
        return all(literal(k) and literal(v) for k, v in raw.items())
    if isinstance(raw, list):
        return all(literal(v) for v in raw)
    return True


def condition(raw: Any) -> ast.expr:
    """Return the test of an If / Until ``expression``: a WDL expression, or the designer's object form."""
    if isinstance(raw, str):
        return value(raw)
    if isinstance(raw, bool):
        return lit(raw)
    if not isinstance(raw, dict) or len(raw) != 1:
        raise Untranslatable(f"the condition {str(raw)[:80]!r} is not one operator object")
    ((op, args),) = raw.items()
    if op in ("and", "or"):
        if not isinstance(args, list) or not args:
            raise Untranslatable(f"'{op}' needs a list of conditions")
        return ast.BoolOp(ast.And() if op == "and" else ast.Or(), [condition(a) for a in args])
    if op == "not":
        return ast.UnaryOp(ast.Not(), condition(args))
    if op in COMPARISONS:
        if not isinstance(args, list) or len(args) != 2:
            raise Untranslatable(f"'{op}' needs two operands")
        return call(f"power_automate.wdl.{op}", value(args[0]), value(args[1]))
    raise Untranslatable(f"the condition operator {op!r} is not translated")

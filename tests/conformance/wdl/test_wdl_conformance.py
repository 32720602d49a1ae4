"""Every pinned WDL example, translated and run: the generated Python gives the reference's result."""

from __future__ import annotations

import ast
import types
from decimal import Decimal
from typing import Any

import pytest

from harness.platforms.power_automate.translate import expr
from queue_core.compat import _wdl
from queue_core.errors import TerminalError
from tests.conformance.wdl import cases_collection, cases_convert, cases_date, cases_logic_math, cases_string
from tests.conformance.wdl import cases_observed, cases_workflow
from tests.conformance.wdl._case import Case, Fails, RunState

CASES: list[Case] = [*cases_string.CASES, *cases_collection.CASES, *cases_logic_math.CASES, *cases_convert.CASES,
                     *cases_date.CASES, *cases_workflow.CASES, *cases_observed.CASES]


def _runtime() -> Any:
    """The module generated code imports as ``power_automate`` (pa's, once it re-exports ``wdl``)."""
    try:
        from queue_core.compat import power_automate
    except ImportError:
        power_automate = None  # type: ignore[assignment]
    if power_automate is not None and getattr(power_automate, "wdl", None) is _wdl:
        return power_automate
    return types.SimpleNamespace(wdl=_wdl)


def evaluate(case: Case) -> Any:
    """Translate the case's input and run the generated expression against its run state."""
    tree = ast.fix_missing_locations(ast.Expression(expr.template(case.expression)))
    code = compile(tree, f"<{case.source}>", "eval")
    return eval(code, {"power_automate": _runtime(), "run": RunState(case.state)})  # noqa: S307 - our own ast


def same(actual: Any, expected: Any) -> bool:
    """Return whether ``actual`` is the reference's ``expected`` (floats to 1e-9; an int must be an int)."""
    if callable(expected) and not isinstance(expected, type):
        return bool(expected(actual))
    if isinstance(expected, bool) or expected is None:
        return actual is expected
    if isinstance(expected, int):
        return type(actual) is int and actual == expected
    if isinstance(expected, float):
        return isinstance(actual, int | float | Decimal) and not isinstance(actual, bool) \
            and float(actual) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) \
            and all(same(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict):
        return isinstance(actual, dict) and actual.keys() == expected.keys() \
            and all(same(actual[k], expected[k]) for k in expected)
    return type(actual) is type(expected) and actual == expected


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reference_example(case: Case) -> None:
    if isinstance(case.expected, Fails):
        with pytest.raises(TerminalError, match=case.expected.text):
            evaluate(case)
        return
    actual = evaluate(case)
    assert same(actual, case.expected), f"{case.expression} gave {actual!r}; the reference ({case.source}) gives " \
                                        f"{case.expected!r}"


def test_every_implemented_function_has_a_pinned_case() -> None:
    pinned = {name for case in CASES if not isinstance(case.expected, Fails) for name in expr.functions(case.expression)}
    missing = sorted(set(_wdl.FUNCTIONS) - pinned)
    assert missing == [], f"implemented WDL functions without a pinned reference case: {missing}"


def test_implemented_and_unsupported_are_disjoint_and_name_real_functions() -> None:
    assert set(_wdl.FUNCTIONS).isdisjoint(_wdl.UNSUPPORTED)
    assert set(expr.STATE).isdisjoint(_wdl.FUNCTIONS)
    assert all(reason for reason in _wdl.UNSUPPORTED.values())

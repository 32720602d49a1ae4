"""The automation-module mutator: every kind of change compiles, sits on the right line, in a fixed order."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from harness.mutate.mutator import KINDS, compile_mutant, mutants, mutated_tree

SOURCE = textwrap.dedent('''\
    """A docstring that is never mutated."""

    from queue_core import automation

    LIMIT = 100
    __all__ = ["route"]


    @automation("route", version=2)
    async def route(ctx, trigger: dict) -> None:
        """Neither is this one."""
        size = trigger.body["size"]
        if size > LIMIT and trigger.body.get("vip"):
            ctx.decide("tier", "big")
        await ctx.call("crm", "POST", "/leads", json={"size": size, "tier": "x"}, step="create")
        names = [n for n in trigger.body["names"] if n]
        return None if not names else names[0]
    ''')


def _by(kind: str) -> list:
    return [m for m in mutants(SOURCE) if m.kind == kind]


def test_every_kind_is_produced_and_every_mutant_compiles() -> None:
    found = mutants(SOURCE)
    assert {m.kind for m in found} == set(KINDS)
    for m in found:
        compile_mutant(SOURCE, m.number, "route.py")  # raises on a broken tree
        assert ast.unparse(mutated_tree(SOURCE, m.number)) != ast.unparse(ast.parse(SOURCE)), m


def test_comparison_operators_are_swapped_on_their_line() -> None:
    [compare] = _by("compare")
    assert (compare.line, compare.before, compare.after) == (13, "size > LIMIT", "size >= LIMIT")


def test_constants_change_and_docstrings_decorators_and_dunder_all_do_not() -> None:
    changed = {(m.line, m.before, m.after) for m in _by("constant")}
    assert (5, "100", "101") in changed
    assert (14, "'big'", "'XXbigXX'") in changed
    assert (15, "'/leads'", "'XX/leadsXX'") in changed
    lines = {m.line for m in mutants(SOURCE)}
    assert not lines & {1, 3, 6, 9, 11}  # docstring, import, __all__, decorator, function docstring


def test_conditions_are_negated_and_and_or_swapped() -> None:
    shown = {(m.line, m.before, m.after) for m in _by("condition")}
    assert (13, "size > LIMIT and trigger.body.get('vip')", "not (size > LIMIT and trigger.body.get('vip'))") in shown
    assert (13, "size > LIMIT and trigger.body.get('vip')", "size > LIMIT or trigger.body.get('vip')") in shown
    assert (16, "n", "not n") in shown  # a comprehension's if
    assert (17, "not names", "names") in shown  # a conditional expression's test, un-negated


def test_dict_entries_and_keyword_arguments_are_dropped() -> None:
    dropped = {(m.line, m.before) for m in _by("dropped-field")}
    assert dropped == {(15, "json={'size': size, 'tier': 'x'}"), (15, "'size': size"), (15, "'tier': 'x'"),
                       (15, "step='create'")}
    tree = ast.unparse(mutated_tree(SOURCE, next(m.number for m in _by("dropped-field") if m.before == "'size': size")))
    assert "json={'tier': 'x'}" in tree


def test_a_statement_that_is_only_a_call_is_removed() -> None:
    removed = _by("removed-call")
    assert [(m.line, m.after, m.in_function) for m in removed] == [(14, "pass", True), (15, "pass", True)]
    assert removed[1].before.startswith("await ctx.call('crm', 'POST'")


def test_module_level_code_is_marked_as_such() -> None:
    limit = next(m for m in mutants(SOURCE) if m.line == 5)
    assert not limit.in_function
    assert all(m.in_function for m in mutants(SOURCE) if m.line >= 12)


def test_the_order_is_source_order_and_the_same_on_every_parse() -> None:
    first, again = mutants(SOURCE), mutants(SOURCE)
    assert first == again
    assert [m.number for m in first] == list(range(1, len(first) + 1))
    assert [(m.line, m.col) for m in first] == sorted((m.line, m.col) for m in first)


def test_a_multi_line_change_covers_its_lines_and_its_statement() -> None:
    source = "def f(x):\n    return g(\n        x,\n        key=1,\n    )\n"
    [kw] = [m for m in mutants(source) if m.kind == "dropped-field"]
    assert (kw.line, kw.stmt_line) == (4, 2) and kw.lines == {2, 4}


def test_an_unknown_number_is_refused() -> None:
    with pytest.raises(IndexError, match="mutant 999"):
        mutated_tree(SOURCE, 999)


@pytest.mark.parametrize("module", sorted(Path(__file__).resolve().parents[2].glob("automations/[!_]*.py")),
                         ids=lambda p: p.stem)
def test_every_mutant_of_the_demo_automations_compiles(module: Path) -> None:
    source = module.read_text("utf-8")
    found = mutants(source, str(module))
    assert found, module
    for m in found:
        compile_mutant(source, m.number, str(module))

"""IML that cannot be read is a TODO naming the reason, never an exception out of the translator;
the readable forms the estate uses translate."""

from __future__ import annotations

import ast

import pytest

from harness.errors import Untranslatable
from harness.platforms.make.translate.iml import expression, template

UNREADABLE = [
    "{{`1`}}", "{{var.scenario.operationsConsumed}}", "{{var.input.email}}", '{{formatDate(now; \\"YYYY\\")}}', "{{1.a +}}",
    "{{(1.a}}", "{{shuffle(1.a)}}", "{{1.a)}}", "{{;}}", "{{if(}}", "{{ }}x", "{{1.a", "{{\"}}", "{{1..a}}",
    "{{[}}", "{{)(}}", "{{%}}", "{{get(1.a; )", "{{a.b}}", "{{1.a[}}",
]


@pytest.mark.parametrize("raw", UNREADABLE)
def test_unreadable_iml_raises_only_untranslatable(raw: str) -> None:
    try:
        template(raw)
    except Untranslatable as exc:
        assert exc.reason
    # a form that does read is fine too: what matters is that nothing else escapes


@pytest.mark.parametrize(("raw", "why"), [
    ("{{var.scenario.operationsConsumed}}", "system variable is not known"),
    ("{{var.input.email}}", "scenario input"),
    ("{{`1`}}", "a whole module's output"),
])
def test_the_reason_names_what_is_missing(raw: str, why: str) -> None:
    with pytest.raises(Untranslatable, match=why):
        template(raw)


@pytest.mark.parametrize("source", [
    'if(38.Testing; "*Testing* of "; )', "first(2.data).supplier_id", "var.scenario.name",
    "var.scenario.executionId", 'formatDate(parseDate(1.date; "D/M/YYYY"); "YYYY-MM-DD")', "(1.a).b",
])
def test_the_estate_forms_translate(source: str) -> None:
    assert isinstance(expression(source), ast.expr)

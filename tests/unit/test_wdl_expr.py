"""WDL expressions as Python: how expr.template reads @expr, @@, @{…}, property access and errors."""

from __future__ import annotations

import ast
import types
from typing import Any

import pytest

from harness.errors import Untranslatable
from harness.platforms.power_automate.translate import expr
from queue_core.compat import _wdl
from queue_core.errors import TerminalError


def src(raw: Any) -> str:
    return ast.unparse(expr.template(raw))


class _Run:
    """The readers generated code calls on ``run`` (compat.power_automate.Run's interface)."""

    def __init__(self, body: Any = None, variables: dict[str, Any] | None = None,
                 outputs: dict[str, Any] | None = None) -> None:
        self._body, self._variables, self._outputs = body, variables or {}, outputs or {}

    def trigger_body(self) -> Any:
        return self._body

    def variables(self, name: str) -> Any:
        return self._variables[name]

    def outputs(self, name: str) -> Any:
        return self._outputs.get(name)

    def body(self, name: str) -> Any:
        found = self._outputs.get(name)
        return found.get("body") if isinstance(found, dict) else None


def run(raw: Any, state: _Run | None = None) -> Any:
    code = compile(ast.fix_missing_locations(ast.Expression(expr.template(raw))), "<wdl>", "eval")
    return eval(code, {"power_automate": types.SimpleNamespace(wdl=_wdl), "run": state or _Run()})  # noqa: S307


# -- the forms of a value ------------------------------------------------------------------------


def test_a_whole_expression_keeps_its_type() -> None:
    assert src("@variables('n')") == "run.variables('n')"
    assert run("@variables('n')", _Run(variables={"n": [1, 2]})) == [1, 2]


def test_double_at_escapes_a_literal_at() -> None:
    assert run("@@mention") == "@mention"
    assert run("mail me @ home") == "mail me @ home"
    assert run("costs @@{not an expression}") == "costs @{not an expression}"
    assert run("@") == "@"
    assert not expr.is_expression("@")


def test_interpolation_is_a_string_concatenation_of_texts() -> None:
    assert src("Hi @{variables('who')}!") == "power_automate.wdl.interpolate('Hi ', run.variables('who'), '!')"
    state = _Run(variables={"who": "Ann", "n": 3, "ok": True, "obj": {"a": 1}, "none": None})
    assert run("Hi @{variables('who')}!", state) == "Hi Ann!"
    assert run("@{variables('n')}", state) == "3"
    assert run("@{variables('ok')}/@{variables('none')}/@{variables('obj')}", state) == 'True//{"a":1}'


def test_an_interpolated_expression_may_hold_braces_and_quotes_in_its_strings() -> None:
    assert run("x @{concat('{', 'it''s', '}')} y") == "x {it's} y"


def test_dicts_and_lists_are_walked_and_other_json_is_literal() -> None:
    state = _Run(variables={"v": 7})
    raw = {"a": "@variables('v')", "b": [1, "n=@{variables('v')}", None, True, 2.5], "@{variables('v')}": "k"}
    assert run(raw, state) == {"a": 7, "b": [1, "n=7", None, True, 2.5], "7": "k"}
    assert src(12) == "12"


# -- the expression grammar ------------------------------------------------------------------------


def test_string_literals_double_their_quotes_and_numbers_keep_their_kind() -> None:
    assert run("@concat('it''s', '')") == "it's"
    assert run("@createArray(10, -5, +54, 10.3, .3, 1., 1e3, 3.2e-1)") == [10, -5, 54, 10.3, 0.3, 1.0, 1000.0, 0.32]
    assert [type(v) for v in run("@createArray(1, 1.0)")] == [int, float]
    assert run("@createArray(true, false, null)") == [True, False, None]


def test_function_names_ignore_case_as_wdl_does() -> None:
    assert src("@TOLOWER('A')") == "power_automate.wdl.toLower('A')"
    assert src("@triggerbody()") == "run.trigger_body()"


def test_python_keyword_and_builtin_names_get_an_underscore() -> None:
    assert src("@createArray(not(false), int('1'), max(1, 2), float('2'), json('[]'), range(0, 1))") == \
        "power_automate.wdl.createArray(power_automate.wdl.not_(False), power_automate.wdl.int_('1'), " \
        "power_automate.wdl.max_(1, 2), power_automate.wdl.float_('2'), power_automate.wdl.json_('[]'), " \
        "power_automate.wdl.range_(0, 1))"


def test_and_or_and_if_short_circuit() -> None:
    assert src("@if(and(true, false), 1, 2)") == \
        "1 if power_automate.wdl.boolean(power_automate.wdl.boolean(True, 'and') and " \
        "power_automate.wdl.boolean(False, 'and')) else 2"
    assert run("@and(false, int('not a number'))") is False
    assert run("@or(true, int('not a number'))") is True
    assert run("@if(true, 1, int('not a number'))") == 1
    assert run("@if(false, int('not a number'), 2)") == 2
    assert run("@and(true)") is True
    with pytest.raises(TerminalError, match="'int' could not parse"):
        run("@and(int('not a number'), false)")
    with pytest.raises(TerminalError, match="'if' expects its parameter to be a boolean"):
        run("@if('yes', 1, 2)")


def test_member_access_forms() -> None:
    state = _Run(body={"a": {"b": [10, 20]}, "Name": "x"})
    assert src("@triggerBody()['a'].b[1]") == \
        "power_automate.wdl.member(power_automate.wdl.member(power_automate.wdl.member(run.trigger_body(), 'a'), " \
        "'b'), 1)"
    assert run("@triggerBody()['a'].b[1]", state) == 20
    assert run("@triggerBody()?.a?['b']?[0]", state) == 10


def test_the_null_conditional_reads_null_where_plain_access_fails() -> None:
    state = _Run(body={"a": None})
    assert run("@triggerBody()?['missing']", state) is None
    assert run("@triggerBody()?['a']?['b']", state) is None
    with pytest.raises(TerminalError, match="'missing'.*doesn't exist"):
        run("@triggerBody()['missing']", state)
    with pytest.raises(TerminalError, match="null"):
        run("@triggerBody()['a']['b']", state)


def test_property_names_match_ignoring_case_and_slash_paths_read_down() -> None:
    state = _Run(body={"Name": "x"}, outputs={"Get_items": {"body": {"value": [1, 2]}}})
    assert run("@triggerBody()?['name']", state) == "x"
    assert run("@outputs('Get_items')?['body/value']", state) == [1, 2]


def test_nesting() -> None:
    state = _Run(variables={"names": ["b", "A"]})
    assert run("@toUpper(join(sort(createArray(first(variables('names')), last(variables('names')))), '-'))",
               state) == "A-B"


def test_conditions_need_a_boolean() -> None:
    state = _Run(variables={"n": 3})
    code = ast.unparse(expr.condition("@greater(variables('n'), 2)"))
    assert code == "power_automate.wdl.truth(power_automate.wdl.greater(run.variables('n'), 2))"
    assert ast.unparse(expr.condition(True)) == "True"
    with pytest.raises(TerminalError, match="Boolean"):
        _wdl.truth(3)


def test_the_run_name_can_be_chosen() -> None:
    assert ast.unparse(expr.template("@utcNow()", run="child")) == "power_automate.wdl.utcNow(child)"


# -- what a caller learns without translating -------------------------------------------------------


def test_is_expression() -> None:
    assert expr.is_expression("@body('X')")
    assert expr.is_expression("a @{b()} c")
    assert not expr.is_expression("@@x")
    assert not expr.is_expression("a @@{b} c")
    assert not expr.is_expression("plain")
    assert not expr.is_expression(3)


def test_references_loops_and_functions() -> None:
    raw = {"x": "@body('Get')?['v']", "y": ["@{outputs('Compose')} @{actions('Scope').status}"],
           "z": "@items('For_each')", "w": "@result('Try')", "u": "@iterationIndexes('Until')"}
    assert expr.references(raw) == {"Get", "Compose", "Scope", "Try"}
    assert expr.loops(raw) == {"For_each", "Until"}
    assert expr.functions("@toLower(CONCAT('a', body('b')))") == {"toLower", "concat", "body"}
    assert expr.references("@body(variables('which'))") == set()


# -- errors name the function or the position --------------------------------------------------------


@pytest.mark.parametrize(("raw", "message"), [
    ("@xpath(xml(body('X')), '/a')", "xpath() is not translated: XPath over XML values is not implemented"),
    ("@dataUriToBinary('data:,a')", "dataUriToBinary() is not translated: the content type"),
    ("@frobnicate(1)", "unknown WDL function frobnicate() at position 1 in '@frobnicate(1)'"),
    ("x @{frobnicate(1)}", "unknown WDL function frobnicate() at position 4"),
    ("@toLower()", "toLower() takes 1 argument(s), given 0"),
    ("@concat()", "concat() takes at least"),
    ("@substring('a', 1, 2, 3)", "substring() takes 2 to 3 argument(s), given 4"),
    ("@body()", "body() takes 1 argument(s), given 0"),
    ("@concat('a',", "unreadable WDL expression \"@concat('a',\": expected a value, found the end at position 12"),
    ("@concat('a'", "expected ')'"),
    ("@toLower('a') b", "unexpected 'b' after the expression at position 14"),
    ("@toLower('a", "unterminated string literal"),
    ("@variables", "'variables' is neither a function call nor true/false/null"),
    ("a @{toLower('x') b", "expected '}'"),
    ("@convertFromUtc(utcNow(), 'Mars Standard Time')", "time zone 'Mars Standard Time' is not in the translation's"),
    ("@formatNumber(1, 'N', 'xx-yy')", "locale 'xx-yy' is not one the translation formats numbers for"),
    ("@formatDateTime(utcNow(), 'D', 'ja-jp')", "locale 'ja-jp' is not one the translation has month and day names"),
])
def test_untranslatable_names_what_and_where(raw: str, message: str) -> None:
    with pytest.raises(Untranslatable) as caught:
        expr.template(raw)
    assert message in caught.value.reason


def test_nesting_too_deep_is_untranslatable_not_a_recursion_error() -> None:
    assert run("@" + "concat(" * 50 + "'a'" + ")" * 50) == "a"
    with pytest.raises(Untranslatable, match="nested more than 100 levels deep"):
        expr.template("@" + "concat(" * 2000 + "'a'" + ")" * 2000)


def test_random_text_is_translated_or_untranslatable_never_a_traceback() -> None:
    import random
    pieces = ["@", "@{", "}", "(", ")", "[", "]", "'", "''", "?", ".", ",", "-", "+", " ", "1", "2.5", "e", "a", "_",
              "concat(", "toLower(", "body('x')", "?['k']", "null", "true"]
    chooser = random.Random(25)
    for _ in range(5000):
        raw = "".join(chooser.choice(pieces) for _ in range(chooser.randint(1, 12)))
        try:
            expr.template(raw)
        except Untranslatable:
            pass


def test_an_error_deep_in_a_dict_is_still_untranslatable_not_a_traceback() -> None:
    with pytest.raises(Untranslatable, match="xpath"):
        expr.template({"a": [{"b": "@xpath(xml('<a/>'), '/a')"}]})


def test_a_known_zone_with_other_punctuation_and_case_translates() -> None:
    assert "convertFromUtc" in src("@convertFromUtc(utcNow(), 'pacific standard time')")

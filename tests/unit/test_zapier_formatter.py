"""Edge cases of the Formatter by Zapier runtime: empty and wrong input, spellings, line items.

Where Zapier's behaviour for bad input is not documented, the runtime fails the step with a ValueError that names the
field and the value (never a guess that passes a wrong value on); these tests pin that.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from queue_core.compat._zapier_formatter import SUPPORTED, UnsupportedTransform, canonical, format_step
from queue_core.errors import TerminalError


def run(action: str, transform: str, **params: Any) -> Any:
    return format_step(action, {"transform": transform, **params})


@pytest.mark.parametrize(("action", "transform", "expected"), [
    ("string", "string.split", ("text", "split")), ("text", "lower_case", ("text", "lowercase")),
    ("date_time", "date.formatting", ("date", "formatting")), ("date", "manipulate", ("date", "add_time")),
    ("utilities", "util.lookup", ("util", "lookup")), ("Number", "MATH", ("number", "math")),
    ("date_time", "date.manipulate", ("date", "add_time")), ("formatter", "string.split", ("text", "split")),
])
def test_a_zapfile_spelling_maps_onto_the_supported_key(action: str, transform: str, expected: tuple[str, str]) -> None:
    assert canonical(action, transform) == expected
    assert expected in SUPPORTED
    assert (action, transform) in SUPPORTED  # membership answers for the Zapfile's own spelling too
    assert all(pair == canonical(*pair) for pair in SUPPORTED)  # iteration yields the canonical pairs only


def test_membership_of_what_is_not_a_pair_is_false() -> None:
    assert ("text", "superhero") not in SUPPORTED
    for odd in ["text", ("text", 1), ("text", "capitalize", "x")]:
        assert odd not in SUPPORTED


@pytest.mark.parametrize(("action", "transform"), [("text", "superhero"), ("number", "currency"),
                                                    ("text", "markdown"), ("banana", "capitalize"), ("text", "")])
def test_a_transform_not_implemented_fails_the_run_naming_it(action: str, transform: str) -> None:
    with pytest.raises(UnsupportedTransform) as caught:
        run(action, transform, input="x")
    assert isinstance(caught.value, TerminalError)
    assert f"{action}:{transform}" in str(caught.value)


def test_params_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(TypeError, match="expected an object, got list"):
        format_step("text", ["capitalize"])  # type: ignore[arg-type]


@pytest.mark.parametrize("transform", ["capitalize", "titlecase", "uppercase", "lowercase", "pluralize",
                                       "trim_space", "strip_html", "extract_email", "extract_url", "extract_number"])
def test_empty_or_missing_input_gives_empty_text(transform: str) -> None:
    assert run("text", transform, input="") == {"output": ""}
    assert run("text", transform) == {"output": ""}
    assert run("text", transform, input=None) == {"output": ""}


def test_counts_and_splits_of_empty_text() -> None:
    assert run("text", "word_count", input="") == {"output": 0}
    assert run("text", "split", input="", separator=",", index="all") == {"output": ""}
    assert run("text", "split", input="a,b", separator=",", index="7") == {"output": ""}
    assert run("text", "split", input="a,b", separator=",", index="-1") == {"output": "b"}


def test_a_number_given_to_a_text_transform_is_its_text() -> None:
    assert run("text", "split", input=12.5, separator=".", index="first") == {"output": "12"}
    assert run("text", "word_count", input=["one two", "three"]) == {"output": [2, 1]}


def test_a_bad_whole_number_field_names_the_field_and_an_unreadable_index_is_the_first() -> None:
    with pytest.raises(ValueError, match="'max_length': 'ten' is not a whole number"):
        run("text", "truncate", input="abc", max_length="ten")
    assert run("text", "split", input="a b", index="middle") == {"output": "a"}


def test_truncate_edges() -> None:
    assert run("text", "truncate", inputs="", max_length="5") == {"output": ""}
    assert run("text", "truncate", inputs="abc", max_length="0") == {"output": ""}
    # a text that was not cut gets no ellipsis; nor does a cut shorter than the ellipsis
    assert run("text", "truncate", inputs="short", max_length="8", append_ellipsis="yes") == {"output": "short"}
    assert run("text", "truncate", inputs="abcdef", max_length="3", append_ellipsis="yes") == {"output": "abc"}
    # "Skip Characters": the characters from offset up to max_length
    assert run("text", "truncate", inputs="Hello wonderful world", offset="6", max_length="15") == {
        "output": "wonderful"}


def test_capitalize_titlecase_and_pluralize_edges() -> None:
    assert run("text", "titlecase", inputs="THE QUICK BROWN FOX") == {"output": "The Quick Brown Fox"}
    assert run("text", "titlecase", inputs="visit example.com today: a guide") == {
        "output": "Visit example.com Today: A Guide"}
    assert run("text", "titlecase", inputs="state-of-the-art design") == {"output": "State-Of-The-Art Design"}
    assert run("text", "capitalize", inputs="ONE two") == {"output": "One Two"}
    plurals = {"bus": "buses", "wolf": "wolves", "leaf": "leaves", "day": "days", "hero": "heroes", "photo": "photos",
               "analysis": "analyses", "policeman": "policemen", "human": "humans", "roof": "roofs"}
    for word, plural in plurals.items():
        assert run("text", "pluralize", inputs=word) == {"output": plural}


def test_replace_with_an_empty_search_gives_empty_text_and_knows_the_whitespace_codes() -> None:
    assert run("text", "replace", input="a b", old="", new="x") == {"output": ""}
    assert run("text", "replace", input="a b c", old="[:space:]", new="-") == {"output": "a-b-c"}
    assert run("text", "replace", input="a-b", find="-", replace="") == {"output": "ab"}


def test_pluralize_keeps_the_case_and_leaves_uncountables() -> None:
    assert run("text", "pluralize", input="Child") == {"output": "Children"}
    assert run("text", "pluralize", input="BOX") == {"output": "BOXES"}
    assert run("text", "pluralize", input="sheep") == {"output": "sheep"}
    assert run("text", "pluralize", input="big city") == {"output": "big cities"}
    assert run("text", "pluralize", input="knife") == {"output": "knives"}


def test_extract_pattern_gives_named_groups_and_refuses_a_bad_pattern() -> None:
    out = run("text", "extract_pattern", input="id=42", pattern=r"id=(?P<id>\d+)")
    assert out == {"output": {"0": "42", "id": "42", "_matched": True, "_start": 0, "_end": 5}}
    assert run("text", "extract_pattern", input="abc", pattern="b") == {
        "output": {"_matched": True, "_start": 1, "_end": 2}}
    assert run("text", "extract_pattern", input="", pattern="b") == {"output": {"_matched": False}}
    with pytest.raises(ValueError, match="'pattern': not a regular expression"):
        run("text", "extract_pattern", input="x", pattern="(")


def test_default_value_runs_on_each_line_item() -> None:
    assert run("text", "default_value", input=["a", "", "c"], default_value="-") == {"output": ["a", "-", "c"]}


def test_math_reads_a_value_that_is_not_a_number_as_zero() -> None:
    assert run("number", "math", operation="add", inputs=["1", "abc", "1,234"]) == {"output": 1.0}
    assert run("number", "math", operation="add", inputs=["1", True]) == {"output": 2}


def test_math_operations_over_a_list() -> None:
    assert run("number", "math", operation="subtract", input=["10", "3", "2"]) == {"output": 5}
    assert run("number", "math", operation="divide", input=["10", "4"]) == {"output": 2.5}
    assert run("number", "math", operation="negate", input=["1", "-2"]) == {"output": [-1, 2]}
    assert run("number", "math", operation="neg", inputs="3") == {"output": [-3]}
    with pytest.raises(ValueError, match="division by zero"):
        run("number", "math", operation="divide", input=["1", "0"])
    with pytest.raises(ValueError, match="'operation': 'power'"):
        run("number", "math", operation="power", input=["1"])
    with pytest.raises(ValueError, match="no numbers"):
        run("number", "math", operation="add", input=[])


@pytest.mark.parametrize(("params", "message"), [
    ({"inputs": "next friday"}, "'next friday' is not a date it can read"),
    ({"inputs": "2020-01-01", "to_timezone": "Mars/Base"}, "'to_timezone': 'Mars/Base' is not a time zone"),
    ({"inputs": "01-2020", "from_format": "DD/MM/YYYY"}, "does not match the from-format"),
    ({"inputs": "31/02/2020", "from_format": "DD/MM/YYYY"}, "day is out of range"),
])
def test_a_date_it_cannot_read_names_the_value(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run("date", "formatting", to_format="YYYY", **params)


def test_a_blank_date_stays_blank() -> None:
    assert run("date", "formatting", inputs="", to_format="YYYY") == {"output": ""}
    assert run("date", "add_time", inputs=["2020-01-01", " "], expression="+1 day", to_format="YYYY-MM-DD") == {
        "output": ["2020-01-02", ""]}


def test_dates_read_as_zapier_reads_a_date_field() -> None:
    assert run("date", "formatting", inputs="2/13/2020 8:30 PM", to_format="YYYY-MM-DD HH:mm") == {
        "output": "2020-02-13 20:30"}
    assert run("date", "formatting", inputs="2020-10-26T16:56", to_format="h:mm a dddd Do") == {
        "output": "4:56 pm Monday 26th"}
    assert run("date", "formatting", inputs="2020-10-26") == {"output": ""}
    assert run("date", "formatting", inputs="2020-07-01T12:00:00+00:00", to_format="HH:mm ZZZ",
               to_timezone="Europe/Paris") == {"output": "14:00 CEST"}
    assert run("date", "formatting", inputs=["2020-01-02", "2020-03-04"], to_format="DD.MM.YY") == {
        "output": ["02.01.20", "04.03.20"]}
    assert run("date", "formatting", inputs="Oct 5 2020 07:08", from_format="MMM D YYYY HH:mm",
               to_format="[Week] W") == {"output": "Week 2020-W41-1"}


@pytest.mark.parametrize(("written", "expected"), [
    ("Mon, 26 Oct 2020 16:56:00 +0000", "2020-10-26 16:56"), ("October 26, 2020", "2020-10-26 00:00"),
    ("Monday, October 26, 2020 at 4:56 PM", "2020-10-26 16:56"), ("26 Oct 2020 16:56", "2020-10-26 16:56"),
    ("Sept 3 2020", "2020-09-03 00:00"), ("2020/10/26", "2020-10-26 00:00"), ("10-26-2020", "2020-10-26 00:00"),
    ("10/26/20", "2020-10-26 00:00"), ("12/31/99", "1999-12-31 00:00"), ("2/13/2020 8PM EST", "2020-02-13 20:00"),
    ("Mon Jan 22 15:04:05 -0800 2006", "2006-01-22 23:04"), ("1393462573.5", "2014-02-27 00:56"),
])
def test_written_dates_read_month_first_as_dateutil_reads_them(written: str, expected: str) -> None:
    assert run("date", "formatting", inputs=written, to_format="YYYY-MM-DD HH:mm") == {"output": expected}


def test_add_time_clamps_the_month_end_and_refuses_a_bad_expression() -> None:
    assert run("date", "add_time", inputs="2020-01-31T10:00:00+00:00", expression="+1 month -2 hours",
               to_format="YYYY-MM-DD HH:mm") == {"output": "2020-02-29 08:00"}
    assert run("date", "add_time", inputs="2020-02-29", expression="+1 year", to_format="YYYY-MM-DD") == {
        "output": "2021-02-28"}
    # text that is no "<amount> <unit>" term is ignored, as the backend's tdelta ignores it
    for ignored in ["", "tomorrow", "+1 fortnight"]:
        assert run("date", "add_time", inputs="2020-01-01", expression=ignored, to_format="YYYY-MM-DD") == {
            "output": "2020-01-01"}
    assert run("date", "add_time", inputs="2020-01-01", expression="+1d 2h 30m 15s", to_format="DD HH:mm:ss") == {
        "output": "02 02:30:15"}
    assert run("date", "add_time", inputs="2020-01-01", expression="+2yrs -3wks", to_format="YYYY-MM-DD") == {
        "output": "2021-12-11"}


def test_lookup_tables_as_a_zapfile_may_hold_them() -> None:
    assert run("util", "lookup", lookup_key="a", lookup_table='{"a": "1"}') == {"output": "1"}
    assert run("util", "lookup", lookup_key="b", lookup_table=[{"key": "b", "value": "2"}]) == {"output": "2"}
    assert run("util", "lookup", lookup_key="z", lookup_table={"a": "1"}) == {"output": ""}
    assert run("util", "lookup", lookup_key=["a", "z"], lookup_table={"a": "1"}, lookup_default="?") == {
        "output": ["1", "?"]}
    with pytest.raises(ValueError, match="'lookup_table'"):
        run("util", "lookup", lookup_key="a", lookup_table="a=1")


def test_line_items_from_text_and_the_itemizer_edges() -> None:
    assert run("util", "text_to_line_items", input="") == {"output": ""}
    assert run("util", "text_to_line_items", input="a, b,") == {"output": ["a", " b", ""]}
    assert run("util", "text_to_line_items", input=["x,y", "z"]) == {"output": [["x", "y"], ["z"]]}
    assert run("util", "line_itemizer", inputs="G", my_dict={"a": "1,2", "b": "x", "": "dropped"}) == {
        "output": {"G": [{"a": "1", "b": "x"}, {"a": "2"}]}}
    assert run("util", "line_itemizer", my_dict={}) == {"output": {"Line-item(s)": []}}
    assert run("util", "line_itemizer", my_dict={"a": ""}) == {"output": {"Line-item(s)": [{"a": ""}]}}
    with pytest.raises(ValueError, match="'my_dict' must map"):
        run("util", "line_itemizer", inputs="G", my_dict="a,b")
    with pytest.raises(ValueError, match="Group Name' field should only contain text"):
        run("util", "line_itemizer", inputs=["G"], my_dict={"a": "1"})


def test_number_formatting_edges() -> None:
    assert run("number", "formatting", inputs=["1000", "2,5"], input_decimal_mark=",", output_format="1") == {
        "output": ["1.000", "2,5"]}
    assert run("number", "formatting", inputs=None, input_decimal_mark=".", output_format="0") == {"output": ""}
    with pytest.raises(ValueError, match="'output_format': '9'"):
        run("number", "formatting", inputs="1", input_decimal_mark=".", output_format="9")


@pytest.mark.parametrize(("formula", "expected"), [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("-2 + 5", 3), ("10 / 4", 2.5), ("50%", 0.5), ("2.0 + 1", 3),
    ("1 = 1", True), ("2 <> 2", False), ("3 >= 4", False), ("TRUE + TRUE", 2), ("=SUM(1, 2)", 3),
    ("ROUND(2.5)", 3.0), ("ROUND(-2.5)", -3.0), ("ROUND(2.675, 2)", 2.67), ("ROUNDDOWN(-2.7)", -3.0),
    ("ROUNDUP(2.1)", 3.0), ("TRUNC(-8.9)", -8.0), ("INT(-8.9)", -8), ("MOD(-7, 3)", 2), ("QUOTIENT(-7, 2)", -4),
    ("QUOTIENT(7.5, 2)", 3.75), ("CEILING(2.1)", 3.0), ("FLOOR(2.9, 2)", 2.0), ("EVEN(1.5)", 2.0), ("ODD(3)", 3),
    ("ODD(2)", 3.0), ("AVERAGE(1, 2, 6)", 3.0), ("MEDIAN(4, 1, 3, 2)", 2.5), ("MODE(1, 2, 2, 3)", 2),
    ("MAX(1, 7, 3)", 7), ("MIN(4, -1)", -1), ("PRODUCT(2, 3, 4)", 24), ("POWER(2, 10)", 1024.0), ("FACT(5)", 120),
    ("FACTDOUBLE(7)", 105), ("GCD(12, 18)", 6), ("LCM(4, 6)", 12), ("SIGN(-3)", -1), ("IF(0, 1)", None),
    ("IF(AND(1, OR(0, 1 > 0)), 10, 20)", 10), ("NOT(0)", True), ("SQRTPI(4)", 2 * 3.141592653589793),
    ("ATAN2(1, 0)", 1.5707963267948966), ("LOG(8, 2)", 3.0), ("TRUE()", 1),
])
def test_the_formula_evaluator_has_the_backends_meaning(formula: str, expected: Any) -> None:
    assert run("number", "formula", inputs=formula) == {"output": expected}


@pytest.mark.parametrize(("formula", "message"), [
    ("", "the formula is empty"), ("1 +", "expected a value"), ("ISBLANK(1)", "Unknown Function: ISBLANK"),
    ('"a" & 1', "Only numeric values allowed"), ("1 & 2", "Unknown Operation: &"), ("2^3", "Unknown Operation: ^"),
    ("1 / 0", "division by zero"), ("SQRT(-1)", "SQRT"), ("(1", "expected ) at the end"), ("1 2", "unexpected '2'"),
    ("abs", "'abs' is not a number"), ("ROUND()", "ROUND requires at least 1 arguments"),
    ("SUM(1)", "SUM requires at least 2 arguments"), ("LOG(8)", "LOG requires 2 arguments (1 provided)"),
    ("MAX(5)", "MAX(5)"), ("FACT(171)", "limited to N <= 170"), ("__import__('os')", "cannot read"),
    ("(" * 3000 + "1" + ")" * 3000, "nested"),
])
def test_a_formula_it_cannot_evaluate_is_an_error_naming_why(formula: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        run("number", "formula", inputs=formula)


def test_choose_skips_empty_text_and_falls_back_to_the_default() -> None:
    assert run("util", "choose", inputs=["", "b", "c", ""], operation="last") == {"output": "c"}
    assert run("util", "choose", inputs=["", ""], operation="first", default="none") == {"output": "none"}
    assert run("util", "choose", inputs=["", ""], operation="first") == {"output": None}
    assert run("util", "choose", inputs=[], operation="first") == {"output": ""}
    assert run("util", "choose", inputs=["a", "b"], operation="1") == {"output": "b"}
    assert run("util", "choose", inputs=["a", "b"], operation="5", default="d") == {"output": "d"}
    assert run("util", "choose", inputs=["x", "", "y"], operation="random")["output"] in {"x", "y"}
    with pytest.raises(ValueError, match="must be a list"):
        run("util", "choose", inputs="a,b", operation="first")
    with pytest.raises(ValueError, match="no 'operation'"):
        run("util", "choose", inputs=["a"])


def test_line_items_to_text_passes_text_through() -> None:
    assert run("util", "line_items_to_text", inputs="already text", separator=";") == {"output": "already text"}
    assert run("util", "line_items_to_text", inputs=["a", "b"]) == {"output": "a,b"}
    assert run("util", "line_items_to_text", inputs=[]) == {"output": ""}

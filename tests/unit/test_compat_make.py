"""Make's filter operators and IML functions, as Make's help documents them (queue_core.compat.make)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from queue_core.compat import make
from queue_core.compat._make_filter import OPERATORS, condition, passes
from queue_core.errors import MakeConditionError, MakeFunctionError, ModuleFailed


@pytest.mark.parametrize(("operator", "a", "b", "expected"), [
    ("text:equal", "Paid", "Paid", True),
    ("text:equal", "Paid", "paid", False),  # case-sensitive unless :ci
    ("text:equal:ci", "Paid", "PAID", True),
    ("text:equal", 5, "5", True),  # operands are read as text
    ("text:equal", True, "true", True),
    ("text:equal", None, "", True),  # a missing value is empty text
    ("text:equal", 1.0, "1", True),  # numbers are written as JavaScript writes them
    ("text:notequal", "a", "b", True),
    ("text:notequal:ci", "A", "a", False),
    ("text:contain", "Hello world", "world", True),
    ("text:contain", "Hello world", "World", False),
    ("text:contain:ci", "Hello world", "WORLD", True),
    ("text:notcontain", "Hello", "x", True),
    ("text:notcontain:ci", "Hello", "H", False),
    ("text:startwith", "INV-42", "INV", True),
    ("text:startwith:ci", "inv-42", "INV", True),
    ("text:notstartwith", "INV-42", "INV", False),
    ("text:endwith", "report.pdf", ".pdf", True),
    ("text:endwith:ci", "report.PDF", ".pdf", True),
    ("text:notendwith", "report.pdf", ".csv", True),
    ("text:pattern", "order 1234", r"\d{4}", True),  # a search, not anchored
    ("text:pattern", "ORDER", "order", False),
    ("text:pattern:ci", "ORDER", "order", True),
    ("text:notpattern", "abc", r"\d", True),
    ("number:equal", "50", 50, True),  # text is parsed as a number
    ("number:equal", " 50 ", "50.0", True),
    ("number:greater", "1500", "1000", True),
    ("number:greater", "999", "1000", False),
    ("number:less", 3, "10", True),  # numerically, not as text ("3" > "10" as text)
    ("number:greaterorequal", 10, "10", True),
    ("number:lessorequal", "10.5", 10, False),
    ("number:notequal", 1, 2, True),
    ("number:greater", "abc", "1", False),  # not a number: the condition fails
    ("number:notequal", None, "1", False),  # whatever the operator
    ("number:equal", True, 1, False),  # a boolean is not a number
    ("date:greater", "2024-06-02T00:00:00Z", "2024-06-01T23:59:59Z", True),
    ("date:less", "2024-06-01", "2024-06-01T00:00:01Z", True),  # a date alone is its midnight UTC
    ("date:equal", "2024-06-01T02:00:00+02:00", "2024-06-01T00:00:00Z", True),  # instants, offsets applied
    ("date:greaterorequal", "not a date", "2024-01-01", False),
    ("date:lessorequal", 1717200000000, "2024-06-01T00:00:00Z", True),  # epoch milliseconds
    ("boolean:equal", "true", True, True),
    ("boolean:equal", "FALSE", False, True),
    ("boolean:notequal", 1, False, True),
    ("boolean:equal", "yes", True, False),  # not a boolean: fails
    ("array:contain", ["bug", "ui"], "bug", True),
    ("array:contain", ["Bug"], "bug", False),
    ("array:contain:ci", ["Bug"], "bug", True),
    ("array:contain", [1, 2], "2", True),  # elements compared as text
    ("array:notcontain", ["a"], "b", True),
    ("array:equal", ["a", "b"], "2", True),  # array length
    ("array:greater", ["a"], 0, True),
    ("array:lessorequal", [], "0", True),
    ("exist", "x", None, True),
    ("exist", "", None, False),  # empty text is not filled in
    ("exist", None, None, False),
    ("exist", [], None, False),
    ("exist", 0, None, True),
    ("exist", False, None, True),
    ("notexist", None, None, True),
    ("notexist", "x", None, False),
])
def test_each_operator_converts_its_operands_as_make_does(operator: str, a: object, b: object, expected: bool) -> None:
    assert condition(operator, a, b) is expected


def test_the_list_of_operators_covers_every_documented_family() -> None:
    families = {op.split(":")[0] for op in OPERATORS}
    assert families == {"exist", "notexist", "text", "number", "date", "boolean", "array"}
    assert "text:equal:ci" in OPERATORS and "number:greaterorequal" in OPERATORS and "time:equal" not in OPERATORS


def test_an_unknown_operator_is_an_error_not_a_silent_pass() -> None:
    with pytest.raises(MakeConditionError, match="unknown filter operator 'text:sounds-like'"):
        condition("text:sounds-like", "a", "b")


def test_a_bad_pattern_is_an_error_naming_it() -> None:
    with pytest.raises(MakeConditionError, match="is not a regular expression"):
        condition("text:pattern", "a", "(")


def test_conditions_are_an_or_of_and_groups_and_an_empty_filter_passes() -> None:
    big = ("number:greater", 2000, "1000")
    small = ("number:less", 2000, "10")
    vip = ("text:equal", "vip", "vip")
    assert passes([[big, vip]]) is True
    assert passes([[big, small]]) is False  # AND inside a group
    assert passes([[small], [vip]]) is True  # OR between groups
    assert passes([[small], [("text:equal", "a", "b")]]) is False
    assert passes([]) is True and passes(None) is True and passes([[]]) is True


@pytest.mark.parametrize(("name", "args", "expected"), [
    ("get", ({"a": {"b": 2}}, "a.b"), 2),
    ("get", ([10, 20, 30], 1), 10),  # the first element is index 1
    ("get", ([{"x": 1}, {"x": 2}], "2.x"), 2),
    ("get", ({"a": 1}, "missing.key"), None),
    ("if", (True, "a", "b"), "a"),
    ("if", ("false", "a", "b"), "b"),
    ("if", (make.compare("=", 1, 2), "a", "b"), "b"),
    ("ifempty", ("", "b"), "b"),  # documented: ifempty(""; b) = b
    ("ifempty", (None, "b"), "b"),
    ("ifempty", ("a", "b"), "a"),
    ("ifempty", (0, "b"), 0),  # 0 is filled in
    ("switch", ("b", "a", 1, "b", 2, "c", 3), 2),  # documented examples
    ("switch", ("x", "a", 1, "b", 2, "c", 3, 4), 4),
    ("switch", ("x", "a", 1), None),
    ("lower", ("HeLLo",), "hello"), ("upper", ("abc",), "ABC"), ("trim", ("  a b  ",), "a b"),
    ("capitalize", ("hello world",), "Hello world"), ("startcase", ("hello WORLD",), "Hello World"),
    ("length", ("hello",), 5), ("length", ([1, 2, 3],), 3),
    ("toString", (12.0,), "12"), ("toString", (None,), ""), ("toString", (True,), "true"),
    ("join", (["a", "b", "c"], ", "), "a, b, c"), ("join", ([1, None, 2], "-"), "1--2"),
    ("split", ("a,b,c", ","), ["a", "b", "c"]),
    ("map", ([{"email": "a@x", "label": "work"}, {"email": "b@x", "label": "home"}, {"email": "c@x", "label": "old"}],
             "email"), ["a@x", "b@x", "c@x"]),
    ("map", ([{"email": "a@x", "label": "work"}, {"email": "b@x", "label": "home"}, {"email": "c@x", "label": "old"}],
             "email", "label", "work", "home"), ["a@x", "b@x"]),  # filtered by a key's values
    ("first", ([3, 4],), 3), ("last", ([3, 4],), 4), ("first", ([],), None),
    ("contains", (["a", "b"], "b"), True), ("contains", ("hello", "ell"), True), ("contains", ([1], "2"), False),
    ("replace", ("a-b-c", "-", "+"), "a+b+c"),  # plain text: every occurrence
    ("replace", ("a1b22", "/\\d+/g", "#"), "a#b#"), ("replace", ("a1b22", "/\\d+/", "#"), "a#b22"),
    ("substring", ("hello", 1, 3), "el"), ("indexOf", ("hello", "l"), 2), ("indexOf", ("hello", "z"), -1),
    ("keys", ({"a": 1, "b": 2},), ["a", "b"]), ("slice", ([1, 2, 3, 4], 1, 3), [2, 3]),
    ("merge", ([1], [2, 3]), [1, 2, 3]), ("add", ([1], 2, 3), [1, 2, 3]), ("remove", ([1, 2, 3], 2), [1, 3]),
    ("reverse", ([1, 2],), [2, 1]), ("distinct", ([{"n": "a"}, {"n": "a"}, {"n": "b"}], "n"), [{"n": "a"}, {"n": "b"}]),
    ("parseNumber", ("1,234.5",), 1234.5), ("parseNumber", ("1.234,5", ","), 1234.5), ("parseNumber", ("x",), None),
    ("round", (2.5,), 3), ("round", ("2.4",), 2), ("floor", (2.7,), 2), ("ceil", ("2.1",), 3),
    ("min", (3, 1, 2), 1), ("max", ([3, 9], 2), 9), ("sum", ([1, 2], 3.5), 6.5),
])
def test_each_iml_function_follows_makes_documented_behaviour(name: str, args: tuple[object, ...], expected: object) -> None:
    assert make.fn(name, *args) == expected


def test_format_date_writes_the_moment_tokens_in_utc_or_a_zone() -> None:
    moment = datetime(2024, 6, 7, 15, 4, 5, 250000, tzinfo=UTC)
    assert make.fn("formatDate", moment, "YYYY-MM-DD HH:mm:ss.SSS") == "2024-06-07 15:04:05.250"
    assert make.fn("formatDate", "2024-06-07T15:04:05Z", "D MMM YY h:mm A [at] X") == "7 Jun 24 3:04 PM at 1717772645"
    assert make.fn("formatDate", moment, "HH:mm Z", "Europe/Prague") == "17:04 +02:00"
    with pytest.raises(MakeFunctionError, match="is not a date"):
        make.fn("formatDate", "someday", "YYYY")


def test_adding_days_to_a_date_gives_a_date() -> None:
    assert make.fn("addDays", "2024-02-28T00:00:00Z", 2) == datetime(2024, 3, 1, tzinfo=UTC)


def test_an_unimplemented_function_is_an_error() -> None:
    with pytest.raises(MakeFunctionError, match="'shuffle' is not implemented"):
        make.fn("shuffle", [1, 2])


def test_iml_operators_compare_numbers_numerically_and_text_as_text() -> None:
    assert make.compare("<", "3", "10") is True  # both read as numbers
    assert make.compare("<", "b", "a") is False  # text
    assert make.compare("=", "1.0", 1) is True
    assert make.arith("+", "2", 3) == 5 and make.arith("+", "a", 1) == "a1" and make.arith("/", 7, 2) == 3.5
    with pytest.raises(MakeFunctionError, match="division by zero"):
        make.arith("/", 1, 0)


def test_a_path_reads_fields_array_elements_from_one_and_maps_over_arrays() -> None:
    bundles = {1: {"a": {"items": [{"id": 1, "tags": ["x"]}, {"id": 2, "tags": []}]}, "Task ID": "T-1"}}
    assert make.ref(bundles, 1, "a", "items", "[2]", "id") == 2
    assert make.ref(bundles, 1, "a", "items", "[]", "id") == [1, 2]
    assert make.ref(bundles, 1, "Task ID") == "T-1"
    assert make.ref(bundles, 1, "missing", "deeper") is None and make.ref(bundles, 9, "a") is None


def test_an_iterator_gives_one_bundle_per_element_with_its_position() -> None:
    assert make.iterate(["a", {"k": 1}]) == [{"value": "a", "__IMTINDEX__": 1, "__IMTLENGTH__": 2},
                                             {"k": 1, "__IMTINDEX__": 2, "__IMTLENGTH__": 2}]
    assert make.iterate(None) == [] and make.iterate([]) == []


def test_parse_json_gives_a_bundle_per_array_element_and_fails_naming_the_module() -> None:
    assert make.parse_json('[{"a": 1}, 2]', "Parse") == [{"a": 1}, {"value": 2}]
    assert make.parse_json('{"a": 1}', "Parse") == [{"a": 1}]
    with pytest.raises(ModuleFailed, match="Parse: source is not valid JSON"):
        make.parse_json("{nope", "Parse")

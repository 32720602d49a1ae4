"""n8n's condition semantics as queue_core.compat.n8n applies them (IF v2, Filter, Switch rules)."""

from __future__ import annotations

import math

import pytest

from queue_core.compat import n8n
from queue_core.errors import N8nConditionError


def test_strict_type_validation_fails_on_a_string_where_a_number_is_expected() -> None:
    with pytest.raises(N8nConditionError, match=r"Wrong type: '5' is a string but was expecting a number"):
        n8n.check("number", "gt", "5", 3, strict=True)


def test_loose_type_validation_converts_numbers_and_booleans_from_text() -> None:
    assert n8n.check("number", "gt", "10", 3, strict=False)
    assert n8n.check("boolean", "true", "true", None, strict=False, version=2, single_value=True)
    assert not n8n.check("boolean", "true", 0, None, strict=False, version=2, single_value=True)
    with pytest.raises(N8nConditionError, match="Conversion error: the string 'ten' can't be converted to a number"):
        n8n.check("number", "gt", "ten", 3, strict=False)


def test_case_insensitive_string_operators_lower_both_sides_but_regex_gets_the_i_flag() -> None:
    assert n8n.check("string", "startsWith", "Shane", "s", case_sensitive=False)
    assert not n8n.check("string", "startsWith", "Shane", "s", case_sensitive=True)
    assert n8n.check("string", "regex", "Crash on SAVE", "save$", case_sensitive=False)
    assert n8n.check("string", "regex", "abc", "/B/i")
    assert not n8n.check("string", "notContains", "Crash", "crash", case_sensitive=False)


def test_exists_is_false_for_null_and_nan_and_skips_no_type_check() -> None:
    assert not n8n.check("string", "exists", None, single_value=True)
    assert not n8n.check("number", "exists", math.nan, single_value=True)
    assert n8n.check("any", "exists", "", single_value=True)
    assert n8n.check("string", "notExists", None, single_value=True)


def test_empty_numbers_from_version_3_and_array_and_object_operators() -> None:
    assert n8n.check("number", "empty", "", None, version=3, single_value=True)
    assert n8n.check("array", "contains", ["Exotic"], "exotic", case_sensitive=False, right_type="any")
    assert not n8n.check("array", "contains", ["Exotic"], "exotic", case_sensitive=True, right_type="any")
    assert n8n.check("array", "lengthGt", [1, 2], 1, right_type="number")
    assert n8n.check("object", "notEmpty", {"a": 1}, None, single_value=True)
    assert n8n.check("object", "empty", {}, None, single_value=True)


def test_dates_compare_as_instants_whatever_their_offsets() -> None:
    assert n8n.check("dateTime", "after", "2020-10-05T14:48:00.000Z", "2018-12-31T22:00:00")
    assert n8n.check("dateTime", "equals", "2024-03-01T10:00:00+01:00", "2024-03-01T09:00:00Z")
    assert not n8n.check("dateTime", "before", None, "2024-01-01")


def test_if_v1_conditions_coerce_numbers_and_compare_strings_as_written() -> None:
    assert n8n.if_v1("number", "largerEqual", "12", 10)
    assert n8n.if_v1("string", "contains", "Crash on save", "Crash")
    assert not n8n.if_v1("string", "contains", "crash on save", "Crash")
    assert n8n.if_v1("boolean", "equal", True, True)

"""``queue_core.compat.zapier``: mapped fields, text as Zapier writes it, filter rules, loops, unflatten."""

from __future__ import annotations

import pytest

from queue_core.compat import zapier
from queue_core.compat._zapier_filter import passes
from queue_core.errors import TerminalError

OUT = {"1": {"channel": {"name": "editor"}, "items": [{"sku": "A"}, {"sku": "B"}], "flat__key": "x", "n": 3.0}}


def test_a_field_walks_nested_keys_flattened_keys_and_line_items() -> None:
    assert zapier.field(OUT, "1", "channel", "name") == "editor"
    assert zapier.field(OUT, "1", "flat", "key") == "x"  # an output already flattened by Zapier
    assert zapier.field(OUT, "1", "items", "sku") == ["A", "B"]
    assert zapier.field(OUT, "1", "missing") is None and zapier.field(OUT, "9", "a") is None


def test_text_is_written_as_zapier_writes_it() -> None:
    assert zapier.concat("n=", 3.0, " ", None, True, " ", ["A", "B"]) == "n=3 true A,B"


def test_unflatten_nests_double_underscore_keys() -> None:
    assert zapier.unflatten({"a__b": 1, "a__c": 2, "d": 3}) == {"a": {"b": 1, "c": 2}, "d": 3}


def test_loop_outputs_number_each_iteration() -> None:
    loops = zapier.loop_outputs({"v": "x, y"})
    assert [o["loop_iteration"] for o in loops] == [1, 2] and loops[-1]["loop_iteration_is_last"] is True


@pytest.mark.parametrize(("rule", "field", "value", "held"), [
    ("icontains", "The Quick Brown Fox", "brown fox", True), ("nicontains", "lazy dog", "fox", True),
    ("exact", "Apples", "apples", False), ("iendswith", "Bananas", "S", True),
    ("igreater", "1,200", "1000", True), ("iless", "abc", "10", False),
    ("dateafter", "2019-01-01T00:00:00Z", "12/31/2018 1:00", True), ("datebefore", "12/31/2017", "12/31/2018", True),
    ("nboolean", "false", "", True), ("nexists", None, "", True),
])
def test_each_filter_rule(rule: str, field: object, value: str, held: bool) -> None:
    assert passes([[(rule, field, value)]]) is held


def test_a_stop_group_stops_and_an_unknown_rule_fails_naming_it() -> None:
    assert passes([], [[("icontains", "editor", "edit")]]) is False
    with pytest.raises(TerminalError, match="'sorcery'"):
        passes([[("sorcery", "a", "b")]])


def test_a_catch_hook_body_that_is_an_array_fails_clearly() -> None:
    class _T:
        body = [{"a": 1}]

    with pytest.raises(TerminalError, match="one run per element"):
        zapier.hook_output(_T())

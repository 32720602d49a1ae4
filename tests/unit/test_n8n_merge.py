"""n8n's Merge (v2, v3) as queue_core.compat.n8n runs it; each expectation is n8n 1.123's output
for the same items, as the oracle suite measured it (the case named beside it)."""

from __future__ import annotations

from typing import Any

import pytest

from queue_core.compat import n8n


def _items(*rows: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"json": row} for row in rows]


def _json(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item["json"] for item in items]


def test_merge_v2_fails_when_no_item_of_an_input_has_a_field_to_match() -> None:  # merge v2 #5
    with pytest.raises(n8n.NodeFailed, match=r"^Merge: Field 'a' is not present in any of items in 'Input 1'$"):
        n8n.merge_by_fields(_items({}), _items({"a": "1"}), [("a", "a")], check_fields=True, node="Merge")


def test_a_missing_match_field_matches_nothing_even_a_missing_one() -> None:  # merge v3 #2
    assert n8n.merge_by_fields(_items({}), _items({}), [("a", "a")]) == []


def test_match_values_compare_with_javascript_types() -> None:
    got = n8n.merge_by_fields(_items({"a": 1}, {"a": True}, {"a": None}), _items({"a": "1"}, {"a": 1}, {"a": None}),
                              [("a", "a")], output_from="input1")
    assert _json(got) == [{"a": 1}, {"a": None}]


def test_enrich_input2_puts_matches_in_input1_order_then_input2s_unmatched() -> None:  # merge v3 #10
    first = _items({}, {"a": 1, "b": "one"})
    second = _items({"a": 3}, {"a": 1, "b": 3}, {})
    got = n8n.merge_by_fields(first, second, [("a", "a")], join="enrichInput2")
    # n8n's default clash handling when enriching input 2 is "prefer input 1"
    assert _json(got) == [{"a": 1, "b": "one"}, {"a": 3}, {}]


def test_enrich_input1_gives_one_item_per_match_then_unmatched() -> None:  # merge v2.1 #29
    rows = [{"c": "A"}, {}, {"c": None, "a": "x", "b": "A"}, {"b": None, "c": True, "a": "1"}]
    got = n8n.merge_by_fields(_items(*rows), _items(*rows), [("a", "a")], join="enrichInput1")
    assert _json(got) == [rows[2], rows[3], rows[0], rows[1]]


def test_output_from_input2_is_input2s_matched_items_each_once_in_input2_order() -> None:
    first = _items({"a": 2}, {"a": 1}, {"a": 1})
    second = _items({"a": 1, "k": "x"}, {"a": 2, "k": "y"}, {"a": 9})
    got = n8n.merge_by_fields(first, second, [("a", "a")], output_from="input2")
    assert _json(got) == [{"a": 1, "k": "x"}, {"a": 2, "k": "y"}]


def test_keep_matches_with_an_empty_input_outputs_nothing_and_keep_everything_all() -> None:
    assert n8n.merge_by_fields([], _items({"a": 1}), [("a", "a")]) == []
    assert _json(n8n.merge_by_fields([], _items({"a": 1}), [("a", "a")], join="keepEverything")) == [{"a": 1}]


def test_an_empty_field_pair_fails_the_node() -> None:
    with pytest.raises(n8n.NodeFailed, match="at least one pair of fields"):
        n8n.merge_by_fields(_items({"a": 1}), _items({"a": 1}), [("", "")])


def test_matched_items_merge_deeply_and_null_overwrites() -> None:
    got = n8n.merge_by_fields(_items({"a": 1, "o": {"x": 1}, "l": [1, 2, 3], "n": 5}),
                              _items({"a": 1, "o": {"y": 2}, "l": [9], "n": None}), [("a", "a")])
    assert _json(got) == [{"a": 1, "o": {"x": 1, "y": 2}, "l": [9, 2, 3], "n": None}]


def test_multiplex_is_every_pair_input2_winning() -> None:  # merge v3 #6
    got = n8n.merge_multiplex(_items({"a": 1}), _items({"b": 10.25}, {}, {"a": None}))
    assert _json(got) == [{"a": 1, "b": 10.25}, {"a": 1}, {"a": None}]
    assert n8n.merge_multiplex([], _items({"a": 1})) == []


def test_merge_by_position_pairs_the_nth_items() -> None:  # merge v3.2 #6
    first = _items({"c": 4, "b": True}, {"a": 3, "b": None, "c": True})
    second = _items({"a": "1", "b": -2.5}, {"a": None, "b": "x", "c": 0.5})
    assert _json(n8n.merge_by_position([first, second])) == [{"c": 4, "b": -2.5, "a": "1"},
                                                             {"a": None, "b": "x", "c": 0.5}]
    assert n8n.merge_by_position([[], second]) == []
    assert _json(n8n.merge_by_position_v2([], second)) == _json(second)  # v2: the input that has items


def test_clash_settings_written_without_a_side_merge_each_pair_into_an_empty_item() -> None:  # merge v3 t3
    got = n8n.merge_by_fields(_items({"a": 1, "s": "l"}), _items({"a": 1, "s": "r"}), [("a", "a")], clash="",
                              clash_options={"mergeMode": "shallowMerge"})
    assert _json(got) == [{}]

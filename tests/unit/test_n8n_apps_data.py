"""The data nodes' runtime (queue_core.compat: Limit, Sort, Split Out, Aggregate) on hand-made items."""

from __future__ import annotations

import pytest

from queue_core.compat import n8n
from queue_core.errors import NodeFailed


def _items(*records: dict[str, object]) -> list[dict[str, object]]:
    return [{"json": r} for r in records]


def test_limit_keeps_the_first_or_last_items_and_all_of_fewer() -> None:
    items = _items({"a": 1}, {"a": 2}, {"a": 3})
    assert n8n.limit(items, 2) == items[:2] and n8n.limit(items, 2, "lastItems") == items[1:]
    assert n8n.limit(items, 9) == items


def test_sort_compares_text_lower_cased_and_mixed_values_as_numbers() -> None:
    items = _items({"a": "b"}, {"a": "A"}, {"a": "c"})
    assert [i["json"]["a"] for i in n8n.sort_items(items, [("a", "ascending")])] == ["A", "b", "c"]
    mixed = _items({"a": "10"}, {"a": 2}, {"a": None})
    assert [i["json"]["a"] for i in n8n.sort_items(mixed, [("a", "descending")])] == ["10", 2, None]
    with pytest.raises(NodeFailed, match="Couldn't find the field 'z'"):
        n8n.sort_items(items, [("z", "ascending")])


def test_split_out_merges_object_elements_and_keeps_other_fields_when_asked() -> None:
    items = _items({"a": [{"x": 1}, 2], "b": "k"})
    assert n8n.split_out(items, "a") == _items({"x": 1}, {"a": 2})
    assert n8n.split_out(items, "a", "allOtherFields") == _items({"b": "k", "a": {"x": 1}}, {"b": "k", "a": 2})
    assert n8n.split_out(items, "a", destination="out") == _items({"out": {"x": 1}}, {"out": 2})


def test_aggregate_lists_each_fields_values_dropping_nulls_unless_kept() -> None:
    items = _items({"a": 1}, {"a": None}, {"a": [2, None]}, {})
    assert n8n.aggregate_fields(items, [("a", "")]) == _items({"a": [1, [2]]})
    assert n8n.aggregate_fields(items, [("a", "all")], merge_lists=True, keep_missing=True) == \
        _items({"all": [1, None, 2, None, None]})
    assert n8n.aggregate_all(items, "rows", "allFieldsExcept", fields_to_exclude="a") == _items({"rows": []})


def test_crypto_hashes_or_hmacs_text_into_the_field_and_refuses_other_values() -> None:
    item = {"json": {"a": 1}}
    assert n8n.crypto_item(item, "h", "abc") == {"json": {"a": 1, "h": "900150983cd24fb0d6963f7d28e17f72"}}
    assert n8n.crypto_item(item, "h", "abc", "SHA256", "base64", action="hmac", secret="k")["json"]["h"] == \
        "NC5RnOCtbAOja5jus/HRMNtIE7nfTRFg7aSI1xLceO4="
    with pytest.raises(NodeFailed, match='"data" argument must be of type string'):
        n8n.crypto_item(item, "h", 1)


def test_remove_duplicates_keeps_the_first_of_items_equal_on_the_compared_fields() -> None:
    items = _items({"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "x"}, {"a": 2, "b": "x"})
    assert n8n.remove_duplicates(items) == [items[0], items[1], items[3]]
    assert n8n.remove_duplicates(items, "selectedFields", "a") == [items[0], items[3]]
    with pytest.raises(NodeFailed, match="'a' isn't always the same type"):
        n8n.remove_duplicates(_items({"a": 1}, {"a": "1"}), "selectedFields", "a")
    with pytest.raises(NodeFailed, match="'b' field is missing from some input items"):
        n8n.remove_duplicates(_items({"a": 1, "b": 1}, {"a": 1}))

"""diff_traces hands deepdiff only the subtrees that differ: the disagreements must be those of
deepdiff over the whole traces, for any pair of JSON values, under every coercion profile."""

from __future__ import annotations

from typing import Any

from deepdiff import DeepDiff
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.manifest import Coercion
from harness.shadow import diff
from harness.shadow.diff import Disagreement, diff_traces, format_path, same
from harness.shadow.normalize import comparable, loosely_equal

KEYS = st.sampled_from(["status", "path", "decisions", "calls", "outputs", "a", "b", "route", "1", "x y"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5]),
                    st.sampled_from(["", "true", "false", "1", "2.5", "bug", "other", "2024-06-01T00:00:00Z"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(KEYS, inner, max_size=4)), max_leaves=14)


def _mutate(value: Any, data: st.DataObject) -> Any:
    """Return a copy of ``value`` with a few of its parts replaced (most of it stays the same)."""
    if data.draw(st.integers(0, 5)) == 0:
        return data.draw(VALUES)
    if isinstance(value, dict):
        out = {k: _mutate(v, data) for k, v in value.items()}
        if data.draw(st.booleans()):
            out[data.draw(KEYS)] = data.draw(VALUES)
        return out
    if isinstance(value, list):
        return [_mutate(v, data) for v in value]
    return value


def _whole(legacy: dict[str, Any], new: dict[str, Any], coercion: Coercion) -> list[Disagreement]:
    """The disagreements as deepdiff over the whole traces gives them (the reference)."""
    tree = DeepDiff(legacy, new, view="tree", ignore_order=False, verbose_level=2)
    found = []
    for report, kind in diff._REPORT_KINDS.items():
        for level in tree.get(report, ()):
            parts = level.path(output_format="list")
            old, value = diff._value(level.t1), diff._value(level.t2)
            this = kind
            if kind == "type_changed":
                if loosely_equal(old, value, coercion):
                    continue
                this = "value_changed" if comparable(old, value, coercion) else "type_changed"
            found.append((parts, Disagreement(format_path(parts), this, old, value,
                                              diff._is_side_effect(parts, legacy, new))))
    found.sort(key=lambda item: (diff._sort_key(item[0]), item[1].kind))
    return [d for _, d in found]


def _trace(body: Any, extra: dict[str, Any]) -> dict[str, Any]:
    calls = {"c": {"provider": "p", "method": "POST", "url": "/x", "body": body}}
    return {"status": "succeeded", "path": ["a"], "decisions": {}, "calls": calls, "outputs": {}, **extra}


def _calls(data: st.DataObject) -> dict[str, Any]:
    steps = data.draw(st.lists(st.sampled_from(["c", "d", "e#2"]), max_size=3, unique=True))
    return {s: {"provider": "p", "method": data.draw(st.sampled_from(["GET", "POST"])), "url": "/x",
                "body": data.draw(VALUES)} for s in steps}


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(list(Coercion)))
def test_diff_of_the_differing_subtrees_equals_deepdiff_of_the_whole(data: st.DataObject, coercion: Coercion) -> None:
    legacy = {"status": data.draw(st.sampled_from(["succeeded", "failed"])), "path": data.draw(VALUES),
              "decisions": data.draw(st.dictionaries(KEYS, VALUES, max_size=3)), "calls": _calls(data),
              "outputs": data.draw(st.dictionaries(KEYS, VALUES, max_size=3))}
    new = {key: _mutate(value, data) for key, value in legacy.items() if key != "calls"}
    new["calls"] = ({k: {**c, "body": _mutate(c["body"], data)} for k, c in legacy["calls"].items()}
                    if data.draw(st.booleans()) else _calls(data))
    expected = [] if diff.equivalent(legacy, new, coercion) else _whole(legacy, new, coercion)
    assert diff_traces(legacy, new, coercion) == expected


def test_same_tells_types_apart_where_equality_does_not() -> None:
    assert {"a": True} == {"a": 1} and not same({"a": True}, {"a": 1})
    assert [1] == [1.0] and not same([1], [1.0])
    assert same({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    assert not same({"a": 1}, {"a": 1, "b": 2})


def test_an_int_against_a_float_beside_another_difference_is_still_reported() -> None:
    legacy = _trace({"n": 1, "s": "x"}, {})
    new = _trace({"n": 1.0, "s": "y"}, {})
    found = {(d.path, d.kind) for d in diff_traces(legacy, new)}
    assert found == {("calls[c].body.n", "type_changed"), ("calls[c].body.s", "value_changed")}

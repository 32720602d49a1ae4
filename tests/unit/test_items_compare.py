"""Item-by-item comparison (pure): pairing legacy items with child jobs by key, field paths, evidence."""

from __future__ import annotations

from typing import Any

from harness.shadow._items import compare_items, item_noise, pairing_key, without_child_steps
from harness.shadow.accepted import Judgement
from harness.shadow.diff import Disagreement
from harness.shadow.normalize import Rules
from harness.recording import Evidence, ItemTrace, LegacyTrace, Platform, TraceStatus
from harness.shadow.cases import ChildRun


def _child(key: str, route: str, *, status: str = "succeeded", calls: list[dict[str, Any]] | None = None,
           error: str | None = None) -> ChildRun:
    trace = {"status": status, "path": [], "decisions": {"route": route}, "calls": calls or [], "outputs": {},
             "error": error}
    return ChildRun(key, "item", status, 1, error, trace)


def _legacy(*items: ItemTrace, evidence: tuple[Evidence, ...] = tuple(Evidence)) -> LegacyTrace:
    return LegacyTrace("run-1", TraceStatus.SUCCEEDED, Platform.N8N, items=list(items), evidence=evidence)


def _found(legacy: LegacyTrace, children: list[ChildRun]) -> list[tuple[str, str]]:
    return [(d.path, d.kind) for d in compare_items(legacy, children, Rules()).disagreements]


def test_a_pollers_child_key_pairs_without_its_poll_prefix_in_every_segment() -> None:
    assert pairing_key("poll:inv-7") == "inv-7"
    assert pairing_key("0/poll:a") == "0/a"
    assert pairing_key("3") == "3"


def test_items_that_match_their_children_agree() -> None:
    legacy = _legacy(ItemTrace("0", decisions={"route": "bug"}), ItemTrace("1", decisions={"route": "docs"}))
    compared = compare_items(legacy, [_child("1", "docs"), _child("0", "bug")], Rules())
    assert compared.disagreements == [] and compared.compared == ["0", "1"]
    assert compared.counts([]) == {"compared": 2, "agreed": 2, "extra": 0}


def test_a_differing_decision_is_named_by_the_item_key_and_generalised_for_clusters() -> None:
    legacy = _legacy(ItemTrace("0", decisions={"route": "bug"}), ItemTrace("inv-7", decisions={"route": "bug"}))
    compared = compare_items(legacy, [_child("0", "bug"), _child("inv-7", "docs")], Rules())
    (d,) = compared.disagreements
    assert (d.path, d.kind, d.legacy, d.new, d.pattern) == (
        "items[inv-7].decisions.route", "value_changed", "bug", "docs", "items[*].decisions.route")
    assert compared.legacy["inv-7"]["decisions"] == {"route": "bug"} and "0" not in compared.legacy
    assert compared.counts([Judgement(None, None)]) == {"compared": 2, "agreed": 1, "extra": 0}
    assert compared.counts([Judgement(0, None)])["agreed"] == 2  # accepted: the item counts as agreeing


def test_a_missing_and_an_extra_child_name_their_keys_and_a_writing_extra_child_is_a_side_effect() -> None:
    post = {"step": "notify", "provider": "chat", "method": "POST", "url": "/m", "body": {}}
    legacy = _legacy(ItemTrace("0", decisions={"route": "bug"}), ItemTrace("1", decisions={"route": "bug"}))
    compared = compare_items(legacy, [_child("0", "bug"), _child("2", "bug", calls=[post])], Rules())
    assert [(d.path, d.kind, d.side_effect) for d in compared.disagreements] == [
        ("items[1]", "missing_in_new", False), ("items[2]", "extra_in_new", True)]
    assert compared.disagreements[1].new["decisions"] == {"route": "bug"}
    assert compared.counts([Judgement(None, None)] * 2) == {"compared": 2, "agreed": 1, "extra": 1}


def test_item_fields_outside_the_traces_evidence_are_not_compared() -> None:
    legacy = _legacy(ItemTrace("0", path=["a"], decisions={"route": "bug"}), evidence=(Evidence.STATUS,))
    assert _found(legacy, [_child("0", "docs")]) == []
    assert _found(legacy, [_child("0", "docs", status="failed")]) == [("items[0].status", "value_changed")]


def test_a_failed_child_records_its_error_for_the_failure_text() -> None:
    legacy = _legacy(ItemTrace("0", decisions={"route": "bug"}))
    compared = compare_items(legacy, [_child("0", "bug", status="failed", error="KeyError: 'x'")], Rules())
    assert compared.errors == {"0": "KeyError: 'x'"}


def test_the_parents_child_enqueue_and_wait_steps_leave_its_path() -> None:
    trace = {"status": "succeeded", "path": ["split", "child:0", "child:poll:a", "children:0", "notify"]}
    assert without_child_steps(trace)["path"] == ["split", "notify"]
    assert trace["path"][1] == "child:0"  # the input is not changed


def test_item_noise_names_the_generalised_item_fields_that_differ_between_two_runs() -> None:
    first, second = [_child("poll:a", "bug"), _child("b", "x")], [_child("poll:a", "docs"), _child("b", "x")]
    assert item_noise(first, second, Rules()) == {"items[*].decisions.route"}


def test_disagreement_paths_outside_items_keep_their_generalisation() -> None:
    assert Disagreement("calls[items].body[3]", "value_changed", 1, 2).pattern == "calls[items].body[*]"

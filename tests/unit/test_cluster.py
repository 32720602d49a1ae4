"""Clustering disagreements by signature with counts and exemplars."""

from __future__ import annotations

from typing import Any

from harness.shadow.cluster import clusters, frame, signature


def _row(trigger: str, seq: int, path: str, pattern: str, kind: str = "value_changed", **kw: Any) -> dict[str, Any]:
    row = {"automation": "github-triage", "trigger_id": trigger, "seq": seq, "path": path, "pattern": pattern,
           "kind": kind, "legacy": "other", "new": "bug", "side_effect": False, "accepted_by": None,
           "expired_by": None}
    row.update(kw)
    return row


def test_disagreements_with_one_signature_form_one_cluster_with_counts() -> None:
    rows = [_row(f"t{i}", i, "decisions.route", "decisions.route") for i in range(5)]
    rows += [_row("t1", 1, "calls[l].body.labels[0]", "calls[l].body.labels[*]", side_effect=True, accepted_by=0),
             _row("t2", 2, "calls[l].body.labels[1]", "calls[l].body.labels[*]", side_effect=True)]
    found = clusters(frame(rows))
    assert [(c.signature, c.count, c.triggers, c.accepted, c.side_effect) for c in found] == [
        ("github-triage decisions.route value_changed", 5, 5, 0, False),
        ("github-triage calls[l].body.labels[*] value_changed", 2, 2, 1, True),
    ]
    assert found[1].unexplained == 1


def test_exemplars_are_the_first_triggers_in_set_order() -> None:
    rows = [_row(f"t{i}", i, "decisions.route", "decisions.route") for i in (9, 3, 7, 1)]
    (cluster,) = clusters(frame(rows), exemplars=2)
    assert [x["trigger_id"] for x in cluster.exemplars] == ["t1", "t3"]


def test_null_values_stay_null_in_exemplars() -> None:
    (cluster,) = clusters(frame([_row("t1", 1, "path[1]", "path[*]", "extra_in_new", legacy=None, new="comment")]))
    assert cluster.exemplars[0]["legacy"] is None


def test_no_disagreements_give_no_clusters() -> None:
    assert clusters(frame([])) == []


def test_signature_is_automation_pattern_and_kind() -> None:
    assert signature("a", "decisions.x", "missing_in_new") == "a decisions.x missing_in_new"

"""Diffing canonical traces: paths, kinds, loose typing and side effects."""

from __future__ import annotations

from typing import Any

from harness.shadow.diff import Disagreement, diff_traces, format_path, generalise
from harness.manifest import Coercion


def _trace(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"status": "succeeded", "path": [], "decisions": {}, "calls": {}, "outputs": {}}
    base.update(kw)
    return base


def test_equal_traces_have_no_disagreements() -> None:
    t = _trace(path=["a"], decisions={"route": "bug"})
    assert diff_traces(t, dict(t)) == []


def test_a_changed_decision_names_its_path_and_both_values() -> None:
    found = diff_traces(_trace(decisions={"route": "other"}), _trace(decisions={"route": "bug"}))
    assert found == [Disagreement("decisions.route", "value_changed", "other", "bug", False)]


def test_n8n_string_booleans_agree_with_booleans_but_not_with_the_opposite() -> None:
    assert diff_traces(_trace(decisions={"opened": "true"}), _trace(decisions={"opened": True}), Coercion.N8N) == []
    found = diff_traces(_trace(decisions={"opened": "false"}), _trace(decisions={"opened": True}), Coercion.N8N)
    assert [(d.path, d.kind) for d in found] == [("decisions.opened", "value_changed")]


def test_a_type_change_the_profile_does_not_excuse_is_reported() -> None:
    found = diff_traces(_trace(decisions={"n": "1"}), _trace(decisions={"n": 1}), Coercion.STRICT)
    assert [(d.path, d.kind, d.legacy, d.new) for d in found] == [("decisions.n", "type_changed", "1", 1)]


def test_extra_and_missing_items_say_which_side_has_them() -> None:
    found = diff_traces(_trace(path=["a", "b"]), _trace(path=["a", "c", "d"]))
    assert [(d.path, d.kind, d.legacy, d.new) for d in found] == [
        ("path[1]", "value_changed", "b", "c"), ("path[2]", "extra_in_new", None, "d")]
    found = diff_traces(_trace(decisions={"x": 1}), _trace())
    assert [(d.path, d.kind) for d in found] == [("decisions.x", "missing_in_new")]


def test_call_fields_are_side_effects_unless_the_call_is_a_read() -> None:
    post = {"provider": "github", "method": "POST", "url": "/l", "body": {"labels": ["triage"]}}
    read = {"provider": "stripe", "method": "GET", "url": "/c/1"}
    legacy = _trace(calls={"add-labels": post, "fetch": read})
    new = _trace(calls={"add-labels": dict(post, body={"labels": ["bug"]}), "fetch": dict(read, url="/c/2")})
    found = {d.path: d for d in diff_traces(legacy, new)}
    assert found["calls[add-labels].body.labels[0]"].side_effect
    assert not found["calls[fetch].url"].side_effect


def test_paths_generalise_indices_for_clustering() -> None:
    assert generalise("calls[add-labels].body.labels[0]") == "calls[add-labels].body.labels[*]"
    assert format_path(["outputs", "weird key", 2]) == 'outputs["weird key"][2]'


def test_disagreements_come_in_trace_field_order() -> None:
    legacy = _trace(status="failed", path=["a"], decisions={"r": 1})
    new = _trace(status="succeeded", path=["b"], decisions={"r": 2})
    assert [d.path for d in diff_traces(legacy, new)] == ["status", "path[0]", "decisions.r"]


def test_a_difference_is_found_without_importing_pandas_or_numpy() -> None:
    # deepdiff imports the data-frame libraries when installed; a replay process that judges
    # JSON traces has no use for them (harness.shadow.diff._deepdiff keeps them out).
    import subprocess
    import sys

    code = ("import sys\n"
            "from harness.shadow.diff import diff_traces\n"
            "found = diff_traces({'status': 'succeeded', 'path': ['a'], 'decisions': {'route': 'bug'}},\n"
            "                    {'status': 'succeeded', 'path': ['a'], 'decisions': {'route': 'other'}})\n"
            "print([(d.path, d.kind) for d in found], 'pandas' in sys.modules, 'numpy' in sys.modules,\n"
            "      sys.modules.get('pandas', 0) is None)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[('decisions.route', 'value_changed')] False False False"

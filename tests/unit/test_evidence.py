"""Evidence depth: the diff compares only what the legacy export holds, and the gate says so."""

from __future__ import annotations

from typing import Any

import pytest

from harness.shadow.diff import diff_traces
from harness.shadow.gate import (
    AutomationStats,
    GateConfig,
    GateRules,
    compared_phrase,
    evidence_depth,
    judge,
    parse_gate,
)
from harness.manifest import Coercion, Manifest
from harness.shadow.normalize import Rules, align, branches, reduce_legacy, reduce_new
from harness.recording import Evidence, LegacyTrace, Platform, TraceStatus
from harness.shadow.report import RunInfo, build_summary, terminal_lines, verdicts
from harness.errors import GateConfigError

STATUS_ONLY = (Evidence.STATUS,)


def _legacy(**kw: Any) -> LegacyTrace:
    base: dict[str, Any] = {"trigger_id": "t1", "status": TraceStatus.SUCCEEDED, "platform": Platform.ZAPIER}
    return LegacyTrace(**(base | kw))


def _new(**kw: Any) -> dict[str, Any]:
    return {"status": "succeeded", "path": ["triage"], "decisions": {"route": "bug"},
            "calls": [{"step": "label", "provider": "github", "method": "POST", "url": "/x", "body": {"a": 1}}],
            "outputs": {"triage": {"route": "bug"}}} | kw


def _compare(legacy: LegacyTrace, new: dict[str, Any]) -> list[str]:
    rules = Rules(Coercion.ZAPIER)
    left, right = align(reduce_legacy(legacy, rules), reduce_new(new, rules), legacy.evidence)
    return [d.path for d in diff_traces(left, right, rules.coercion)]


def test_a_status_only_trace_cannot_disagree_on_path_decisions_calls_or_outputs() -> None:
    assert _compare(_legacy(evidence=STATUS_ONLY), _new()) == []


def test_the_same_traces_at_full_depth_disagree_on_path_decisions_and_calls() -> None:
    found = _compare(_legacy(), _new())
    assert {p.split("[")[0].split(".")[0] for p in found} == {"path", "decisions", "calls"}


def test_status_is_compared_at_every_depth() -> None:
    assert _compare(_legacy(evidence=STATUS_ONLY, status=TraceStatus.FILTERED), _new()) == ["status"]


def test_a_partial_depth_compares_the_fields_it_holds_and_only_those() -> None:
    legacy = _legacy(evidence=(Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS), path=["triage"],
                     decisions={"route": "other"})
    assert _compare(legacy, _new()) == ["decisions.route"]


def test_branches_of_a_trace_without_decisions_are_only_its_filtered_status() -> None:
    rules = Rules(Coercion.ZAPIER)
    legacy = _legacy(evidence=STATUS_ONLY, status=TraceStatus.FILTERED, decisions={"route": "bug"})
    left, _ = align(reduce_legacy(legacy, rules), reduce_new(_new(), rules), legacy.evidence)
    assert branches(left, rules.coercion) == ["status=filtered"]


def test_depth_is_the_deepest_level_whose_fields_are_all_held() -> None:
    assert evidence_depth(["status", "path", "decisions", "calls", "outputs"]) is Evidence.OUTPUTS
    assert evidence_depth(["status", "path", "decisions", "outputs"]) is Evidence.DECISIONS
    assert evidence_depth(["status", "decisions"]) is Evidence.STATUS
    assert evidence_depth([]) is None


def test_the_compared_phrase_names_what_was_compared_and_what_the_export_lacks() -> None:
    assert compared_phrase(["status"]) == "compared: status only — path, decisions, calls, outputs not compared"
    assert compared_phrase(["path", "status"]) == "compared: status, path — decisions, calls, outputs not compared"
    assert compared_phrase(["status", "path", "decisions", "calls", "outputs"]) == \
        "compared: status, path, decisions, calls, outputs"


def _stats(evidence: tuple[str, ...]) -> AutomationStats:
    return AutomationStats("payment-dunning", 840, 840, 0, {"status=filtered": 40}, (), evidence)


def test_a_status_only_automation_is_not_ready_under_the_default_decisions_requirement() -> None:
    verdict = judge(_stats(("status",)), GateRules(), "c0de")
    assert not verdict.ready and verdict.label == "NOT READY"
    assert verdict.failed == ("evidence depth status is below the required decisions (compared: status only — "
                              "path, decisions, calls, outputs not compared)",)


def test_a_lowered_requirement_makes_it_ready_but_the_label_names_its_depth() -> None:
    verdict = judge(_stats(("status",)), GateRules(evidence=Evidence.STATUS), "c0de")
    assert verdict.ready and verdict.label == "READY (status only)"
    assert "evidence depth status meets the required status" in " ".join(verdict.met)
    assert verdict.as_dict()["depth"] == "status" and verdict.as_dict()["evidence"] == ["status"]


def test_full_depth_is_plain_ready() -> None:
    verdict = judge(_stats(("status", "path", "decisions", "calls", "outputs")), GateRules(), "c0de")
    assert verdict.label == "READY" and "(compared: status, path, decisions, calls, outputs)" in verdict.met[-1]


def test_nothing_compared_is_never_ready_on_evidence() -> None:
    verdict = judge(AutomationStats("x", 0, 0, 0, {}, (), ()), GateRules(min_triggers=0), "v")
    assert "no evidence depth: nothing was compared (the gate requires decisions)" in verdict.failed


def test_the_gate_reads_a_required_depth_per_automation() -> None:
    config = parse_gate({"evidence": "status", "automations": {"github-triage": {"evidence": "outputs"}}})
    assert config.rules_for("payment-dunning").evidence is Evidence.STATUS
    assert config.rules_for("github-triage").evidence is Evidence.OUTPUTS
    with pytest.raises(GateConfigError, match=r"tool.cutover.gate.evidence.*expected one of '?status'?, '?path"):
        parse_gate({"evidence": "everything"})


def _row(automation: str, trigger: str, evidence: list[str] | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"automation": automation, "trigger_id": trigger, "seq": int(trigger[1:]),
                           "verdict": "agreed", "legacy_status": "succeeded", "new_status": "succeeded",
                           "legacy_branches": [], "new_branches": [], "error": None, "exception": None, "noisy": []}
    return row | ({"evidence": evidence} if evidence is not None else {})


def _summary(rows: list[dict[str, Any]], gate: GateConfig) -> dict[str, Any]:
    info = RunInfo("recordings/x", "shadow", 0, False, None, {"dunning": "c0de", "triage": "beef"},
                   {"dunning": "zapier", "triage": "n8n"}, {})
    return build_summary(info, Manifest(name="x"), {}, rows, [], [], set(), gate)


def test_the_summary_states_each_automations_depth_set_by_its_weakest_trace() -> None:
    rows = [_row("dunning", "t1", ["status", "path"]), _row("dunning", "t2", ["status"]),
            _row("triage", "t3"), _row("triage", "t4")]
    summary = _summary(rows, GateConfig(GateRules(min_triggers=1)))
    by_name = {a["name"]: a for a in summary["automations"]}
    assert by_name["dunning"]["evidence"] == {
        "held": ["status"], "missing": ["path", "decisions", "calls", "outputs"], "depth": "status",
        "required": "decisions",
        "compared": "compared: status only — path, decisions, calls, outputs not compared"}
    assert by_name["triage"]["evidence"]["depth"] == "outputs"
    assert summary["gate"] == {"ready": ["triage"], "not_ready": ["dunning"]}
    text = "\n".join(terminal_lines(summary))
    assert "    compared: status only — path, decisions, calls, outputs not compared" in text
    assert "✗ evidence depth status is below the required decisions" in text
    (dunning, _) = verdicts(summary)
    assert dunning.evidence == ("status",)

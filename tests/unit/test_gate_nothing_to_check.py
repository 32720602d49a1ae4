"""No check with nothing to check is reported as passed (issue 23): it is said, neutrally, instead."""

from __future__ import annotations

from harness.shadow.gate import AutomationStats, GateRules, judge

RULES = GateRules(min_triggers=1)


def test_side_effecting_calls_are_not_checked_and_say_so_when_the_export_holds_no_calls() -> None:
    stats = AutomationStats("dunning", 10, 10, 0, {"stage=first": 4}, evidence=("status", "path", "decisions"),
                            accepted_entries=1)
    verdict = judge(stats, RULES, "c0de")
    assert verdict.ready
    assert not any("side-effecting calls" in r for r in verdict.met + verdict.failed)
    assert ("side-effecting calls not checked: the export holds no calls, so no call was compared "
            "(max_side_effect_mismatches = 0 counted nothing)") in verdict.neutral


def test_side_effecting_calls_are_checked_when_calls_were_compared() -> None:
    stats = AutomationStats("triage", 10, 10, 0, {"route=bug": 4}, accepted_entries=1)
    verdict = judge(stats, RULES, "c0de")
    assert "0 trigger(s) with unexplained mismatches on side-effecting calls (allowed 0)" in verdict.met
    assert "no accepted difference has expired" in verdict.met


def test_expiry_is_not_a_passed_check_for_an_automation_no_accepted_entry_names() -> None:
    stats = AutomationStats("digest", 10, 10, 0, {"has_bugs=true": 4}, accepted_entries=0)
    verdict = judge(stats, RULES, "c0de")
    assert "no accepted difference has expired" not in verdict.met
    assert "no accepted difference names this automation, so none can have expired" in verdict.neutral


def test_an_expired_entry_still_fails_the_verdict() -> None:
    stats = AutomationStats("triage", 10, 10, 0, {"route=bug": 4}, expired_entries=("#1 status (owner a, expired x)",),
                            accepted_entries=1)
    verdict = judge(stats, RULES, "c0de")
    assert not verdict.ready and verdict.failed == ("1 accepted difference(s) expired: #1 status (owner a, expired x)",)

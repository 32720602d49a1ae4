"""The branch rules of the gate never pass a check that had nothing to check."""

from __future__ import annotations

from harness.shadow.gate import AutomationStats, GateRules, judge

DEFINITION = GateRules(min_triggers=1, branch_coverage="definition")


def _stats(**kwargs: object) -> AutomationStats:
    base: dict[str, object] = {"automation": "flow", "compared": 10, "agreed": 10, "side_effect_mismatches": 0,
                               "branches": {"route=a": 5}}
    return AutomationStats(**{**base, **kwargs})  # type: ignore[arg-type]


def test_no_legacy_branch_is_a_neutral_line_not_a_passed_check() -> None:
    verdict = judge(_stats(branches={}), GateRules(min_triggers=1), "v")
    assert not any("legacy branches exercised" in r for r in verdict.met + verdict.failed)
    assert [n for n in verdict.neutral if n.startswith("no branches to check")]
    assert verdict.as_dict()["neutral"] == list(verdict.neutral)
    assert verdict.ready  # a neutral line neither passes nor fails the verdict


def test_legacy_branches_are_still_checked_when_there_are_some() -> None:
    verdict = judge(_stats(branches={"route=a": 0}), GateRules(min_triggers=1), "v")
    assert "1 legacy branch(es) exercised fewer than 1× by the new code: route=a (0×)" in verdict.failed
    assert not verdict.neutral


def test_a_definition_whose_branches_cannot_be_read_fails_the_definition_rule_with_the_reason() -> None:
    problem = "node 'Route' (switch v4): branch coverage reads switch v1, v2, v3, v3.1, v3.2, v3.3, v3.4 only"
    verdict = judge(_stats(untaken=None, definition_problem=problem), DEFINITION, "v")
    assert not verdict.ready
    assert any(problem in r and "cannot be read" in r for r in verdict.failed)


def test_a_definition_with_no_branch_is_neutral_and_one_with_unreadable_branches_fails() -> None:
    empty = judge(_stats(untaken=(), definition_total=0), DEFINITION, "v")
    assert empty.ready and "no branches to check: the definition has no branching node" in empty.neutral
    assert not any("definition" in r for r in empty.met)
    unreadable = judge(_stats(untaken=(), definition_total=2,
                              unreadable=("Keep → kept (no node fed only by the kept output …)",)), DEFINITION, "v")
    assert not unreadable.ready
    assert any("1 branch(es) of the definition are not readable from the recording" in r for r in unreadable.failed)
    assert not any("were taken" in r for r in unreadable.met)  # the readable ones do not make it a pass


def test_every_branch_taken_is_met_with_the_count_and_an_untaken_one_fails() -> None:
    met = judge(_stats(untaken=(), definition_total=3), DEFINITION, "v")
    assert "all 3 branch(es) of the definition were taken by a recorded trigger" in met.met
    missed = judge(_stats(untaken=("route=b",), definition_total=3), DEFINITION, "v")
    assert "1 branch(es) of the definition no recorded trigger took (untested): route=b" in missed.failed


def test_the_default_rule_ignores_the_definition() -> None:
    verdict = judge(_stats(untaken=None, definition_problem="unreadable"), GateRules(min_triggers=1), "v")
    assert verdict.ready

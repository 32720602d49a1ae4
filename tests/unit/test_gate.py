"""The go-live gate: rules, overrides and verdict reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.shadow.gate import AutomationStats, GateRules, judge, load_gate, parse_gate
from harness.errors import GateConfigError

GOOD = AutomationStats("lead-router", 600, 600, 0, {"route=smb": 282, "route=junk": 102})


def test_an_automation_meeting_every_rule_is_ready_with_its_code_version() -> None:
    verdict = judge(GOOD, GateRules(), "d7a8")
    assert verdict.ready and verdict.label == "READY" and verdict.code_version == "d7a8"
    assert not verdict.failed and any("agreement 100.00%" in r for r in verdict.met)


def test_each_failed_rule_is_a_reason() -> None:
    stats = AutomationStats("github-triage", 960, 903, 57, {"route=other": 198, "status=filtered": 0},
                            ("#1 decisions.route (owner m, expired 2026-01-01)",))
    verdict = judge(stats, GateRules(), "1abc")
    assert not verdict.ready
    text = " | ".join(verdict.failed)
    assert "below the floor 99.50%" in text
    assert "status=filtered (0×)" in text
    assert "57 trigger(s) with unexplained mismatches on side-effecting calls" in text
    assert "expired" in text


def test_too_few_triggers_is_not_ready() -> None:
    verdict = judge(AutomationStats("x", 10, 10, 0, {}), GateRules(min_triggers=100), "v")
    assert verdict.failed == ("only 10 triggers compared; the gate needs at least 100",)


def test_per_automation_overrides_inherit_the_defaults(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.cutover.gate]\nagreement = 0.9\nmin_triggers = 10\n"
                         "[tool.cutover.gate.automations.github-triage]\nagreement = 0.99\n")
    config = load_gate(pyproject)
    assert config.rules_for("lead-router") == GateRules(min_triggers=10, agreement=0.9)
    assert config.rules_for("github-triage") == GateRules(min_triggers=10, agreement=0.99)


def test_a_bad_setting_names_its_field() -> None:
    with pytest.raises(GateConfigError, match=r"tool.cutover.gate.automations.a.agreement"):
        parse_gate({"automations": {"a": {"agreement": 99.5}}})
    with pytest.raises(GateConfigError, match="unknown key"):
        parse_gate({"floor": 1})


def test_no_pyproject_means_default_rules() -> None:
    assert load_gate(None).rules_for("anything") == GateRules()


def test_a_gate_table_in_a_file_that_is_not_toml_is_the_readers_config_error(tmp_path: Path) -> None:
    from queue_core.errors import ConfigError

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.cutover.gate]\nmin_agreement = 0.99\nbranch_coverage = "definition\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_gate(pyproject)
    assert caught.value.line == 3 and "pyproject.toml" in str(caught.value)

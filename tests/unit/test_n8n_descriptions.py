"""n8n's parameter defaults put back per node type and version, as n8n reads an export."""

from __future__ import annotations

from harness.platforms.n8n import descriptions
from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import TRANSLATORS


def test_if_v1_conditions_take_their_type_s_default_operation() -> None:
    given = {"conditions": {"number": [{"value1": "={{$json.total}}", "value2": 5}],
                            "dateTime": [{"value1": "={{$json.at}}", "value2": "2024-01-01"}],
                            "string": [{"value1": "={{$json.title}}"}]}}
    filled = descriptions.with_defaults("n8n-nodes-base.if", 1, given)
    assert filled["conditions"]["number"][0]["operation"] == "smaller"
    assert filled["conditions"]["dateTime"][0]["operation"] == "after"
    assert filled["conditions"]["string"][0] == {"value1": "={{$json.title}}", "operation": "equal", "value2": ""}
    assert filled["combineOperation"] == "all"
    assert given["conditions"]["number"][0] == {"value1": "={{$json.total}}", "value2": 5}  # not changed in place


def test_a_value_the_export_holds_is_kept() -> None:
    given = {"conditions": {"number": [{"value1": 1, "operation": "larger", "value2": 0}]}, "combineOperation": "any"}
    assert descriptions.with_defaults("n8n-nodes-base.if", 1, given) == given


def test_switch_v1_rules_default_to_output_0_and_the_number_type() -> None:
    filled = descriptions.with_defaults("n8n-nodes-base.switch", 1, {"rules": {"rules": [{"value2": 3}, {"value2": 9, "output": 1}]}})
    assert filled["mode"] == "rules" and filled["dataType"] == "number" and filled["fallbackOutput"] == -1
    assert [r["output"] for r in filled["rules"]["rules"]] == [0, 1]
    assert filled["rules"]["rules"][0]["operation"] == "smaller"


def test_filter_v1_combines_with_and_by_default() -> None:
    filled = descriptions.with_defaults("n8n-nodes-base.filter", 1, {"conditions": {"string": [{"value1": "a"}]}})
    assert filled["combineConditions"] == "AND"


def test_display_options_follow_the_version() -> None:
    """Set 3.2 describes ``fields`` and ``include``; from 3.3 on ``assignments`` and ``includeOtherFields``."""
    old = descriptions.with_defaults("n8n-nodes-base.set", 3.2, {})
    new = descriptions.with_defaults("n8n-nodes-base.set", 3.4, {})
    assert "fields" in old and "include" in old and "includeOtherFields" not in old
    assert "assignments" in new and new["includeOtherFields"] is False and "include" not in new


def test_a_parameter_shown_by_another_takes_its_default_only_when_shown() -> None:
    assert "chooseBranchMode" not in descriptions.with_defaults("n8n-nodes-base.merge", 2, {})
    chosen = descriptions.with_defaults("n8n-nodes-base.merge", 2, {"mode": "chooseBranch"})
    assert chosen["output"] == "input1"


def test_an_undescribed_node_or_version_is_read_as_exported() -> None:
    given = {"anything": [1, 2]}
    assert descriptions.with_defaults("n8n-nodes-base.noSuchNode", 1, given) == given
    assert descriptions.with_defaults("n8n-nodes-base.if", 99, given) == given
    assert descriptions.properties("n8n-nodes-base.if", 99) is None


def test_display_conditions() -> None:
    shown = descriptions._shown
    assert shown({"show": {"@version": [{"_cnd": {"gte": 3.4}}]}}, {}, {}, 3.4)
    assert not shown({"show": {"@version": [{"_cnd": {"gte": 3.4}}]}}, {}, {}, 3.3)
    assert not shown({"hide": {"/mode": ["raw"]}}, {}, {"mode": "raw"}, 1)
    assert shown({"show": {"flag": [True]}}, {"flag": True}, {}, 1)
    assert not shown({"show": {"flag": [True]}}, {"flag": 1}, {}, 1)  # true is not 1, as in n8n
    assert not shown({"show": {"absent": [""]}}, {}, {}, 1)


def test_a_workflow_node_reads_its_settings_with_defaults() -> None:
    workflow = parse_workflow({"name": "w", "nodes": [
        {"name": "If", "type": "n8n-nodes-base.if", "typeVersion": 1,
         "parameters": {"conditions": {"number": [{"value1": 1, "value2": 2}]}}},
    ], "connections": {}}, "w.json")
    node = workflow.nodes["If"]
    assert node.parameters == {"conditions": {"number": [{"value1": 1, "value2": 2}]}}
    assert node.settings["conditions"]["number"][0]["operation"] == "smaller"
    assert node.described


def test_every_node_type_the_translator_reads_is_described() -> None:
    """The translator's node types (n8n's own test-data node aside) all have their defaults known."""
    missing = [t for t in TRANSLATORS if t != "testData" and not descriptions.described_versions(t)]
    assert missing == []

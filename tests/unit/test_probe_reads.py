"""probe-triggers' reading of conditions: which trigger fields a node's expressions read, and why not."""

from __future__ import annotations

from typing import Any

import pytest

from harness.platforms.n8n.probe.reads import node_reads
from harness.platforms.n8n.definition import parse_workflow


def _workflow(expression: str, *, between: dict[str, Any] | None = None, trigger: str = "webhook") -> Any:
    hook = {"name": "Hook", "type": f"n8n-nodes-base.{trigger}", "typeVersion": 1, "parameters": {}}
    check = {"name": "Check", "type": "n8n-nodes-base.if", "typeVersion": 2, "parameters": {"conditions": {
        "conditions": [{"leftValue": expression, "rightValue": "x", "operator": {"type": "string", "operation": "equals"}}]}}}
    nodes = [hook, check] + ([between] if between else [])
    first = between["name"] if between else "Check"
    connections = {"Hook": {"main": [[{"node": first, "type": "main", "index": 0}]]}}
    if between:
        connections[between["name"]] = {"main": [[{"node": "Check", "type": "main", "index": 0}]]}
    return parse_workflow({"name": "wf", "nodes": nodes, "connections": connections}, "wf.json")


def _paths(workflow: Any) -> list[Any]:
    return [(r.path, r.why) for r in node_reads(workflow, workflow.nodes["Check"])]


@pytest.mark.parametrize(("expression", "path"), [
    ("={{ $json.body.customer.tier }}", ("body", "customer", "tier")),
    ("={{ $('Hook').item.json.body.kind }}", ("body", "kind")),
    ("={{ $('Hook').first().json.body.kind }}", ("body", "kind")),
    ('={{ $node["Hook"].json.body.kind }}', ("body", "kind")),
    ("={{ $json.body.title.toLowerCase() }}", ("body", "title")),
    ("={{ $json.body.labels.length }}", ("body", "labels")),
    ("={{ $json.body.items[0].sku }}", ("body", "items", 0, "sku")),
    ("={{ $json.headers['X-Kind'] }}", ("headers", "x-kind")),
])
def test_a_webhook_field_read_by_a_condition_is_a_path_in_the_recorded_trigger(expression: str, path: Any) -> None:
    assert _paths(_workflow(expression)) == [(path, None)]


def test_a_non_webhook_triggers_item_is_its_body() -> None:
    assert _paths(_workflow("={{ $json.level }}", trigger="manualTrigger")) == [(("body", "level"), None)]


def test_a_field_a_set_node_copies_is_followed_to_its_source() -> None:
    copy = {"name": "Fields", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {
        "assignments": {"assignments": [{"name": "amount", "value": "={{ $json.body.total }}", "type": "number"},
                                        {"name": "flag", "value": True, "type": "boolean"}]},
        "includeOtherFields": True}}
    assert _paths(_workflow("={{ $json.amount }}", between=copy)) == [(("body", "total"), None)]
    ((path, why),) = _paths(_workflow("={{ $json.flag }}", between=copy))
    assert path is None and "constant the Set node 'Fields' assigns" in why
    kept = {**copy, "parameters": {**copy["parameters"], "includeOtherFields": False}}
    ((path, why),) = _paths(_workflow("={{ $json.body.total }}", between=kept))
    assert path is None and "keeps only the fields it sets" in why


def test_a_value_from_a_code_node_is_not_the_triggers() -> None:
    code = {"name": "Compute", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return []"}}
    ((path, why),) = _paths(_workflow("={{ $json.score }}", between=code))
    assert path is None and "Code node 'Compute'" in why


def test_now_and_literals_are_not_reads() -> None:
    assert _paths(_workflow("={{ $now.toISO() }}")) == []

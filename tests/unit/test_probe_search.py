"""probe-triggers' search: mutations of recorded triggers that make the translated conditions take a branch."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.branches import branches
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus
from harness.platforms.n8n.probe.search import _hypothesis, _target, make_probes
from harness.platforms.n8n.probe.oracle import Oracle
from harness.platforms.n8n.probe.values import apply
from harness.platforms.n8n.definition import parse_workflow

START = datetime(2024, 6, 1, tzinfo=UTC)


def _conditions(left: str, right: Any, kind: str, operation: str, *, strict: bool = True) -> dict[str, Any]:
    options = {"caseSensitive": True, "typeValidation": "strict" if strict else "loose"}
    return {"options": options, "combinator": "and",
            "conditions": [{"leftValue": left, "rightValue": right, "operator": {"type": kind, "operation": operation}}]}


def _workflow(branch_node: dict[str, Any], outputs: int = 2, extra: list[dict[str, Any]] | None = None,
              chain: dict[str, Any] | None = None) -> Any:
    nodes = [{"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {"path": "x"}},
             branch_node, *(extra or [])]
    nodes += [{"name": f"Out {i}", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}}
              for i in range(outputs)]
    connections = chain or {
        "Hook": {"main": [[{"node": branch_node["name"], "type": "main", "index": 0}]]},
        branch_node["name"]: {"main": [[{"node": f"Out {i}", "type": "main", "index": 0}] for i in range(outputs)]},
    }
    return parse_workflow({"name": "wf", "nodes": nodes, "connections": connections}, "wf.json")


def _if(name: str, conditions: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "type": "n8n-nodes-base.if", "typeVersion": 2, "parameters": {"conditions": conditions}}


def _pairs(bodies: list[dict[str, Any]], decisions: dict[str, str]) -> list[tuple[RecordedTrigger, LegacyTrace]]:
    out = []
    for i, body in enumerate(bodies):
        trigger = RecordedTrigger(f"t-{i}", START + timedelta(minutes=i), {}, body, "n8n")
        out.append((trigger, LegacyTrace(trigger.id, TraceStatus.SUCCEEDED, Platform.N8N, decisions=dict(decisions))))
    return out


def _entry(**decisions: str) -> AutomationEntry:
    return AutomationEntry("auto", Platform.N8N, Coercion.N8N,
                           decisions={node: DecisionMap(name) for node, name in decisions.items()})


def test_an_if_on_a_string_equals_is_reached_by_setting_the_field_to_the_constant() -> None:
    workflow = _workflow(_if("Is bug?", _conditions("={{ $json.body.kind }}", "bug", "string", "equals")))
    pairs = _pairs([{"kind": "question", "title": "a"}, {"kind": "idea", "title": "b"}], {"bug": "false"})
    found = make_probes(workflow, _entry(**{"Is bug?": "bug"}), pairs, count=5)
    targets = {(p.branch.node, p.branch.output) for p in found.probes}
    assert targets == {("Is bug?", "true")}
    first = found.probes[0]
    assert [(c.path, c.old, c.new) for c in first.changes] == [(("body", "kind"), "question", "bug")]
    assert first.trigger.body == {"kind": "bug", "title": "a"} and first.base.id == "t-0"
    assert first.trigger.id == "probe-1" and first.trigger.source == "probe:Is bug?/true"
    assert [f"{b.decision}={b.value}" for b in first.predicted] == ["bug=true"]
    assert len(found.probes) == 2 and found.probes[1].base.id == "t-1"  # a second probe from the next trigger


def test_a_strict_number_comparison_is_reached_with_a_number_past_the_bound() -> None:
    workflow = _workflow(_if("Big?", _conditions("={{ $json.body.amount }}", 100, "number", "gt")))
    pairs = _pairs([{"amount": 5}], {"big": "false"})
    probe = make_probes(workflow, _entry(**{"Big?": "big"}), pairs, count=1).probes[0]
    (change,) = probe.changes
    assert change.path == ("body", "amount") and isinstance(change.new, int | float) and not isinstance(change.new, bool)
    assert change.new > 100
    assert Oracle(workflow).run(probe.trigger).took("Big?", 0)


def test_a_switch_rule_is_reached_and_the_fallback_left_alone() -> None:
    switch = {"name": "Channel", "type": "n8n-nodes-base.switch", "typeVersion": 3, "parameters": {
        "rules": {"values": [{"conditions": _conditions("={{ $json.body.text }}", "sms", "string", "contains"),
                              "renameOutput": True, "outputKey": "sms"}]},
        "options": {"fallbackOutput": "extra", "renameFallbackOutput": "chat"}}}
    workflow = _workflow(switch)
    pairs = _pairs([{"text": "hello there"}], {"channel": "chat"})
    found = make_probes(workflow, _entry(Channel="channel"), pairs, count=3)
    assert [(p.branch.output, p.base.id) for p in found.probes] == [("sms", "t-0")]
    (change,) = found.probes[0].changes
    assert "sms" in change.new and change.path == ("body", "text")
    assert [c.branch.output for c in found.counts if c.taken] == ["chat"]


def test_a_branch_deciding_on_an_http_response_is_reported_not_reachable_with_the_node() -> None:
    fetch = {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2,
             "parameters": {"method": "GET", "url": "https://api.shop.test/stock"}}
    stock = _if("In stock?", _conditions("={{ $json.in_stock }}", True, "boolean", "equals"))
    chain = {"Hook": {"main": [[{"node": "Fetch", "type": "main", "index": 0}]]},
             "Fetch": {"main": [[{"node": "In stock?", "type": "main", "index": 0}]]},
             "In stock?": {"main": [[{"node": "Out 0", "type": "main", "index": 0}],
                                    [{"node": "Out 1", "type": "main", "index": 0}]]}}
    workflow = _workflow(stock, extra=[fetch], chain=chain)
    pairs = _pairs([{"sku": "a"}], {"in-stock": "true"})
    found = make_probes(workflow, _entry(**{"In stock?": "in-stock"}), pairs, count=3)
    assert found.probes == ()
    (miss,) = found.unreached
    assert miss.branch.output == "false"
    assert miss.reason.startswith("not reachable by mutating the trigger")
    assert "HTTP Request node 'Fetch'" in miss.reason and "$json.in_stock" in miss.reason


def test_a_condition_on_the_webhooks_query_is_not_reachable_and_says_why() -> None:
    workflow = _workflow(_if("Debug?", _conditions("={{ $json.query.debug }}", "1", "string", "equals")))
    found = make_probes(workflow, _entry(**{"Debug?": "debug"}), _pairs([{"a": 1}], {"debug": "false"}), count=2)
    (miss,) = found.unreached
    assert "query" in miss.reason and "headers and body only" in miss.reason


def test_a_condition_on_an_upstream_field_changes_both_gates_fewest_fields_first() -> None:
    gate = _if("Paid?", _conditions("={{ $json.body.status }}", "paid", "string", "equals"))
    big = _if("Big?", _conditions("={{ $('Hook').item.json.body.total }}", 1000, "number", "gte"))
    chain = {"Hook": {"main": [[{"node": "Paid?", "type": "main", "index": 0}]]},
             "Paid?": {"main": [[{"node": "Big?", "type": "main", "index": 0}], []]},
             "Big?": {"main": [[{"node": "Out 0", "type": "main", "index": 0}],
                               [{"node": "Out 1", "type": "main", "index": 0}]]}}
    workflow = _workflow(gate, extra=[big], chain=chain)
    pairs = _pairs([{"status": "pending", "total": 10}], {"paid": "false"})
    found = make_probes(workflow, _entry(**{"Paid?": "paid", "Big?": "big"}), pairs, count=4)
    by_target = {(p.branch.node, p.branch.output): p for p in found.probes}
    both = by_target[("Big?", "true")]
    assert {c.path: c.new for c in both.changes} == {("body", "status"): "paid", ("body", "total"): 1000}
    assert {c.path for c in by_target[("Big?", "false")].changes} == {("body", "status")}


def test_the_same_set_and_seed_give_the_same_probes() -> None:
    workflow = _workflow(_if("Is bug?", _conditions("={{ $json.body.kind }}", "bug", "string", "equals")))
    pairs = _pairs([{"kind": "question"}, {"kind": "idea"}, {"kind": "praise"}], {"bug": "false"})
    runs = [make_probes(workflow, _entry(**{"Is bug?": "bug"}), pairs, count=3, seed=7) for _ in range(2)]
    assert [(p.id, p.base.id, p.changes, p.trigger) for p in runs[0].probes] == \
        [(p.id, p.base.id, p.changes, p.trigger) for p in runs[1].probes]


def _regex_case() -> tuple[Any, Any, RecordedTrigger]:
    workflow = _workflow(_if("Code?", _conditions("={{ $json.body.code }}", "^[0-9]{4}$", "string", "regex",
                                                  strict=False)))
    trigger = RecordedTrigger("t-0", START, {}, {"code": "abc"}, "n8n")
    found = branches(workflow, _entry(**{"Code?": "code"}))
    target = _target(workflow, found, found[0])
    return workflow, target, trigger


def test_hypothesis_finds_a_value_no_candidate_gives_and_is_seeded() -> None:
    workflow, target, trigger = _regex_case()
    oracle = Oracle(workflow)

    def takes(changes: list[Any]) -> bool:
        return oracle.run(apply(trigger, changes, id="x", source="y")).took("Code?", 0)

    specs = [(("body", "code"), list(target.constants[("body", "code")]), "abc")]
    first = _hypothesis(specs, takes, random.Random("seed-1"), 400)
    again = _hypothesis(specs, takes, random.Random("seed-1"), 400)
    assert first is not None and first == again
    ((path, value),) = first
    assert path == ("body", "code") and re.fullmatch(r"[0-9]{4}", str(value))


@pytest.mark.parametrize("count", [1, 2])
def test_at_most_n_probes_are_made_and_the_rest_are_listed_as_not_probed(count: int) -> None:
    switch = {"name": "Kind", "type": "n8n-nodes-base.switch", "typeVersion": 3, "parameters": {
        "rules": {"values": [{"conditions": _conditions("={{ $json.body.kind }}", k, "string", "equals"),
                              "renameOutput": True, "outputKey": k} for k in ("a", "b", "c")]},
        "options": {"fallbackOutput": "extra", "renameFallbackOutput": "other"}}}
    workflow = _workflow(switch, outputs=4)
    found = make_probes(workflow, _entry(Kind="kind"), _pairs([{"kind": "z"}], {"kind": "other"}), count=count)
    assert len(found.probes) == count
    assert [b.output for b in found.skipped] == ["a", "b", "c"][count:]


def test_a_condition_mixing_a_response_and_a_trigger_field_sees_the_recorded_response() -> None:
    fetch = {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2,
             "parameters": {"method": "GET", "url": "https://api.shop.test/stock"}}
    both = _if("Ship?", {"options": {"caseSensitive": True, "typeValidation": "strict"}, "combinator": "and",
                         "conditions": [
                             {"leftValue": "={{ $json.in_stock }}", "rightValue": True,
                              "operator": {"type": "boolean", "operation": "equals"}},
                             {"leftValue": "={{ $('Hook').item.json.body.qty }}", "rightValue": 5,
                              "operator": {"type": "number", "operation": "gt"}}]})
    chain = {"Hook": {"main": [[{"node": "Fetch", "type": "main", "index": 0}]]},
             "Fetch": {"main": [[{"node": "Ship?", "type": "main", "index": 0}]]},
             "Ship?": {"main": [[{"node": "Out 0", "type": "main", "index": 0}],
                                [{"node": "Out 1", "type": "main", "index": 0}]]}}
    workflow = _workflow(both, extra=[fetch], chain=chain)
    trigger = RecordedTrigger("t-0", START, {}, {"qty": 1}, "n8n")
    in_stock = LegacyTrace("t-0", TraceStatus.SUCCEEDED, Platform.N8N, decisions={"ship": "false"},
                           outputs={"fetch": {"in_stock": True}})
    found = make_probes(workflow, _entry(**{"Ship?": "ship"}), [(trigger, in_stock)], count=1)
    (probe,) = found.probes
    assert [(c.path, c.new) for c in probe.changes] == [(("body", "qty"), 6)]
    sold_out = LegacyTrace("t-0", TraceStatus.SUCCEEDED, Platform.N8N, decisions={"ship": "false"},
                           outputs={"fetch": {"in_stock": False}})
    (miss,) = make_probes(workflow, _entry(**{"Ship?": "ship"}), [(trigger, sold_out)], count=1).unreached
    assert "other reads: $json.in_stock: the response of the HTTP Request node 'Fetch'" in miss.reason


def test_an_if_v1_condition_and_a_header_are_mutated_like_body_fields() -> None:
    v1 = {"name": "Many?", "type": "n8n-nodes-base.if", "typeVersion": 1, "parameters": {"conditions": {
        "number": [{"value1": "={{ $json.body.count }}", "operation": "larger", "value2": 10}]}}}
    found = make_probes(_workflow(v1), _entry(**{"Many?": "many"}), _pairs([{"count": 3}], {"many": "false"}), count=1)
    assert [(c.path, c.new) for c in found.probes[0].changes] == [(("body", "count"), 11)]
    by_header = _if("Retry?", _conditions("={{ $json.headers['x-retry'] }}", "yes", "string", "equals"))
    trigger = RecordedTrigger("t-0", START, {"x-retry": "no"}, {"a": 1}, "n8n")
    legacy = LegacyTrace("t-0", TraceStatus.SUCCEEDED, Platform.N8N, decisions={"retry": "false"})
    (probe,) = make_probes(_workflow(by_header), _entry(**{"Retry?": "retry"}), [(trigger, legacy)], count=1).probes
    assert probe.trigger.headers == {"x-retry": "yes"} and probe.trigger.body == {"a": 1}


def test_probes_are_the_same_in_another_process_with_another_hash_seed() -> None:
    script = (
        "import json, sys\n"
        "from tests.unit.test_probe_search import _regex_case, _entry, _pairs, make_probes\n"
        "workflow, _, _ = _regex_case()\n"
        "pairs = _pairs([{'code': 'abc'}, {'code': 'xyz'}], {'code': 'false'})\n"
        "found = make_probes(workflow, _entry(**{'Code?': 'code'}), pairs, count=2, seed=3)\n"
        "print(json.dumps([[p.id, p.base.id, p.trigger.body] for p in found.probes]))\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": root}
        run = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True,
                             timeout=120, check=True)
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1] and len(outputs[0]) == 2


def test_a_string_field_compared_loosely_with_a_number_stays_a_string() -> None:
    hours = _if("Office hours?", _conditions("={{ $json.body.Hour }}", 8, "number", "gte", strict=False))
    pairs = _pairs([{"Hour": "02"}], {"office": "false"})
    (probe,) = make_probes(_workflow(hours), _entry(**{"Office hours?": "office"}), pairs, count=1).probes
    assert [(c.old, c.new) for c in probe.changes] == [("02", "8")]
    strict = _if("Office hours?", _conditions("={{ $json.body.Hour }}", 8, "number", "gte"))
    (probe,) = make_probes(_workflow(strict), _entry(**{"Office hours?": "office"}), pairs, count=1).probes
    assert [(c.old, c.new) for c in probe.changes] == [("02", 8)]  # strict validation needs a number

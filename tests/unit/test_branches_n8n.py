"""n8n branch coverage: every branching node and version, named as the importer records it.

Each fixture is a workflow in n8n's export format, written here. The round-trip tests build an
execution that sent items down one output, import it with ``cutover import n8n``'s own parser,
and check that coverage counts exactly that branch: the names line up with recorded traffic.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.coverage import coverage
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.platforms.adapter import Branch, BranchesUnreadable
from harness.platforms.n8n.branches import every_branch
from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.history import parse_execution
from harness.recording import LegacyTrace, Platform

HOOK = {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {"path": "in"}}


def _entry(**kwargs: Any) -> AutomationEntry:
    return AutomationEntry("flow", Platform.N8N, Coercion.N8N, **kwargs)


def _node(name: str, kind: str, version: float, parameters: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "parameters": parameters, **extra}


def _noop(name: str) -> dict[str, Any]:
    return _node(name, "noOp", 1, {})


def _workflow(node: dict[str, Any], outputs: list[list[str]]) -> dict[str, Any]:
    """Hook → node, whose output i feeds the NoOp nodes named in outputs[i]."""
    targets = [t for out in outputs for t in out]
    return {"name": "flow", "nodes": [HOOK, node, *[_noop(t) for t in dict.fromkeys(targets)]],
            "connections": {"Hook": {"main": [[{"node": node["name"], "type": "main", "index": 0}]]},
                            node["name"]: {"main": [[{"node": t, "type": "main", "index": 0} for t in out]
                                                    for out in outputs]}}}


def _found(document: dict[str, Any], entry: AutomationEntry | None = None) -> list[Branch]:
    return every_branch(parse_workflow(document, "flow.json"), entry or _entry())


def _listed(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(b.kind, b.output, b.value) for b in _found(document)]


def _imported(document: dict[str, Any], runs: dict[str, list[list[dict[str, Any]]]],
              entry: AutomationEntry | None = None) -> LegacyTrace:
    """Import an execution of ``document`` whose nodes (after the hook) emitted ``runs`` (outputs of items)."""
    run_data: dict[str, Any] = {"Hook": [{"startTime": 1, "executionIndex": 0,
                                          "data": {"main": [[{"json": {"body": {}}}]]}}]}
    for index, (name, outputs) in enumerate(runs.items(), start=1):
        run_data[name] = [{"startTime": 1 + index, "executionIndex": index, "data": {"main": outputs}}]
    execution = {"id": "1", "finished": True, "status": "success", "startedAt": "2024-06-01T10:00:00.000Z",
                 "workflowData": document, "data": {"resultData": {"runData": run_data}}}
    trace = parse_execution(execution, entry or _entry(), "executions.json", "#1").trace
    assert trace is not None
    return trace


ITEM = [{"json": {"n": 1}}]


def _taken(document: dict[str, Any], trace: LegacyTrace, entry: AutomationEntry | None = None) -> set[str]:
    counts = coverage(_found(document, entry), [trace], Coercion.N8N)
    return {f"{c.branch.node}:{c.branch.output}" for c in counts if c.taken}


IF_V1 = _node("Big?", "if", 1, {"conditions": {"number": [{"value1": "={{ $json.n }}", "value2": 10}]}})
IF_V2 = _node("Big?", "if", 2.2, {"conditions": {
    "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict"}, "combinator": "and",
    "conditions": [{"leftValue": "={{ $json.n }}", "rightValue": 10, "operator": {"type": "number", "operation": "gt"}}]},
    "options": {}})


@pytest.mark.parametrize("node", [IF_V1, IF_V2, {**IF_V2, "typeVersion": 2}, {**IF_V2, "typeVersion": 2.1},
                                  {**IF_V2, "typeVersion": 2.3}])
def test_if_of_every_version_has_a_true_and_a_false_output(node: dict[str, Any]) -> None:
    document = _workflow(node, [["Yes"], ["No"]])
    assert _listed(document) == [("if", "true", "true"), ("if", "false", "false")]
    assert _taken(document, _imported(document, {"Big?": [[], ITEM], "No": [ITEM]})) == {"Big?:false"}
    assert _taken(document, _imported(document, {"Big?": [ITEM, []], "Yes": [ITEM]})) == {"Big?:true"}


def test_an_if_set_to_continue_using_the_error_output_has_a_third_branch() -> None:
    document = _workflow({**IF_V2, "onError": "continueErrorOutput"}, [["Yes"], ["No"], ["Oops"]])
    assert _listed(document) == [("if", "true", "true"), ("if", "false", "false"), ("error-output", "error", "error")]
    trace = _imported(document, {"Big?": [[], [], [{"json": {"error": "bad"}}]], "Oops": [ITEM]})
    assert _taken(document, trace) == {"Big?:error"}


def test_a_decision_map_renames_the_decision_and_its_values() -> None:
    entry = _entry(decisions={"Big?": DecisionMap("big", {"true": "yes"})})
    document = _workflow(IF_V2, [["Yes"], ["No"]])
    assert [(b.decision, b.value) for b in _found(document, entry)] == [("big", "yes"), ("big", "false")]
    assert _taken(document, _imported(document, {"Big?": [ITEM, []]}, entry), entry) == {"Big?:true"}


def test_switch_v1_rules_route_to_their_output_indexes_and_the_fallback() -> None:
    # n8n's exports omit a rule's output when it is the default, 0; fallbackOutput -1 is none
    node = _node("Route", "switch", 1, {"dataType": "string", "value1": "={{ $json.s }}", "fallbackOutput": 3,
                                        "rules": {"rules": [{"value2": "a"}, {"value2": "b", "output": 2}]}})
    document = _workflow(node, [["A"], [], ["B"], ["Rest"]])
    assert _listed(document) == [("switch", "0", "0"), ("switch", "2", "2"), ("switch", "3", "3")]
    assert _taken(document, _imported(document, {"Route": [[], [], [], ITEM], "Rest": [ITEM]})) == {"Route:3"}
    assert _taken(document, _imported(document, {"Route": [[], [], ITEM, []]})) == {"Route:2"}


def test_switch_v1_without_a_fallback_and_in_expression_mode() -> None:
    rules = _node("Route", "switch", 1, {"rules": {"rules": [{"value2": 1, "output": 1}]}})
    assert _listed(_workflow(rules, [[], ["B"]])) == [("switch", "1", "1")]
    expression = _node("Route", "switch", 1, {"mode": "expression", "output": "={{ $json.n }}"})
    assert [o for _, o, _ in _listed(_workflow(expression, [["A"]]))] == ["0", "1", "2", "3"]


def test_switch_v2_has_one_output_per_rule_labelled_by_its_output_key() -> None:
    node = _node("Route", "switch", 2, {"dataType": "number", "value1": "={{ $json.n }}", "fallbackOutput": 0,
                                        "rules": {"rules": [{"operation": "larger", "value2": 5, "outputKey": "big"},
                                                            {"value2": 1, "outputKey": "small"}]}})
    document = _workflow(node, [["Big"], ["Small"]])
    # n8n names a v2 output by its rule's output key, and the importer records that name
    assert _listed(document) == [("switch", "big", "big"), ("switch", "small", "small")]
    assert _taken(document, _imported(document, {"Route": [[], ITEM], "Small": [ITEM]})) == {"Route:small"}
    expression = _node("Route", "switch", 2, {"mode": "expression", "output": "={{ 1 }}", "outputsAmount": 2})
    assert [o for _, o, _ in _listed(_workflow(expression, [["A"]]))] == ["0", "1"]


def _rule(key: str | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"conditions": {"options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict"},
                                           "combinator": "and", "conditions": [
                                               {"leftValue": "={{ $json.s }}", "rightValue": key or "x",
                                                "operator": {"type": "string", "operation": "equals"}}]}}
    return {**rule, "renameOutput": True, "outputKey": key} if key else rule


@pytest.mark.parametrize("version", [3, 3.1, 3.2, 3.3, 3.4])
def test_switch_v3_renamed_outputs_and_an_extra_fallback(version: float) -> None:
    node = _node("Route", "switch", version, {"rules": {"values": [_rule("bug"), _rule()]},
                                              "options": {"fallbackOutput": "extra", "renameFallbackOutput": "other"}})
    document = _workflow(node, [["Bug"], ["Second"], ["Other"]])
    # the importer names a renamed rule by its key, the unnamed one by index, the extra fallback by its name
    assert _listed(document) == [("switch", "bug", "bug"), ("switch", "1", "1"), ("switch", "other", "other")]
    assert _taken(document, _imported(document, {"Route": [[], [], ITEM], "Other": [ITEM]})) == {"Route:other"}
    assert _taken(document, _imported(document, {"Route": [ITEM, [], []], "Bug": [ITEM]})) == {"Route:bug"}


def test_switch_v3_fallback_none_or_to_a_rule_adds_no_output_and_expression_mode_counts_outputs() -> None:
    for options in ({}, {"fallbackOutput": "none"}, {"fallbackOutput": 0}):
        node = _node("Route", "switch", 3.2, {"rules": {"values": [_rule("a"), _rule("b")]}, "options": options})
        assert [o for _, o, _ in _listed(_workflow(node, [["A"], ["B"]]))] == ["a", "b"]
    expression = _node("Route", "switch", 3, {"mode": "expression", "numberOutputs": 3, "output": "={{ 0 }}"})
    assert [o for _, o, _ in _listed(_workflow(expression, [["A"]]))] == ["0", "1", "2"]
    default = _node("Route", "switch", 3, {"mode": "expression", "output": "={{ 0 }}"})
    assert len(_listed(_workflow(default, [["A"]]))) == 4


@pytest.mark.parametrize(("node", "why"), [
    (_node("Route", "switch", 4, {}), "reads switch v1"),
    (_node("Big?", "if", 3, {}), "reads if v1, v2"),
    (_node("Keep", "filter", 3, {}), "reads filter v1"),
    (_node("Loop", "splitInBatches", 4, {}), "reads splitInBatches v1"),
    (_node("Route", "switch", 1, {"rules": {"rules": [{"value2": "a", "output": "={{ 1 }}"}]}}), "not an output index"),
    (_node("Route", "switch", 1, {"rules": {"rules": [{"value2": "a", "output": 7}]}}), "outside the node's outputs"),
    (_node("Route", "switch", 2, {"rules": {"rules": [{}]}, "fallbackOutput": 4}), "outside the node's outputs"),
    (_node("Route", "switch", 3, {"rules": {"values": "junk"}}), "not a list of rules"),
    (_node("Route", "switch", 3, {"rules": {"values": [_rule("a")]}, "options": {"fallbackOutput": "={{ 1 }}"}}),
     "not an output index"),
    (_node("Route", "switch", 3, {"mode": "expression", "numberOutputs": "={{ 3 }}"}), "not an output index"),
])
def test_a_node_whose_branches_cannot_be_read_is_named_with_why(node: dict[str, Any], why: str) -> None:
    with pytest.raises(BranchesUnreadable, match=why) as caught:
        _found(_workflow(node, [["A"]]))
    assert repr(node["name"]) in str(caught.value)


@pytest.mark.parametrize("version", [1, 2, 2.1, 2.2])
def test_a_filter_kept_when_its_next_node_ran_and_discarded_when_it_did_not(version: float) -> None:
    node = _node("Keep", "filter", version, {"conditions": {}})
    document = _workflow(node, [["After"]])
    found = _found(document)
    assert [(b.kind, b.output, b.read) for b in found] == [("filter", "kept", "ran"), ("filter", "discarded", "stopped")]
    assert _taken(document, _imported(document, {"Keep": [ITEM], "After": [ITEM]})) == {"Keep:kept"}
    dropped = _imported(document, {"Keep": [[], ITEM]})  # v2 writes the discarded items as a second output
    assert _taken(document, dropped) == {"Keep:discarded"}


def test_a_filter_with_nothing_after_it_or_mapped_out_of_the_path_is_not_readable() -> None:
    alone = _workflow(_node("Keep", "filter", 2, {}), [[]])
    assert {(b.output, b.read) for b in _found(alone)} == {("kept", "unreadable"), ("discarded", "unreadable")}
    counts = coverage(_found(alone), [_imported(alone, {"Keep": [ITEM]})])
    assert [c.taken for c in counts] == [None, None]  # never counted as taken, nor as untaken
    hidden = _found(_workflow(_node("Keep", "filter", 2, {}), [["After"]]), _entry(steps={"Keep": ""}))
    assert [(b.output, b.read) for b in hidden] == [("kept", "ran"), ("discarded", "unreadable")]


def test_a_node_fed_by_another_node_too_does_not_prove_the_output() -> None:
    document = _workflow(_node("Keep", "filter", 2, {}), [["After"]])
    document["connections"]["Hook"]["main"][0].append({"node": "After", "type": "main", "index": 0})
    assert {b.read for b in _found(document)} == {"unreadable"}


@pytest.mark.parametrize(("version", "names"), [(2, ["loop", "done"]), (3, ["done", "loop"])])
def test_loop_outputs_are_read_from_the_nodes_they_feed(version: float, names: list[str]) -> None:
    node = _node("Batches", "splitInBatches", version, {"batchSize": 1, "options": {}})
    first, second = (f"On {n}" for n in names)
    document = _workflow(node, [[first], [second]])
    document["connections"][first] = {"main": [[{"node": "Batches", "type": "main", "index": 0}]]}  # loops back
    assert [(b.kind, b.output) for b in _found(document)] == [("loop", names[0]), ("loop", names[1])]
    outputs: list[list[dict[str, Any]]] = [[], []]
    outputs[1] = ITEM
    trace = _imported(document, {"Batches": outputs, second: [ITEM]})
    assert _taken(document, trace) == {f"Batches:{names[1]}"}


def test_a_v1_loop_has_one_output_and_no_branch() -> None:
    assert _found(_workflow(_node("Batches", "splitInBatches", 1, {"batchSize": 1}), [["Each"]])) == []


def test_any_node_set_to_continue_using_the_error_output_branches_on_success_or_error() -> None:
    node = _node("Fetch", "httpRequest", 4.2, {"url": "https://api.test/x"}, onError="continueErrorOutput")
    document = _workflow(node, [["Use"], ["Report"]])
    assert _listed(document) == [("error-output", "success", "success"), ("error-output", "error", "error")]
    failed = _imported(document, {"Fetch": [[], [{"json": {"error": "502"}}]], "Report": [ITEM]})
    assert _taken(document, failed) == {"Fetch:error"}
    assert _taken(document, _imported(document, {"Fetch": [ITEM, []], "Use": [ITEM]})) == {"Fetch:success"}


def test_a_node_that_continues_on_its_regular_output_or_stops_has_no_error_branch() -> None:
    for on_error in ("continueRegularOutput", "stopWorkflow"):
        node = _node("Fetch", "httpRequest", 4.2, {"url": "https://api.test/x"}, onError=on_error)
        assert _found(_workflow(node, [["Use"]])) == []


def test_a_filter_with_an_error_output_has_both_kinds_of_branch() -> None:
    node = _node("Keep", "filter", 2, {}, onError="continueErrorOutput")
    kinds = [(b.kind, b.output) for b in _found(_workflow(node, [["After"], ["Oops"]]))]
    assert kinds == [("filter", "kept"), ("filter", "discarded"), ("error-output", "success"), ("error-output", "error")]


def test_a_file_of_several_workflows_cannot_be_read(tmp_path: Any) -> None:
    import json

    from harness.platforms.n8n.branches import definition_branches

    path = tmp_path / "two.json"
    document = _workflow(IF_V2, [["Yes"], ["No"]])
    path.write_text(json.dumps([document, document]))
    with pytest.raises(BranchesUnreadable, match="holds 2 workflows"):
        definition_branches(path, _entry())

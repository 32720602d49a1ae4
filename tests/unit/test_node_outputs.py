"""Node outputs on both sides, unfinished runs and where failed runs stopped (issue 23).

The n8n importer reads every node's output items per output index from runData (and keeps an
HTTP Request node's query parameters in the call URL); ``Flow`` records the new code's into the
job's trace; the judge compares them item by item and says what it compared.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.errors import ManifestError, RecordingError
from harness.manifest import AutomationEntry, Coercion, load_manifest, manifest_to_dict
from harness.platforms.n8n.history import parse_execution_runs
from harness.recording import LegacyTrace, Platform, TraceStatus, trace_from_json, trace_to_json
from harness.shadow._nodes import TRIGGER_REASON, compare_nodes, failed_node, unfinished
from harness.shadow.cases import Replayed
from harness.shadow.index import TriggerRef
from harness.shadow.judge import judge
from harness.shadow.normalize import Rules, relative_url
from queue_core.compat import n8n

ENTRY = AutomationEntry("flow", Platform.N8N, Coercion.N8N, steps={"Webhook": "", "If": "", "Get todos": "todos"},
                        providers={"dummyjson.com": "todos"})


def _task(start: int, outputs: list[list[dict[str, Any]]] | None, error: dict[str, Any] | None = None) -> dict[str, Any]:
    task: dict[str, Any] = {"startTime": start, "executionStatus": "error" if error else "success", "source": []}
    if outputs is not None:
        task["data"] = {"main": [[{"json": j, "pairedItem": {"item": 0}} for j in out] for out in outputs]}
    if error:
        task["error"] = error
    return task


def _execution(query: dict[str, Any], *, fail: bool = False, version: float = 4.2) -> dict[str, Any]:
    http = {"method": "GET", "url": "https://dummyjson.com/todos", **query}
    nodes = [{"name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {}},
             {"name": "If", "type": "n8n-nodes-base.if", "typeVersion": 2, "parameters": {}},
             {"name": "Get todos", "type": "n8n-nodes-base.httpRequest", "typeVersion": version, "parameters": http}]
    error = {"name": "NodeApiError", "message": "429", "node": {"name": "Get todos"}} if fail else None
    run_data = {
        "Webhook": [_task(1, [[{"headers": {}, "body": {"n": 1}}]])],
        "If": [_task(2, [[{"n": 1}], [{"n": 2}, {"n": 3}]])],
        "Get todos": [_task(3, None if fail else [[{"id": 1}]], error)],
    }
    return {"id": 7, "status": "error" if fail else "success", "startedAt": "2024-06-01T00:00:00.000Z",
            "workflowData": {"name": "w", "nodes": nodes},
            "data": {"resultData": {"runData": run_data, **({"error": error} if error else {})}}}


def _trace(execution: dict[str, Any]) -> LegacyTrace:
    [run] = parse_execution_runs(execution, ENTRY, "x.json", "7")
    assert run.trace is not None
    return run.trace


def test_the_importer_keeps_every_nodes_output_items_per_output_index_and_the_trigger_as_none() -> None:
    trace = _trace(_execution({}))
    assert trace.nodes == {"Webhook": None, "If": [[{"n": 1}], [{"n": 2}, {"n": 3}]], "Get todos": [[{"id": 1}]]}
    paired = replace(trace, trigger_id="t-1")
    assert trace_from_json(trace_to_json(paired), "l", 1) == paired


def test_a_failed_node_has_no_outputs_and_is_the_traces_failed_node() -> None:
    trace = _trace(_execution({}, fail=True))
    assert "Get todos" not in trace.nodes and trace.failed_node == "Get todos"


@pytest.mark.parametrize(("query", "version", "url"), [
    ({"sendQuery": True, "queryParameters": {"parameters": [{"name": "limit", "value": "2"},
                                                            {"name": "skip", "value": "10"}]}}, 4.2, "/todos?limit=2&skip=10"),
    ({"sendQuery": True, "specifyQuery": "json", "jsonQuery": '{"skip": 10, "limit": 2}'}, 4.2, "/todos?skip=10&limit=2"),
    ({"queryParametersUi": {"parameter": [{"name": "limit", "value": "2"}]}}, 1, "/todos?limit=2"),  # v1/v2's shape
    ({"queryParametersUi": {"parameter": [{"name": "limit", "value": "2"}]}}, 4.2, "/todos"),  # v4 does not read it
    ({"queryParameters": {"parameters": [{"name": "limit", "value": "2"}]}}, 4.2, "/todos"),  # sendQuery off: not sent
    ({"sendQuery": True, "queryParameters": {"parameters": [{"name": "limit", "value": "={{ $json.n }}"}]}}, 4.2, None),
])
def test_an_http_request_nodes_query_parameters_stay_in_the_recorded_url(query: dict[str, Any], version: float,
                                                                          url: str | None) -> None:
    [call] = _trace(_execution(query, version=version)).calls
    assert call["url"] == url


def test_urls_compare_with_their_query_parameters_in_any_order() -> None:
    assert relative_url("/todos?skip=10&limit=2", None) == relative_url("https://d.test/todos?limit=2&skip=10", "https://d.test")
    assert relative_url("/todos?limit=3&skip=10", None) != relative_url("/todos?limit=2&skip=10", None)


def test_node_outputs_are_compared_item_by_item_per_output() -> None:
    legacy = {"Webhook": None, "If": [[{"n": 1}], [{"n": 2}]], "Set": [[{"code": "3456"}]], "Wait": [[{}]]}
    new = {"Webhook": [[{"x": 1}]], "If": [[{"n": 1}, {"n": 2}], []], "Set": [[{"code": "WRONG"}]], "Wait": [[{"t": 1}]]}
    found = compare_nodes(legacy, new, {"Wait": "a timestamp of its own"}, Coercion.N8N)
    paths = {(d.path, d.kind) for d in found.disagreements}
    assert ('nodes.Set[0][0].code', "value_changed") in paths
    assert ("nodes.If[0][1]", "extra_in_new") in paths and ("nodes.If[1][0]", "missing_in_new") in paths
    assert found.compared == ["If", "Set"]
    assert found.excluded == {"Wait": "a timestamp of its own", "Webhook": TRIGGER_REASON}
    assert set(found.legacy) == {"If", "Set"}


def test_a_node_on_one_side_only_is_flagged() -> None:
    found = compare_nodes({"A": [[{}]]}, {"B": [[{}]]}, {}, Coercion.N8N)
    assert [(d.path, d.kind) for d in found.disagreements] == [("nodes.A", "missing_in_new"), ("nodes.B", "extra_in_new")]
    assert found.one_side == ["A", "B"] and found.compared == []


def test_recorded_outputs_are_capped_with_a_count_of_the_rest() -> None:
    items = [{"json": {"i": i}} for i in range(n8n.OUTPUT_ITEMS_CAP + 5)]
    [out] = n8n.recorded_outputs([items])
    assert len(out) == n8n.OUTPUT_ITEMS_CAP + 1 and out[-1] == "… 5 more items" and out[0] == {"i": 0}


def test_a_flow_records_each_nodes_outputs_in_the_trace_as_it_ends_even_when_a_later_node_fails() -> None:
    ctx = SimpleNamespace(trace=SimpleNamespace(nodes={}), decide=lambda *a: None)
    flow = n8n.Flow(ctx)
    items = flow.emit("Start", [{"json": {"a": 1}}])
    flow.split("If", "if", items, lambda item, i: False)
    with pytest.raises(n8n.TodoNode):
        raise n8n.TodoNode("Code", "Code node")
    assert ctx.trace.nodes == {"Start": [[{"a": 1}]], "If": [[], [{"a": 1}]]}


def test_the_error_of_a_todo_names_the_untranslated_node() -> None:
    assert unfinished("TodoNode: node 'Compute' is not translated yet (TODO: Code node); write it in Python") == "Compute"
    assert unfinished("TodoModule: module 'Parse' is not translated yet (TODO: x); write it in Python") == "Parse"
    assert unfinished("NodeFailed: Compute: boom") is None
    assert failed_node("NodeFailed: Lookup: bad [item 0]", {"Lookup"}) == "Lookup"
    assert failed_node("NodeFailed: 'x' expects a number", {"Lookup"}) is None


REF = TriggerRef("flow", "t-1", 0, 0, 1, 0, 1)


def _judge(legacy: LegacyTrace, trace: dict[str, Any], rules: Rules | None = None) -> Any:
    run = Replayed(0, "flow", "t-1", trace["status"], 1, trace.get("error"), trace)
    return judge(REF, legacy, [run], rules or Rules(Coercion.N8N), [], date(2024, 7, 1))


def test_a_todo_is_unfinished_whatever_the_legacy_run_did() -> None:
    legacy = LegacyTrace("t-1", TraceStatus.FAILED, Platform.N8N, error="Lookup: x", failed_node="Lookup")
    outcome = _judge(legacy, {"status": "failed", "error": "TodoNode: node 'Compute' is not translated yet (TODO: y)"})
    assert outcome.verdict == "unfinished" and outcome.failed and outcome.unfinished == "Compute"
    assert [(d.path, d.legacy, d.new) for d in outcome.disagreements] == [("failed_at", "Lookup", "Compute")]


def test_two_runs_that_failed_at_different_nodes_disagree_on_failed_at() -> None:
    legacy = LegacyTrace("t-1", TraceStatus.FAILED, Platform.N8N, nodes={"A": [[{}]], "B": [[{}]]}, failed_node="C")
    outcome = _judge(legacy, {"status": "failed", "error": "NodeFailed: B: bad", "nodes": {"A": [[{}]]}})
    assert outcome.verdict == "disagreed"
    assert ("failed_at", "C", "B") in [(d.path, d.legacy, d.new) for d in outcome.disagreements]


def test_the_evidence_says_outputs_only_when_an_output_was_compared() -> None:
    legacy = LegacyTrace("t-1", TraceStatus.SUCCEEDED, Platform.N8N, nodes={"Set": [[{"a": 1}]]})
    hand_written = _judge(legacy, {"status": "succeeded"})
    assert hand_written.verdict == "agreed" and "outputs" not in hand_written.evidence and hand_written.nodes is None
    flow = _judge(legacy, {"status": "succeeded", "nodes": {"Set": [[{"a": 1}]]}})
    assert "outputs" in flow.evidence and flow.nodes == {"compared": ["Set"], "excluded": [], "one_side": [],
                                                         "differing": []}
    excluded = _judge(legacy, {"status": "succeeded", "nodes": {"Set": [[{"a": 2}]]}},
                      Rules(Coercion.N8N, exclude_nodes={"Set": "why"}))
    assert excluded.verdict == "agreed" and "outputs" not in excluded.evidence


def test_the_manifest_excludes_a_nodes_outputs_only_with_a_reason(tmp_path: Path) -> None:
    head = 'format = 1\nname = "s"\n\n[automations.a]\nplatform = "n8n"\n\n[automations.a.outputs]\n'
    path = tmp_path / "manifest.toml"
    path.write_text(head + 'exclude = {"Wait" = "sleeps: its output is a timestamp"}\n')
    manifest = load_manifest(path)
    assert manifest.automations["a"].exclude_outputs == {"Wait": "sleeps: its output is a timestamp"}
    assert manifest_to_dict(manifest)["automations"]["a"]["outputs"] == {"exclude": {"Wait": "sleeps: its output is a timestamp"}}
    path.write_text(head + 'exclude = {"Wait" = " "}\n')
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert caught.value.field == "automations.a.outputs.exclude.Wait"


def test_a_malformed_nodes_field_is_refused_naming_it() -> None:
    record = {"trigger_id": "t", "status": "succeeded", "platform": "n8n", "nodes": {"If": [{"n": 1}]}}
    with pytest.raises(RecordingError) as caught:
        trace_from_json(record, "legacy.jsonl", 3)
    assert caught.value.field == "nodes.If[0]"


def test_an_unfinished_trigger_fails_the_gate_naming_the_node_and_its_count() -> None:
    from harness.shadow.gate import AutomationStats, GateRules
    from harness.shadow.gate import judge as gate_judge

    stats = AutomationStats("flow", 10, 10, 0, {}, unfinished={"Compute": 3})
    verdict = gate_judge(stats, GateRules(min_triggers=1, agreement=0.5), "v1")
    assert not verdict.ready
    assert "3 trigger(s) reached code not translated yet (TODO, never agreement): Compute (3×)" in verdict.failed
    assert gate_judge(AutomationStats("flow", 10, 10, 0, {}), GateRules(min_triggers=1), "v1").ready


def test_the_verdict_line_counts_the_nodes_compared_and_names_the_excluded_with_their_reasons() -> None:
    from harness.manifest import Manifest
    from harness.shadow._evidence import node_coverage, outputs_phrase

    entry = AutomationEntry("flow", Platform.N8N, Coercion.N8N, exclude_outputs={"Wait": "resumes at its own time"})
    rows = [{"automation": "flow", "verdict": "agreed",
             "nodes": {"compared": ["If", "Set"], "excluded": ["Wait", "Webhook"], "one_side": [], "differing": []}},
            {"automation": "flow", "verdict": "disagreed",
             "nodes": {"compared": ["If"], "excluded": ["Webhook"], "one_side": ["Extra"], "differing": ["Extra"]}}]
    coverage = node_coverage(rows, Manifest(name="s", automations={"flow": entry}))["flow"]
    assert outputs_phrase(coverage) == (
        "outputs of 2 of 5 nodes compared; 2 excluded: Wait (resumes at its own time), Webhook (the trigger: the "
        "replay's own input); 1 ran on one side only: Extra")

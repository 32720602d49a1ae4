"""n8n executions → canonical triggers and traces, across the API's and older shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.n8n.history import parse, unflatted
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.recording import Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "n8n"
ENTRY = AutomationEntry(
    "github-triage", Platform.N8N, Coercion.N8N,
    steps={"Is opened?": "opened", "Route": "route", "Add labels": "add-labels", "Post comment": "comment"},
    decisions={"Is opened?": DecisionMap("opened")},
    providers={"api.github.com": "github"},
)


def _runs(name: str, entry: AutomationEntry = ENTRY) -> list[ImportedRun]:
    items = list(parse(EXPORTS / name, entry))
    assert all(isinstance(item, ImportedRun) for item in items)
    return [item for item in items if isinstance(item, ImportedRun)]


def test_the_trigger_is_the_webhook_nodes_body_and_headers_keyed_by_delivery_id() -> None:
    trigger = _runs("executions_list.json")[0].trigger
    assert trigger is not None
    assert trigger.id == "d1f6b2a0-1111-11ef-8000-000000000001"
    assert trigger.body["issue"]["number"] == 42
    assert trigger.headers["x-github-event"] == "issues"
    assert trigger.received_at.isoformat() == "2024-06-03T09:12:00+00:00"


def test_the_path_follows_start_time_then_execution_index_without_the_trigger() -> None:
    trace = _runs("executions_list.json")[0].trace
    assert trace is not None
    assert trace.path == ["opened", "route", "add-labels", "comment"]


def test_if_and_switch_decisions_come_from_the_non_empty_output() -> None:
    runs = _runs("executions_list.json")
    assert runs[0].trace is not None and runs[0].trace.decisions == {"opened": "true", "route": "bug"}
    assert runs[3].trace is not None and runs[3].trace.decisions == {"opened": "false"}


def test_http_request_nodes_with_literal_parameters_become_calls() -> None:
    trace = _runs("executions_list.json")[0].trace
    assert trace is not None
    assert trace.calls[0] == {"step": "add-labels", "provider": "github", "method": "POST",
                              "url": "/repos/octo-org/hello-world/issues/42/labels", "body": {"labels": ["bug"]}}
    assert trace.calls[1] == {"step": "comment", "provider": None, "method": "POST", "url": None, "body": None}


def test_outputs_hold_each_nodes_item_json() -> None:
    trace = _runs("executions_list.json")[0].trace
    assert trace is not None
    assert trace.outputs["comment"] == {"id": 9001, "body": "Thanks"}


def test_an_error_execution_names_the_failing_node_and_message() -> None:
    trace = _runs("executions_list.json")[1].trace
    assert trace is not None
    assert trace.status is TraceStatus.FAILED
    assert trace.failed_step == "add-labels"
    assert trace.error == "Add labels: Authorization failed - please check your credentials"


def test_a_waiting_execution_keeps_its_trigger_but_gives_no_trace() -> None:
    run = _runs("executions_list.json")[2]
    assert run.trigger is not None and run.trace is None


def test_a_single_execution_and_a_flatted_string_give_the_same_trace_as_the_list() -> None:
    listed = _runs("executions_list.json")[0].trace
    single = _runs("execution_single.json")[0].trace
    flatted = _runs("execution_flatted.json")[0].trace
    assert listed is not None and single is not None and flatted is not None
    assert (single.path, single.decisions, single.calls) == (listed.path, listed.decisions, listed.calls)
    assert (flatted.path, flatted.decisions, flatted.outputs) == (listed.path, listed.decisions, listed.outputs)


def test_the_older_shape_without_workflow_data_uses_output_indexes() -> None:
    [run] = _runs("execution_old_shape.json", AutomationEntry("x", Platform.N8N, Coercion.N8N))
    assert run.trigger is not None and run.trigger.body == {"order": 7, "paid": "true"}
    assert run.trace is not None
    assert (run.trace.path, run.trace.decisions, run.trace.status) == (
        ["Check paid", "Notify"], {"Check paid": "1"}, TraceStatus.SUCCEEDED)


def test_a_step_mapped_to_an_empty_name_is_dropped_from_the_path() -> None:
    entry = AutomationEntry("x", Platform.N8N, Coercion.N8N, steps={"Is opened?": ""})
    trace = _runs("executions_list.json", entry)[3].trace
    assert trace is not None and trace.path == []


def test_a_malformed_execution_is_reported_by_id_and_field_and_the_rest_still_parse() -> None:
    items = list(parse(EXPORTS / "executions_one_malformed.json", ENTRY))
    errors = [i for i in items if isinstance(i, ExportFormatError)]
    assert len(items) == 3 and len(errors) == 1
    assert (errors[0].record, errors[0].field) == ("1005", "data.resultData.runData")


def test_a_file_that_is_not_json_names_the_line() -> None:
    with pytest.raises(ExportFormatError, match="not valid JSON at line 1"):
        list(parse(Path(__file__), ENTRY))


def test_unflatted_rebuilds_shared_and_circular_references() -> None:
    value = unflatted([{"a": "1", "self": "0", "n": 3}, "text"])
    assert value["a"] == "text" and value["n"] == 3 and value["self"] is value


def test_an_http_request_call_is_read_with_the_nodes_version_and_defaults() -> None:
    from harness.platforms.n8n.definition import Node
    from harness.platforms.n8n.runs import NodeRun, http_call

    entry = AutomationEntry("x", Platform.N8N, Coercion.N8N, providers={"api.example.com": "example"})
    v1 = Node("Old", "n8n-nodes-base.httpRequest", 1.0, {"url": "https://api.example.com/v1/orders",
                                                            "requestMethod": "POST"})
    v4 = Node("New", "n8n-nodes-base.httpRequest", 4.2, {"url": "https://api.example.com/v1/orders"})
    old, new = http_call(NodeRun("Old", {}, v1), "old", entry), http_call(NodeRun("New", {}, v4), "new", entry)
    assert old is not None and (old["method"], old["provider"], old["url"]) == ("POST", "example", "/v1/orders")
    assert new is not None and new["method"] == "GET"  # v4.2's default, left out of the export

"""n8n executions in the public API's shapes: clock, error outputs, workflow as --definition."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.n8n.history import parse
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Evidence, Platform

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "n8n"
ENTRY = AutomationEntry("orders", Platform.N8N, Coercion.N8N)


def _load(name: str) -> Any:
    return json.loads((EXPORTS / name).read_text())


def _runs(name: str, definition: Any = None) -> list[ImportedRun]:
    return [i for i in parse(EXPORTS / name, ENTRY, definition) if isinstance(i, ImportedRun)]


def test_a_trigger_node_start_time_that_is_no_clock_reading_falls_back_to_started_at() -> None:
    trigger = _runs("executions_api_list_no_workflow.json")[0].trigger
    assert trigger is not None and trigger.received_at == datetime(2024, 7, 2, 8, 0, tzinfo=UTC)


def test_a_node_routing_to_its_error_output_is_a_decision() -> None:
    trace = _runs("executions_api_list_no_workflow.json", _load("workflow_download.json"))[0].trace
    assert trace is not None and trace.decisions["Reserve stock"] == "error"
    assert trace.path == ["Reserve stock", "Mark backorder", "Ship"]


def test_an_if_with_an_error_output_keeps_its_own_output_names() -> None:
    trace = _runs("executions_api_list_no_workflow.json", _load("workflow_download.json"))[1].trace
    assert trace is not None and trace.decisions == {"Reserve stock": "success", "Is express?": "true"}


def test_without_workflow_data_decisions_are_not_evidence_and_a_warning_says_how_to_fix_it() -> None:
    run = _runs("executions_api_list_no_workflow.json")[0]
    assert run.trace is not None and Evidence.DECISIONS not in run.trace.evidence
    assert "--definition" in run.warnings[0]


def test_error_items_on_an_untyped_node_are_no_decision() -> None:
    trace = _runs("executions_api_list_no_workflow.json")[0].trace
    assert trace is not None and "Reserve stock" not in trace.decisions


def test_the_workflow_given_as_definition_equals_workflow_data_in_the_execution() -> None:
    given = _runs("executions_api_list_no_workflow.json", _load("workflow_download.json"))[1].trace
    inline = _runs("executions_api_list_with_workflow.json")[0].trace
    assert given is not None and inline is not None
    assert (given.path, given.decisions, given.calls, given.evidence) == (inline.path, inline.decisions, inline.calls, inline.evidence)


def test_an_export_all_list_of_workflows_is_matched_by_workflow_id() -> None:
    trace = _runs("executions_api_list_no_workflow.json", _load("workflows_export_all.json"))[1].trace
    assert trace is not None and trace.decisions["Is express?"] == "true"


def test_the_api_list_form_imports_as_the_single_form_does() -> None:
    [single] = _runs("execution_api_single_with_workflow.json")
    [listed] = _runs("executions_api_list_with_workflow.json")
    assert single.record == listed.record == "7002"
    assert single.trace == listed.trace and single.trigger == listed.trigger


def test_an_execution_listed_without_include_data_says_how_to_fetch_its_data(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"data": [{"id": 1, "status": "success", "startedAt": "2024-07-02T08:00:00.000Z"}]}))
    [error] = list(parse(path, ENTRY))
    assert isinstance(error, ExportFormatError) and "includeData=true" in error.reason


@pytest.mark.parametrize("start", [1e300, -1e20, True, [1], "1"])
def test_an_unusable_node_start_time_never_raises(start: Any, tmp_path: Path) -> None:
    document = _load("executions_api_list_no_workflow.json")
    document["data"][0]["data"]["resultData"]["runData"]["Order Webhook"][0]["startTime"] = start
    path = tmp_path / "x.json"
    path.write_text(json.dumps(document))
    runs = _runs_at(path)
    assert runs[0].trigger is not None and runs[0].trigger.received_at.year == 2024


def _runs_at(path: Path) -> list[ImportedRun]:
    return [i for i in parse(path, ENTRY) if isinstance(i, ImportedRun)]

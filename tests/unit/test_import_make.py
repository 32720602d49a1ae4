"""Make scenario logs (+ blueprint) → canonical triggers and traces."""

from __future__ import annotations

import json
from pathlib import Path

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.make.history import parse
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.recording import Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "make"
ENTRY = AutomationEntry(
    "lead-router", Platform.MAKE, Coercion.MAKE,
    steps={"Clearbit lookup": "enrich", "Create enterprise contact": "create-contact",
           "Create SMB contact": "create-contact"},
    decisions={"Size router": DecisionMap("route")},
    providers={"company.clearbit.com": "clearbit", "hubspotcrm": "hubspot"},
)


def _runs(name: str, blueprint: Path | None = None) -> list[ImportedRun]:
    definition = json.loads(blueprint.read_text()) if blueprint else None
    return [i for i in parse(EXPORTS / name, ENTRY, definition) if isinstance(i, ImportedRun)]


def test_the_trigger_is_the_first_modules_first_bundle() -> None:
    trigger = _runs("scenario_logs.json")[0].trigger
    assert trigger is not None and trigger.body["email"] == "ana@globex.example"


def test_a_router_decision_is_the_filter_name_of_the_route_that_ran() -> None:
    traces = [r.trace for r in _runs("scenario_logs.json")]
    assert [t.decisions if t else None for t in traces] == [{"route": "enterprise"}, {"route": "smb"}, {}]


def test_the_path_and_outputs_use_mapped_step_names_without_the_router() -> None:
    trace = _runs("scenario_logs.json")[0].trace
    assert trace is not None
    assert trace.path == ["enrich", "create-contact"]
    assert trace.outputs["enrich"] == {"name": "Globex", "metrics": {"employees": 5200}}


def test_http_and_app_modules_become_calls() -> None:
    trace = _runs("scenario_logs.json")[0].trace
    assert trace is not None
    assert [(c["step"], c["provider"], c["method"], c["url"]) for c in trace.calls] == [
        ("enrich", "clearbit", "GET", "/v2/companies/find"), ("create-contact", "hubspot", None, None)]


def test_status_codes_and_a_run_stopped_by_every_route_filter_map_to_canonical_statuses() -> None:
    statuses = [r.trace.status for r in _runs("scenario_logs.json") if r.trace]
    assert statuses == [TraceStatus.SUCCEEDED, TraceStatus.FAILED, TraceStatus.FILTERED]


def test_a_failed_module_is_named_with_its_error() -> None:
    trace = _runs("scenario_logs.json")[1].trace
    assert trace is not None
    assert (trace.failed_step, trace.error) == ("create-contact", "Create SMB contact: [409] Contact already exists")


def test_logs_without_details_give_status_only_traces_to_pair_by_time() -> None:
    runs = _runs("scenario_logs_no_details.json", EXPORTS / "blueprint.json")
    assert all(r.trigger is None for r in runs)
    assert [(r.trace.status, r.trace.path, str(r.trace.finished_at)) for r in runs if r.trace][0] == (
        TraceStatus.SUCCEEDED, [], "2024-06-07 10:00:01.840000+00:00")


def test_malformed_logs_are_reported_by_execution_id_and_field() -> None:
    errors = [i for i in parse(EXPORTS / "scenario_logs_malformed.json", ENTRY) if isinstance(i, ExportFormatError)]
    assert [(e.record, e.field) for e in errors] == [("g7h8i9", "timestamp")]


def test_an_unknown_status_is_a_warning_and_no_trace_not_a_stop() -> None:
    [unknown] = [r for r in _runs("scenario_logs_malformed.json") if r.record == "d4e5f6"]
    assert unknown.trace is None and "unknown status 9" in unknown.warnings[0]


def test_a_make_request_module_is_an_http_call_and_a_mapped_url_is_unknown_not_raw_iml(tmp_path: Path) -> None:
    document = json.loads((EXPORTS / "scenario_logs.json").read_text())
    lookup = document["blueprint"]["flow"][1]
    lookup["module"], lookup["version"] = "http:MakeRequest", 4
    lookup["mapper"]["url"] = "https://company.clearbit.com/v2/companies/find?domain={{1.domain}}"
    (tmp_path / "logs.json").write_text(json.dumps(document))
    runs = [i for i in parse(tmp_path / "logs.json", ENTRY) if isinstance(i, ImportedRun)]
    trace = runs[0].trace
    assert trace is not None
    assert (trace.calls[0]["step"], trace.calls[0]["provider"], trace.calls[0]["method"], trace.calls[0]["url"]) == (
        "enrich", "clearbit", "GET", None)
    lookup["mapper"]["url"] = "https://company.clearbit.com/v2/companies/find"
    (tmp_path / "logs.json").write_text(json.dumps(document))
    trace = [i for i in parse(tmp_path / "logs.json", ENTRY) if isinstance(i, ImportedRun)][0].trace
    assert trace is not None and trace.calls[0]["url"] == "/v2/companies/find"

"""Zapier zap runs → canonical triggers and traces."""

from __future__ import annotations

from pathlib import Path

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.zapier.history import parse
from harness.shadow.normalize import unflatten
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.recording import Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "zapier"
ENTRY = AutomationEntry(
    "payment-dunning", Platform.ZAPIER, Coercion.ZAPIER,
    steps={"Find Customer": "fetch-customer", "Only paid plans": "paid-plan", "Format amount": "",
           "Send Email in Postmark": "send-email"},
    decisions={"Only paid plans": DecisionMap("paid", {"passed": "yes", "stopped": "no"})},
    providers={"Postmark": "postmark", "Stripe": "stripe"},
)


def _runs(name: str = "zap_runs.json") -> list[ImportedRun]:
    return [item for item in parse(EXPORTS / name, ENTRY) if isinstance(item, ImportedRun)]


def test_the_trigger_is_the_runs_data_in_unflattened_and_keyed_by_event_id() -> None:
    trigger = _runs()[0].trigger
    assert trigger is not None
    assert trigger.id == "evt_1PX0aa2eZvKYlo2C"
    assert trigger.body["data"]["object"]["amount_due"] == "4999"


def test_statuses_map_to_succeeded_filtered_failed_or_no_trace() -> None:
    statuses = [run.trace.status if run.trace else None for run in _runs()]
    assert statuses == [TraceStatus.SUCCEEDED, TraceStatus.FILTERED, TraceStatus.FAILED, None, TraceStatus.FILTERED]


def test_the_path_skips_the_trigger_skipped_steps_and_dropped_names() -> None:
    runs = _runs()
    assert runs[0].trace is not None and runs[0].trace.path == ["fetch-customer", "paid-plan", "send-email"]
    assert runs[1].trace is not None and runs[1].trace.path == ["fetch-customer", "paid-plan"]


def test_a_filter_step_becomes_a_translated_decision() -> None:
    runs = _runs()
    assert runs[0].trace is not None and runs[0].trace.decisions == {"paid": "yes"}
    assert runs[1].trace is not None and runs[1].trace.decisions == {"paid": "no"}


def test_action_steps_become_calls_with_unflattened_bodies() -> None:
    trace = _runs()[0].trace
    assert trace is not None
    assert trace.calls[-1] == {"step": "send-email", "provider": "postmark", "method": None, "url": None,
                               "body": {"To": "jenny@example.com", "TemplateAlias": "dunning-warning",
                                        "TemplateModel": {"amount": "49.99"}}}
    assert trace.outputs["fetch-customer"] == {"id": "cus_Q1", "metadata": {"plan": "pro"}}


def test_an_errored_run_names_the_step_and_its_error() -> None:
    trace = _runs()[2].trace
    assert trace is not None
    assert (trace.failed_step, trace.error) == ("send-email", "Send Email in Postmark: Postmark: Inactive recipient")


def test_malformed_runs_are_reported_by_run_id_and_field() -> None:
    errors = [i for i in parse(EXPORTS / "zap_runs_malformed.json", ENTRY) if isinstance(i, ExportFormatError)]
    assert [(e.record, e.field) for e in errors] == [
        ("7c4e5a1e-0001-4b8e-9d8a-000000000002", "status"), ("7c4e5a1e-0001-4b8e-9d8a-000000000003", "start_time")]


def test_unflatten_nests_double_underscore_keys_and_keeps_conflicts_flat() -> None:
    assert unflatten({"a__b__c": 1, "a__d": "x", "e": 2}) == {"a": {"b": {"c": 1}, "d": "x"}, "e": 2}
    assert unflatten({"a": 1, "a__b": 2}) == {"a": 1, "a__b": 2}

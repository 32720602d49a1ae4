"""Power Automate / Logic Apps run history (+ action records, + flow definition) → traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.power_automate.history import parse
from harness.platforms.power_automate.definition import read_flow
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Evidence, Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "power-automate"
ENTRY = AutomationEntry("triage", Platform.POWER_AUTOMATE, Coercion.STRICT)


def _flow() -> Any:
    return json.loads((EXPORTS / "flow_definition.json").read_text())


def _runs(name: str = "runs_list.json", definition: Any = None) -> list[ImportedRun]:
    return [i for i in parse(EXPORTS / name, ENTRY, definition) if isinstance(i, ImportedRun)]


def test_statuses_map_leniently_and_unfinished_or_unknown_runs_give_no_trace() -> None:
    runs = _runs()
    assert [r.trace.status if r.trace else None for r in runs] == [
        TraceStatus.SUCCEEDED, TraceStatus.FAILED, None, TraceStatus.FAILED, None]
    assert "unknown run status 'Zombie'" in runs[4].warnings[0]


def test_the_trigger_body_comes_from_inline_outputs_and_a_link_is_never_fetched() -> None:
    first, second = _runs()[:2]
    assert first.trigger is not None and first.trigger.body == {"ticket": "T-100", "priority": "high", "region": "EU"}
    assert first.trigger.headers["x-ms-client-tracking-id"] == first.trigger.id
    assert second.trigger is None and "behind outputsLink" in second.warnings[0]


def test_the_client_tracking_id_is_the_delivery_id_for_pairing() -> None:
    assert _runs()[1].delivery_id == "track-08584700000000000002000000002CU02"


def test_action_records_give_the_path_of_actions_that_ran_in_definition_order() -> None:
    run = _runs(definition=_flow())[0]
    assert run.trace is not None
    assert run.trace.path == ["Parse_ticket", "Is_high_priority", "Page_on_call", "Route_by_region", "Log_EU"]


def test_with_the_definition_if_and_switch_become_decisions() -> None:
    first, second = (r.trace for r in _runs(definition=_flow())[:2])
    assert first is not None and first.decisions == {"Is_high_priority": "true", "Route_by_region": "EU"}
    assert second is not None and second.decisions == {"Is_high_priority": "false"}
    assert Evidence.DECISIONS in first.evidence


def test_without_the_definition_there_is_a_path_but_no_decision_evidence() -> None:
    trace = _runs()[0].trace
    assert trace is not None and trace.decisions == {}
    assert trace.evidence[:2] == (Evidence.STATUS, Evidence.PATH) and Evidence.DECISIONS not in trace.evidence


def test_outputs_are_evidence_only_when_every_action_that_ran_has_them_inline() -> None:
    first, second = (r.trace for r in _runs(definition=_flow())[:2])
    assert first is not None and Evidence.OUTPUTS in first.evidence and first.outputs["Page_on_call"] == {"paged": True}
    assert second is not None and Evidence.OUTPUTS not in second.evidence


def test_a_failed_action_names_the_failed_step_and_its_error() -> None:
    trace = _runs(definition=_flow())[1].trace
    assert trace is not None and trace.failed_step == "Queue_ticket"
    assert trace.error == "Queue_ticket: BadRequest: queue is full"


def test_a_run_without_action_records_proves_its_status_only() -> None:
    trace = _runs()[3].trace
    assert trace is not None and trace.evidence == (Evidence.STATUS,)


@pytest.mark.parametrize("name", ["runs_api_example.json", "run_pnp_cli_list.json", "run_pnp_cli_with_trigger.json"])
def test_the_api_example_wrapper_and_the_pnp_cli_forms_are_read(name: str) -> None:
    first = _runs(name)[0]
    assert first.record == "08584700000000000001000000001CU01"
    assert first.trigger is not None and first.trigger.body["ticket"] == "T-100"


def test_pnp_cli_top_level_fields_are_read_when_properties_lack_them() -> None:
    runs = _runs("run_pnp_cli_list.json")
    assert runs[1].trace is None and runs[0].trace is not None and runs[0].trace.status is TraceStatus.SUCCEEDED


@pytest.mark.parametrize(("name", "says"), [("run_actions_list.json", "action records"),
                                             ("trigger_histories.json", "trigger histories")])
def test_action_records_or_trigger_histories_given_as_runs_say_what_they_are(name: str, says: str) -> None:
    with pytest.raises(ExportFormatError, match=says):
        list(parse(EXPORTS / name, ENTRY))


def test_the_definition_nests_if_branches_and_switch_cases_in_run_after_order() -> None:
    flow = read_flow(_flow())
    assert flow is not None
    assert [(a.name, a.parent, a.branch) for a in flow.actions] == [
        ("Parse_ticket", None, None), ("Is_high_priority", None, None),
        ("Page_on_call", "Is_high_priority", "true"), ("Queue_ticket", "Is_high_priority", "false"),
        ("Route_by_region", None, None), ("Log_EU", "Route_by_region", "EU"),
        ("Log_US", "Route_by_region", "US"), ("Log_other", "Route_by_region", "default")]

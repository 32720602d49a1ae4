"""Zapier zap runs in the API's own shape (status-only steps), with and without the Zapfile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.zapier.history import parse
from harness.platforms.zapier.definition import read_zaps
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Evidence, Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "zapier"
ENTRY = AutomationEntry("triage", Platform.ZAPIER, Coercion.ZAPIER)


def _zapfile(name: str = "zapfile_gdpr_v1.json") -> Any:
    return json.loads((EXPORTS / name).read_text())


def _runs(name: str = "zap_runs_api.json", definition: Any = None) -> dict[str, ImportedRun]:
    items = [i for i in parse(EXPORTS / name, ENTRY, definition) if isinstance(i, ImportedRun)]
    return {run.record[-2:]: run for run in items}


def test_an_api_run_without_a_definition_proves_its_status_only_and_makes_no_phantom_call() -> None:
    run = _runs()["01"]
    assert run.trace is not None and run.trace.status is TraceStatus.SUCCEEDED
    assert run.trace.evidence == (Evidence.STATUS,)
    assert (run.trace.path, run.trace.calls, run.trace.decisions) == ([], [], {})


def test_an_empty_data_in_gives_no_trigger_so_the_run_pairs_with_a_recorded_one() -> None:
    assert _runs()["01"].trigger is None


def test_with_the_zapfile_step_statuses_become_a_path_and_a_filter_decision() -> None:
    runs = _runs(definition=_zapfile())
    passed, stopped = runs["01"].trace, runs["02"].trace
    assert passed is not None and stopped is not None
    assert passed.path == ["FilterAPI:filter", "Alert on-call"] and passed.decisions == {"FilterAPI:filter": "passed"}
    assert stopped.path == ["FilterAPI:filter"] and stopped.decisions == {"FilterAPI:filter": "stopped"}
    assert passed.evidence == (Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS)


def test_paths_decide_by_which_path_filter_passed() -> None:
    trace = _runs(definition=_zapfile())["03"].trace
    assert trace is not None
    assert trace.decisions == {"BranchingAPI:branch": "Enterprise"}
    assert trace.path == ["BranchingAPI:branch", "Enterprise", "GoogleSheetsV2CLIAPI:add_row", "Path B"]


def test_the_version_2_export_orders_paths_like_the_gdpr_export() -> None:
    [v2] = read_zaps(_zapfile("zapfile_v2.json"))
    [_, gdpr] = read_zaps(_zapfile())
    assert [(s.label, s.kind) for s in v2.steps] == [(s.label, s.kind) for s in gdpr.steps]
    assert [s.label for s in v2.steps if s.kind == "path"] == ["Enterprise", "Path B"]


def test_error_handled_is_a_success_whose_error_names_the_handler_and_the_failed_step() -> None:
    trace = _runs(definition=_zapfile())["04"].trace
    assert trace is not None and trace.status is TraceStatus.SUCCEEDED
    assert trace.failed_step == "Alert on-call" and "error handler" in (trace.error or "")


def test_throttled_runs_are_unfinished_and_unknown_statuses_warn_instead_of_stopping() -> None:
    runs = _runs()
    assert runs["05"].trace is None and runs["05"].warnings == ()
    assert runs["06"].trace is None and "unknown zap run status 'sleepwalking'" in runs["06"].warnings[0]


def test_a_run_whose_step_count_does_not_match_the_zap_keeps_its_status_only_with_a_warning() -> None:
    run = _runs(definition=_zapfile())["07"]
    assert run.trace is not None and run.trace.evidence == (Evidence.STATUS,)
    assert "5 step statuses but the Zap defines 3 steps" in run.warnings[0]


@pytest.mark.parametrize("name", ["zap_runs_doc_array.json", "zap_runs_results_next.json", "zap_runs.jsonl"])
def test_every_page_form_reads_the_same_runs(name: str) -> None:
    assert sorted(_runs(name, _zapfile())) == ["01", "02"] + (["03"] if name != "zap_runs_doc_array.json" else [])
    assert _runs(name, _zapfile())["01"].trace == _runs(definition=_zapfile())["01"].trace


def test_the_zap_history_csv_gives_status_only_traces_keyed_by_run_id() -> None:
    runs = [i for i in parse(EXPORTS / "zap_history.csv", ENTRY) if isinstance(i, ImportedRun)]
    assert [r.trace.status if r.trace else None for r in runs] == [
        TraceStatus.SUCCEEDED, TraceStatus.FILTERED, TraceStatus.FAILED]
    assert runs[0].trace is not None and runs[0].trace.raw_run_id == "0190a1b2-0000-7000-8000-000000000011" and runs[0].trace.workflow == "5001"


def test_the_task_history_url_list_is_named_for_what_it_is() -> None:
    with pytest.raises(ExportFormatError, match="task history download URLs"):
        list(parse(EXPORTS / "task_history_download_urls.csv", ENTRY))


def test_a_run_of_a_zap_missing_from_the_zapfile_warns_and_keeps_its_status_only() -> None:
    run = _runs(definition=_zapfile("zapfile_v2.json") | {"zaps": _zapfile("zapfile_v2.json")["zaps"] * 2})["01"]
    assert run.trace is not None and run.trace.evidence == (Evidence.STATUS,)
    assert "zap 5001 is not in the definition file" in run.warnings[0]


def test_a_history_page_with_other_field_names_is_read_through_aliases(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text(json.dumps([{"Zap Run ID": "r-9", "Zap ID": 5001, "Status": "Filtered", "Start Time": "2024-07-01T10:00:00Z"}]))
    [run] = [i for i in parse(path, ENTRY) if isinstance(i, ImportedRun)]
    assert run.record == "r-9" and run.trace is not None and run.trace.status is TraceStatus.FILTERED
    assert run.trace.workflow == "5001"

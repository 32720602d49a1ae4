"""Make scenario logs in the API's summary shape, with execution details and the blueprint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.make.history import parse
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Evidence, Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "make"
ENTRY = AutomationEntry("lead-router", Platform.MAKE, Coercion.MAKE, steps={"Clearbit lookup": "enrich"})


def _blueprint(name: str = "blueprint.json") -> Any:
    return json.loads((EXPORTS / name).read_text())


def _runs(name: str = "scenario_logs_api.json", definition: Any = None) -> list[ImportedRun]:
    return [i for i in parse(EXPORTS / name, ENTRY, definition) if isinstance(i, ImportedRun)]


def test_summary_logs_prove_status_only_and_carry_no_trigger() -> None:
    runs = _runs()
    assert [r.trace.status if r.trace else None for r in runs] == [
        TraceStatus.SUCCEEDED, TraceStatus.SUCCEEDED, None, TraceStatus.FAILED, TraceStatus.SUCCEEDED]
    assert all(r.trigger is None for r in runs)
    assert all(r.trace.evidence == (Evidence.STATUS,) for r in runs if r.trace)


def test_a_pending_log_is_unfinished_without_a_warning() -> None:
    pending = _runs()[2]
    assert pending.trace is None and pending.warnings == ()


def test_an_execution_detail_names_the_error_and_with_the_blueprint_the_failed_step() -> None:
    failed = _runs(definition=_blueprint())[3].trace
    assert failed is not None
    assert failed.error == "Clearbit lookup: RuntimeError: [429] rate limited" and failed.failed_step == "enrich"


def test_the_duration_gives_the_finish_time() -> None:
    trace = _runs()[4].trace
    assert trace is not None and trace.started_at is not None and trace.finished_at is not None
    assert (trace.finished_at - trace.started_at).total_seconds() == 1.2


@pytest.mark.parametrize("name", ["blueprint.json", "blueprint_raw.json"])
def test_the_api_blueprint_wrapper_and_the_raw_blueprint_read_alike(name: str) -> None:
    trace = _runs("scenario_log_single.json", _blueprint(name))[0].trace
    assert trace is not None and trace.failed_step == "enrich" and trace.status is TraceStatus.FAILED


def test_one_log_in_its_get_form_is_read() -> None:
    [run] = _runs("scenario_log_single.json")
    assert run.record == "b1b2c3d4e5f60718293a4b5c6d7e8f91"


@pytest.mark.parametrize(("name", "says"), [("execution_detail.json", "one execution's detail"),
                                             ("dlqs.json", "incomplete executions"),
                                             ("dlq_get.json", "one incomplete execution"),
                                             ("dlq_bundle.json", "bundle of an incomplete execution")])
def test_documents_that_are_not_logs_say_what_they_are(name: str, says: str) -> None:
    with pytest.raises(ExportFormatError, match=says):
        list(parse(EXPORTS / name, ENTRY))

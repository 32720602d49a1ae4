"""Pairing legacy runs with triggers, and the import summary's counts and coverage sentence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from harness.importer import ImportedRun
from harness.importer.pairing import delivery_id, pair
from harness.importer.summary import coverage_sentence
from harness.manifest import ExportSource
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus

AT = datetime(2024, 6, 3, 9, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=5)


def _trigger(ident: str, minutes: float, headers: dict[str, str] | None = None) -> RecordedTrigger:
    return RecordedTrigger(ident, AT + timedelta(minutes=minutes), headers or {}, {}, "recorder")


def _trace(run: str, minutes: float | None) -> LegacyTrace:
    started = AT + timedelta(minutes=minutes) if minutes is not None else None
    return LegacyTrace("", TraceStatus.SUCCEEDED, Platform.MAKE, raw_run_id=run, started_at=started)


def test_delivery_ids_come_from_known_headers_then_the_body_id_or_a_locator() -> None:
    assert delivery_id(_trigger("t", 0, {"x-github-delivery": "g-1"})) == "g-1"
    assert delivery_id(RecordedTrigger("t", AT, {}, {"id": "evt_1"}, "s")) == "evt_1"
    assert delivery_id(RecordedTrigger("t", AT, {}, {"form": {"sid": 7}}, "s"), "body:form.sid") == "7"


def test_a_run_pairs_with_a_recorded_trigger_by_delivery_id_instead_of_duplicating_it() -> None:
    recorded = _trigger("g-1", 0, {"x-github-delivery": "g-1"})
    exported = _trigger("g-1-export", 3)
    run = ImportedRun("1001", exported, _trace("1001", 3), delivery_id="g-1")
    result = pair([recorded], [run], window=WINDOW)
    assert [(t.id, trace.trigger_id) for t, trace in result.pairs] == [("g-1", "g-1")]
    assert result.trigger_only == [] and result.legacy_only == []


def test_runs_without_delivery_ids_pair_with_the_nearest_trigger_inside_the_window() -> None:
    triggers = [_trigger("a", 0), _trigger("b", 2), _trigger("c", 30)]
    runs = [ImportedRun("r1", None, _trace("r1", 2.2)), ImportedRun("r2", None, _trace("r2", 0.5)),
            ImportedRun("r3", None, _trace("r3", 12)), ImportedRun("r4", None, _trace("r4", None))]
    result = pair(triggers, runs, window=WINDOW)
    assert sorted((t.id, trace.raw_run_id) for t, trace in result.pairs) == [("a", "r2"), ("b", "r1")]
    assert [t.raw_run_id for t in result.legacy_only] == ["r3", "r4"]
    assert [t.id for t in result.trigger_only] == ["c"]


def test_a_trigger_pairs_with_at_most_one_run() -> None:
    runs = [ImportedRun("r1", None, _trace("r1", 1)), ImportedRun("r2", None, _trace("r2", 1.1))]
    result = pair([_trigger("a", 1)], runs, window=WINDOW)
    assert len(result.pairs) == 1 and len(result.legacy_only) == 1


def test_a_run_that_carries_its_trigger_pairs_with_it_and_unfinished_runs_are_counted() -> None:
    runs = [ImportedRun("1", _trigger("x", 0), _trace("1", 0)), ImportedRun("2", _trigger("y", 1), None)]
    result = pair([], runs, window=WINDOW)
    assert [t.id for t, _ in result.pairs] == ["x"]
    assert [t.id for t in result.trigger_only] == ["y"]
    assert result.unfinished == 1


def test_coverage_explains_n8n_retention_and_missing_successful_runs() -> None:
    source = ExportSource(Platform.N8N, "github-triage", ("x.json",), retention_days=14)
    sentence = coverage_sentence(source, AT, AT + timedelta(days=13), succeeded=0)
    assert "14 days" in sentence and "EXECUTIONS_DATA_SAVE_ON_SUCCESS" in sentence and "not all traffic" in sentence


def test_coverage_reports_sampling_and_a_source_without_limits() -> None:
    sampled = ExportSource(Platform.CSV, "a", ("x.csv",), sampling=0.25, saves_successful_runs=False)
    assert "25% of runs" in coverage_sentence(sampled, AT, AT, 1)
    assert "failures only" in coverage_sentence(sampled, AT, AT, 1)
    plain = ExportSource(Platform.CSV, "a", ("x.csv",))
    assert "no retention or sampling limit" in coverage_sentence(plain, AT, AT, 1)

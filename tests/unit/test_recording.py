"""The canonical recording set: records, streaming loaders, writers and the manifest."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.errors import ManifestError, RecordingError
from harness.manifest import (
    AutomationEntry, Coercion, DecisionMap, Manifest, Redaction, ExportSource, Window, load_manifest, write_manifest,
)
from harness.recording import (
    LEGACY_FILE, TRIGGERS_FILE, LegacyTrace, Platform, RecordedTrigger, TraceStatus, iter_pairs, iter_traces,
    iter_triggers, trace_from_json, trace_to_json, trigger_from_json, trigger_to_json, write_traces, write_triggers,
)

AT = datetime(2024, 6, 3, 9, 12, tzinfo=UTC)


def _trigger(ident: str = "d-1", minute: int = 0) -> RecordedTrigger:
    return RecordedTrigger(ident, AT.replace(minute=minute), {"x-github-event": "issues"}, {"action": "opened"}, "recorder")


def _trace(trigger_id: str = "d-1") -> LegacyTrace:
    return LegacyTrace(
        trigger_id=trigger_id, status=TraceStatus.SUCCEEDED, platform=Platform.N8N, path=["classify", "add-labels"],
        decisions={"route": "bug"}, outputs={"classify": {"route": "bug"}}, raw_run_id="1001", started_at=AT,
        calls=[{"step": "add-labels", "provider": "github", "method": "POST", "url": "/repos/o/r/issues/1/labels",
                "body": {"labels": ["bug"]}}],
    )


def test_trigger_round_trips_through_its_json_object() -> None:
    trigger = _trigger()
    assert trigger_from_json(trigger_to_json(trigger), "t.jsonl", 1) == trigger


def test_trace_round_trips_through_its_json_object() -> None:
    trace = _trace()
    assert trace_from_json(trace_to_json(trace), "l.jsonl", 1) == trace


def test_trigger_header_names_are_lower_cased_on_load() -> None:
    obj = trigger_to_json(_trigger()) | {"headers": {"X-GitHub-Delivery": "abc"}}
    assert trigger_from_json(obj, "t.jsonl", 1).headers == {"x-github-delivery": "abc"}


def test_loader_error_names_file_line_and_field_of_a_bad_body(tmp_path: Path) -> None:
    path = tmp_path / TRIGGERS_FILE
    good = json.dumps(trigger_to_json(_trigger()))
    bad = json.dumps(trigger_to_json(_trigger("d-2")) | {"body": [1, 2]})
    path.write_text(f"{good}\n{bad}\n")
    with pytest.raises(RecordingError) as caught:
        list(iter_triggers(path))
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 2, "body")
    assert str(caught.value) == f"{path}:2: field 'body': expected an object, got an array"


def test_loader_reports_a_line_that_is_not_json_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / LEGACY_FILE
    path.write_text(json.dumps(trace_to_json(_trace())) + "\n\n{not json\n")
    with pytest.raises(RecordingError, match=r"legacy.jsonl:3: not valid JSON"):
        list(iter_traces(path))


def test_loader_rejects_a_timestamp_without_offset(tmp_path: Path) -> None:
    path = tmp_path / TRIGGERS_FILE
    path.write_text(json.dumps(trigger_to_json(_trigger()) | {"received_at": "2024-06-03T09:12:00"}) + "\n")
    with pytest.raises(RecordingError, match="field 'received_at': expected an RFC 3339 timestamp"):
        list(iter_triggers(path))


def test_loader_names_the_nested_field_of_a_bad_call(tmp_path: Path) -> None:
    path = tmp_path / LEGACY_FILE
    obj = trace_to_json(_trace())
    obj["calls"][0]["step"] = 7
    path.write_text(json.dumps(obj) + "\n")
    with pytest.raises(RecordingError) as caught:
        list(iter_traces(path))
    assert caught.value.field == "calls[0].step"


def test_loader_yields_good_records_before_reaching_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / TRIGGERS_FILE
    path.write_text(json.dumps(trigger_to_json(_trigger())) + "\n" + "garbage\n")
    stream = iter_triggers(path)
    assert next(stream).id == "d-1"
    with pytest.raises(RecordingError):
        next(stream)


def test_writer_sorts_keys_and_writes_one_record_per_line(tmp_path: Path) -> None:
    path = tmp_path / TRIGGERS_FILE
    assert write_triggers(path, [_trigger("a"), _trigger("b", 1)]) == 2
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    assert list(json.loads(lines[0])) == sorted(json.loads(lines[0]))
    assert write_triggers(path, [_trigger("c", 2)], append=True) == 1
    assert [t.id for t in iter_triggers(path)] == ["a", "b", "c"]


def test_pairs_join_traces_in_trigger_order_and_leave_gaps_as_none(tmp_path: Path) -> None:
    write_triggers(tmp_path / TRIGGERS_FILE, [_trigger("a"), _trigger("b", 1), _trigger("c", 2)])
    write_traces(tmp_path / LEGACY_FILE, [_trace("a"), _trace("c")])
    joined = [(t.id, trace.trigger_id if trace else None) for t, trace in iter_pairs(tmp_path)]
    assert joined == [("a", "a"), ("b", None), ("c", "c")]


def test_pairs_reject_a_trace_whose_trigger_never_comes(tmp_path: Path) -> None:
    write_triggers(tmp_path / TRIGGERS_FILE, [_trigger("a"), _trigger("b", 1)])
    write_traces(tmp_path / LEGACY_FILE, [_trace("b"), _trace("a")])
    with pytest.raises(RecordingError) as caught:
        list(iter_pairs(tmp_path))
    assert (caught.value.line, caught.value.field) == (2, "trigger_id")


def _manifest() -> Manifest:
    entry = AutomationEntry(
        "github-triage", Platform.N8N, Coercion.N8N, legacy_workflows=("wf-7", "GitHub issue triage"),
        steps={"GitHub Webhook": "", "Add labels": "add-labels"},
        decisions={"Route": DecisionMap("route", {"0": "bug"})}, providers={"api.github.com": "github"},
    )
    source = ExportSource(Platform.N8N, "github-triage", ("exports/n8n.json",), retention_days=14,
                    saves_successful_runs=False, sampling=0.5, records=10, skipped_records=1, imported_at=AT)
    return Manifest(
        name="2024-06", description="demo", window=Window(AT, AT.replace(day=30)), sources=(source,),
        automations={"github-triage": entry},
        redaction=Redaction(headers=("x-internal-token",), json_paths=("data.object.customer_email",)),
    )


def test_manifest_round_trips_through_toml(tmp_path: Path) -> None:
    manifest = _manifest()
    write_manifest(tmp_path / "manifest.toml", manifest)
    assert load_manifest(tmp_path / "manifest.toml") == manifest


def test_manifest_finds_the_automation_a_legacy_workflow_migrated_to() -> None:
    assert _manifest().automation_for_workflow("GitHub issue triage") == "github-triage"
    assert _manifest().automation_for_workflow("unknown") is None


def test_manifest_error_names_the_key_of_a_bad_platform(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text('name = "s"\n[automations.x]\nplatform = "ifttt"\n')
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert caught.value.field == "automations.x.platform"
    assert "ifttt" in str(caught.value)


def test_manifest_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text('name = "s"\n\nwindow = ?\nother = 1\n')
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert caught.value.line is not None
    assert str(path) in str(caught.value)


def test_manifest_rejects_a_window_that_ends_before_it_starts(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text('name = "s"\n[window]\nstart = 2024-06-30T00:00:00Z\nend = 2024-06-01T00:00:00Z\n')
    with pytest.raises(ManifestError, match="window.end"):
        load_manifest(path)


def test_a_trace_keeps_its_evidence_depth_through_jsonl_and_full_depth_stays_implicit() -> None:
    from harness.recording import ALL_EVIDENCE, Evidence, LegacyTrace, Platform, TraceStatus, trace_from_json, trace_to_json

    shallow = LegacyTrace("t1", TraceStatus.SUCCEEDED, Platform.ZAPIER, evidence=(Evidence.STATUS, Evidence.PATH))
    record = trace_to_json(shallow)
    assert record["evidence"] == ["status", "path"]
    assert trace_from_json(record, "legacy.jsonl", 1).evidence == (Evidence.STATUS, Evidence.PATH)
    full = trace_to_json(LegacyTrace("t2", TraceStatus.SUCCEEDED, Platform.N8N))
    assert "evidence" not in full
    assert trace_from_json(full, "legacy.jsonl", 2).evidence == ALL_EVIDENCE


def test_an_unknown_evidence_field_is_named_with_its_line() -> None:
    import pytest

    from harness.errors import RecordingError
    from harness.recording import trace_from_json

    record = {"trigger_id": "t", "status": "succeeded", "platform": "zapier", "evidence": ["status", "vibes"]}
    with pytest.raises(RecordingError, match=r"evidence\[1\]"):
        trace_from_json(record, "legacy.jsonl", 7)

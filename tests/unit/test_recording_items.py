"""Per-item sub-traces of a legacy trace and the poll a polled trigger came from: load, dump, errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.errors import RecordingError
from harness.recording import (
    LEGACY_FILE, TRIGGERS_FILE, ItemTrace, LegacyTrace, Platform, PollOrigin, RecordedTrigger, TraceStatus,
    dump_line, iter_pairs, trace_from_json, trace_to_json, trigger_from_json, trigger_to_json,
)

AT = datetime(2024, 6, 3, 9, 12, tzinfo=UTC)


def _items() -> list[ItemTrace]:
    return [
        ItemTrace(key="0", path=["label"], decisions={"route": "bug"},
                  calls=[{"step": "label", "provider": "github", "method": "POST", "url": "/x", "body": {"a": 1}}],
                  outputs={"label": {"ok": True}}),
        ItemTrace(key="inv-7", status=TraceStatus.FAILED, path=["charge"], error="Charge: 402", failed_step="charge"),
    ]


def _trace(items: list[ItemTrace] | None = None) -> LegacyTrace:
    return LegacyTrace(trigger_id="run-1", status=TraceStatus.SUCCEEDED, platform=Platform.N8N,
                       path=["split"], items=items if items is not None else _items())


def _polled(poll: PollOrigin | None = None) -> RecordedTrigger:
    origin = poll or PollOrigin(poller="new-invoices", at=AT, item="inv-7")
    return RecordedTrigger("poll-inv-7", AT, {}, {"id": "inv-7"}, "poll", origin)


def _trace_error(obj: dict[str, Any]) -> RecordingError:
    with pytest.raises(RecordingError) as caught:
        trace_from_json(obj, "legacy.jsonl", 3)
    return caught.value


def _trigger_error(obj: dict[str, Any]) -> RecordingError:
    with pytest.raises(RecordingError) as caught:
        trigger_from_json(obj, "triggers.jsonl", 5)
    return caught.value


def test_trace_with_items_round_trips_through_its_json_object() -> None:
    trace = _trace()
    assert trace_from_json(json.loads(dump_line(trace_to_json(trace))), "l.jsonl", 1) == trace


def test_item_defaults_to_succeeded_and_empty_fields_when_only_its_key_is_given() -> None:
    obj = trace_to_json(_trace([])) | {"items": [{"key": "3"}]}
    assert trace_from_json(obj, "l.jsonl", 1).items == [ItemTrace(key="3")]


def test_trace_without_items_dumps_no_items_field() -> None:
    assert "items" not in trace_to_json(_trace([]))


def test_item_dump_omits_absent_error_and_failed_step_but_keeps_present_ones() -> None:
    dumped = trace_to_json(_trace())["items"]
    assert "error" not in dumped[0] and "failed_step" not in dumped[0]
    assert (dumped[1]["error"], dumped[1]["failed_step"]) == ("Charge: 402", "charge")


@pytest.mark.parametrize(("items", "field", "reason"), [
    ({"key": "0"}, "items", "expected an array, got an object"),
    (["x"], "items[0]", "expected an object, got a string"),
    ([{"status": "succeeded"}], "items[0].key", "required field is missing"),
    ([{"key": 7}], "items[0].key", "expected a string, got a number"),
    ([{"key": "0"}, {"key": "1", "status": "done"}], "items[1].status",
     "expected one of succeeded, filtered, failed, got 'done'"),
    ([{"key": "0", "path": ["a", 1]}], "items[0].path[1]", "expected a string, got a number"),
    ([{"key": "0", "decisions": []}], "items[0].decisions", "expected an object, got an array"),
    ([{"key": "0", "calls": [{"method": "GET"}]}], "items[0].calls[0].step", "required field is missing"),
    ([{"key": "0", "calls": [3]}], "items[0].calls[0]", "expected an object, got a number"),
    ([{"key": "0", "outputs": "x"}], "items[0].outputs", "expected an object, got a string"),
    ([{"key": "0", "error": False}], "items[0].error", "expected a string, got a boolean"),
    ([{"key": "0", "failed_step": 1}], "items[0].failed_step", "expected a string, got a number"),
    ([{"key": "a"}, {"key": "b"}, {"key": "a"}], "items[2].key", "duplicate key 'a' (also items[0])"),
])
def test_bad_item_names_file_line_and_field(items: Any, field: str, reason: str) -> None:
    error = _trace_error(trace_to_json(_trace([])) | {"items": items})
    assert (error.path, error.line, error.field, error.reason) == ("legacy.jsonl", 3, field, reason)


def test_polled_trigger_round_trips_with_its_poll() -> None:
    trigger = _polled()
    obj = json.loads(dump_line(trigger_to_json(trigger)))
    assert obj["poll"] == {"at": "2024-06-03T09:12:00Z", "item": "inv-7", "poller": "new-invoices"}
    assert trigger_from_json(obj, "t.jsonl", 1) == trigger


def test_trigger_without_poll_dumps_no_poll_field() -> None:
    assert "poll" not in trigger_to_json(RecordedTrigger("d-1", AT, {}, {}, "recorder"))


@pytest.mark.parametrize(("change", "field", "reason"), [
    ({"poll": None}, "poll", "required when source is 'poll'"),
    ({"source": "recorder"}, "poll", "allowed only when source is 'poll' (source is 'recorder')"),
    ({"poll": []}, "poll", "expected an object, got an array"),
    ({"poll": {"at": "2024-06-03T09:12:00Z", "item": "i"}}, "poll.poller", "required field is missing"),
    ({"poll": {"poller": "p", "at": "2024-06-03T09:12:00", "item": "i"}}, "poll.at",
     "expected an RFC 3339 timestamp with offset, got '2024-06-03T09:12:00'"),
    ({"poll": {"poller": "p", "at": "2024-06-03T09:12:00Z"}}, "poll.item", "required field is missing"),
    ({"poll": {"poller": "p", "at": "2024-06-03T09:12:00Z", "item": ""}}, "poll.item", "expected a non-empty string"),
])
def test_bad_poll_names_file_line_and_field(change: dict[str, Any], field: str, reason: str) -> None:
    error = _trigger_error(trigger_to_json(_polled()) | change)
    assert (error.path, error.line, error.field, error.reason) == ("triggers.jsonl", 5, field, reason)


def test_pairs_stream_polled_triggers_and_item_traces_from_files(tmp_path: Path) -> None:
    (tmp_path / TRIGGERS_FILE).write_text(dump_line(trigger_to_json(_polled())))
    trace = LegacyTrace(trigger_id="poll-inv-7", status=TraceStatus.SUCCEEDED, platform=Platform.N8N,
                        items=[ItemTrace(key="inv-7", decisions={"paid": "true"})])
    (tmp_path / LEGACY_FILE).write_text(dump_line(trace_to_json(trace)))
    assert list(iter_pairs(tmp_path)) == [(_polled(), trace)]

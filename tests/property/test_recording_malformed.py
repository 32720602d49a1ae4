"""Whatever bytes a recording file holds, loading it raises only RecordingError, naming file and line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import RecordingError
from harness.recording import iter_traces, iter_triggers

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
VALID_TRIGGER = {"id": "d-1", "received_at": "2024-06-03T09:12:00Z", "headers": {}, "body": {}, "source": "r"}
VALID_TRACE = {"trigger_id": "d-1", "status": "succeeded", "platform": "n8n", "path": [], "decisions": {},
               "calls": [], "outputs": {}}


def _mutated(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    keys = st.sampled_from(sorted(base) + ["extra"])
    return st.dictionaries(keys, json_values, max_size=4).map(lambda change: {**base, **change}) | st.sets(
        st.sampled_from(sorted(base)), min_size=1).map(lambda drop: {k: v for k, v in base.items() if k not in drop})


lines = st.one_of(
    st.binary(max_size=40),
    json_values.map(lambda v: json.dumps(v).encode()),
    _mutated(VALID_TRIGGER).map(lambda v: json.dumps(v).encode()),
    _mutated(VALID_TRACE).map(lambda v: json.dumps(v).encode()),
)


def _load(kind: str, content: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / f"{kind}.jsonl"
        path.write_bytes(content)
        loader = iter_triggers if kind == "triggers" else iter_traces
        try:
            for _ in loader(path):
                pass
        except RecordingError as error:
            assert error.path == str(path)
            assert error.line is not None and 1 <= error.line <= content.count(b"\n") + 1
            assert str(error).startswith(f"{path}:{error.line}: ")


@settings(max_examples=300, deadline=None)
@given(st.lists(lines, min_size=1, max_size=4), st.sampled_from(["triggers", "legacy"]))
def test_malformed_lines_raise_only_recording_errors_naming_file_and_line(content: list[bytes], kind: str) -> None:
    _load(kind, b"\n".join(line.replace(b"\n", b" ") for line in content) + b"\n")


@settings(max_examples=200, deadline=None)
@given(_mutated(VALID_TRIGGER))
def test_a_bad_trigger_field_is_named_in_the_error(record: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "triggers.jsonl"
        path.write_text(json.dumps(record) + "\n")
        try:
            list(iter_triggers(path))
        except RecordingError as error:
            assert error.line == 1
            assert error.field is not None and error.field.split(".")[0] in VALID_TRIGGER

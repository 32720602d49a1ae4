"""The recordings' JSON is decoded by orjson where it reads a line as json does, by json elsewhere;
the shadow run's index reads through the same decoder; branch coverage reads trace outlines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import RecordingError
from harness.recording import fast_json, iter_json_lines, iter_traces, loads_json

JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON, st.booleans())
def test_any_json_decodes_to_what_json_loads_gives(value: object, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    try:
        expected = json.loads(raw)
    except ValueError:  # a lone surrogate json wrote with ensure_ascii=False: not UTF-8
        with pytest.raises(ValueError):
            loads_json(raw)
        return
    got = loads_json(raw)
    assert got == expected and json.dumps(got) == json.dumps(expected)  # same types: True is not 1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_decode_or_fail_as_json_loads_does(raw: bytes) -> None:
    try:
        expected = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        with pytest.raises(type(exc)):
            loads_json(raw)
        return
    assert json.dumps(loads_json(raw)) == json.dumps(expected)


@pytest.mark.parametrize("raw", [b"123456789012345678901234567890", b'{"n": -98765432109876543210}', b"NaN",
                                 b'{"x": Infinity}', b'"\\ud800"', b"1e400", b" \n"])
def test_what_orjson_reads_otherwise_or_refuses_is_left_to_json(raw: bytes) -> None:
    from harness.recording import _UNSURE

    assert fast_json(raw) is _UNSURE
    if raw.strip():
        assert json.dumps(loads_json(raw)) == json.dumps(json.loads(raw))  # a big integer stays exact


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b"0", b"7", b"9", b"1" * 18, b"2" * 19, b"a", b",", b" ", b"\x00", b'"']), max_size=30))
def test_the_long_digit_guard_sends_every_run_of_19_digits_to_json(parts: list[bytes]) -> None:
    import re

    from harness.recording import _UNSURE

    raw = b"".join(parts)
    if re.search(rb"\d{19,}", raw):  # orjson would read such an integer as a float
        assert fast_json(raw) is _UNSURE
    elif b"\x00" not in raw:  # no false alarm either (a raw NUL is never valid JSON)
        assert fast_json(raw) is not _UNSURE or json_refuses(raw)


def json_refuses(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return True
    return False


def test_a_bad_line_is_still_reported_with_its_number_and_json_message(tmp_path: Path) -> None:
    path = tmp_path / "legacy.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"a": 12345678901234567890123}\n{"a": \n')
    lines = iter_json_lines(path)
    assert next(lines) == (1, {"a": 1})
    assert next(lines) == (3, {"a": 12345678901234567890123})
    with pytest.raises(RecordingError) as caught:
        next(lines)
    assert caught.value.line == 4 and "not valid JSON (Expecting value)" in str(caught.value)


def _trace(trigger_id: str, **extra: object) -> dict[str, object]:
    return {"trigger_id": trigger_id, "status": "succeeded", "platform": "n8n", "path": ["a", "b"],
            "decisions": {"route": "bug"}, "calls": [{"step": "a", "method": "post", "body": {"x": 1}}],
            "outputs": {"a": {"big": "x" * 100}}, "nodes": {"Webhook": None, "A": [[{"x": 1}]]},
            "items": [{"key": "k", "path": ["a"]}], "evidence": ["status", "path", "decisions"], **extra}


def test_outlines_keep_what_branch_coverage_reads_and_drop_the_data(tmp_path: Path) -> None:
    path = tmp_path / "legacy.jsonl"
    path.write_text(json.dumps(_trace("t1")) + "\n")
    full, = iter_traces(path)
    outline, = iter_traces(path, outline=True)
    assert (outline.trigger_id, outline.status, outline.path, outline.decisions, outline.evidence) == (
        full.trigger_id, full.status, full.path, full.decisions, full.evidence)
    assert full.calls and full.outputs and full.nodes and full.items
    assert (outline.calls, outline.outputs, outline.nodes, outline.items) == ([], {}, {}, [])


def test_outlines_are_validated_in_full(tmp_path: Path) -> None:
    path = tmp_path / "legacy.jsonl"
    path.write_text(json.dumps(_trace("t1", nodes={"A": {"not": "a list"}})) + "\n")
    with pytest.raises(RecordingError) as caught:
        list(iter_traces(path, outline=True))
    assert caught.value.field == "nodes.A"

"""Mutated exports given to every importer end in typed errors naming the file, never a traceback.

Each test starts from the project's own fixtures (one per platform and form), mutates them — a
value replaced by one of another type, a key deleted, a number made huge or infinite, the text
nested deep, truncated or re-encoded — and runs the whole import (parse, redact, pair, write).
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import ExportFormatError, HarnessError
from harness.importer.pipeline import ImportRequest, import_export, parse_export
from harness.manifest import DEFAULT_COERCION, AutomationEntry
from harness.recording import Platform

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports"
EXAMPLES = 120
FIXTURES: list[tuple[Platform, str, str | None]] = [
    (Platform.N8N, "n8n/executions_list.json", None),
    (Platform.N8N, "n8n/executions_api_list_no_workflow.json", "n8n/workflow_download.json"),
    (Platform.ZAPIER, "zapier/zap_runs.json", None),
    (Platform.ZAPIER, "zapier/zap_runs_api.json", "zapier/zapfile_gdpr_v1.json"),
    (Platform.MAKE, "make/scenario_logs.json", "make/blueprint.json"),
    (Platform.MAKE, "make/scenario_logs_api.json", "make/blueprint.json"),
    (Platform.POWER_AUTOMATE, "power-automate/runs_list.json", "power-automate/flow_definition.json"),
    (Platform.POWER_AUTOMATE, "power-automate/run_pnp_cli_list.json", None),
    (Platform.JSONL, "tabular/runs.jsonl", None),
]
ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
    st.sampled_from([[], {}, [1, "a"], {"a": [None]}, "2024-13-45T99:99:99Z", "", 1e308, -1, 1719907200000]),
)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _nodes(document: Any) -> list[tuple[Any, Any]]:
    """Return ``(container, key)`` for every value in a JSON document (iteratively)."""
    found: list[tuple[Any, Any]] = []
    stack = [document]
    while stack:
        item = stack.pop()
        keys = list(item) if isinstance(item, dict) else range(len(item)) if isinstance(item, list) else []
        for key in keys:
            found.append((item, key))
            stack.append(item[key])
    return found


@st.composite
def mutated_document(draw: st.DrawFn, document: Any) -> Any:
    """Replace or delete one to three values anywhere in a copy of ``document``."""
    copy_ = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        nodes = _nodes(copy_)
        if not nodes:
            break
        container, key = draw(st.sampled_from(nodes))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(ODD_VALUES)
    return copy_


@st.composite
def mutated_text(draw: st.DrawFn, text: str) -> bytes:
    """Damage JSON text: a huge or non-finite number, deep nesting, truncation, or Latin-1 bytes."""
    kind = draw(st.sampled_from(["digits", "infinity", "nest", "truncate", "latin1", "junk"]))
    if kind == "digits":
        return text.replace("2024", "9" * 5000, 1).encode()
    if kind == "infinity":
        return text.replace('"2024', "Infinity, \"x", 1).replace(":0", ":-Infinity", 1).encode()
    if kind == "nest":
        depth = draw(st.sampled_from([250, 5000, 200_000]))
        return text.replace("{", "[" * depth + "{", 1).replace("}", "}" + "]" * depth, 1).encode()
    if kind == "truncate":
        return text[: draw(st.integers(0, len(text)))].encode()
    if kind == "latin1":
        return (text.replace('"', '"é', 3)).encode("latin-1", errors="replace")
    position = draw(st.integers(0, len(text)))
    return (text[:position] + draw(st.text(max_size=8)) + text[position:]).encode("utf-8", errors="replace")


def _request(platform: Platform, export: Path, into: Path, definition: str | None) -> ImportRequest:
    return ImportRequest(platform=platform, export=export, into=into, automation="fuzzed", skip_bad=True,
                         definition=EXPORTS / definition if definition else None, salt=b"fuzz", keep_unreplayable=True)


def _check(platform: Platform, suffix: str, content: bytes, definition: str | None) -> None:
    """Import ``content`` end to end; only HarnessErrors may escape, and record errors name the file."""
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / f"export{suffix}"
        export.write_bytes(content)
        request = _request(platform, export, Path(tmp) / "set", definition)
        entry = AutomationEntry("fuzzed", platform, DEFAULT_COERCION[platform])
        try:
            errors = [i for i in parse_export(request, entry) if isinstance(i, ExportFormatError)]
        except HarnessError as error:
            assert str(export) in str(error)
            return
        assert all(e.path == str(export) and (e.record or e.field or e.reason) for e in errors)
        try:
            import_export(request)
        except HarnessError as error:
            assert str(export) in str(error) or "manifest" in str(error)


def _fixture_text(name: str) -> str:
    return (EXPORTS / name).read_text(encoding="utf-8")


def _suffix(name: str) -> str:
    return Path(name).suffix


@SETTINGS
@given(data=st.data(), which=st.sampled_from(range(len(FIXTURES))))
def test_mutated_values_in_any_export_end_in_typed_errors(data: st.DataObject, which: int) -> None:
    platform, name, definition = FIXTURES[which]
    if name.endswith(".jsonl"):
        lines = [json.loads(line) for line in _fixture_text(name).splitlines() if line.strip()]
        mutated = data.draw(mutated_document(lines))
        content = "".join(json.dumps(line) + "\n" for line in mutated).encode()
    else:
        content = json.dumps(data.draw(mutated_document(json.loads(_fixture_text(name))))).encode()
    _check(platform, _suffix(name), content, definition)


@SETTINGS
@given(data=st.data(), which=st.sampled_from(range(len(FIXTURES))))
def test_damaged_json_text_in_any_export_ends_in_typed_errors(data: st.DataObject, which: int) -> None:
    platform, name, definition = FIXTURES[which]
    _check(platform, _suffix(name), data.draw(mutated_text(_fixture_text(name))), definition)


CSV_FIXTURES = [(Platform.CSV, "tabular/runs.csv"), (Platform.ZAPIER, "zapier/zap_history.csv")]


@st.composite
def mutated_csv(draw: st.DrawFn, text: str) -> bytes:
    """Damage a CSV: a cell replaced, a row cut, an oversized or quoted field, Latin-1 bytes."""
    lines = text.splitlines()
    row = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["cell", "cut", "huge", "quote", "latin1"]))
    cells = lines[row].split(",")
    if kind == "cell":
        cells[draw(st.integers(0, len(cells) - 1))] = draw(st.text(max_size=10).map(lambda t: t.replace("\n", " ")))
    elif kind == "cut":
        cells = cells[: draw(st.integers(0, len(cells)))]
    elif kind == "huge":
        cells[-1] = "x" * draw(st.sampled_from([140_000, 300_000]))
    elif kind == "quote":
        cells[0] = '"' + cells[0]
    lines[row] = ",".join(cells)
    joined = "\n".join(lines) + "\n"
    return joined.replace("a", "é").encode("latin-1", errors="replace") if kind == "latin1" else joined.encode()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.sampled_from(range(len(CSV_FIXTURES))))
def test_damaged_csv_exports_end_in_typed_errors(data: st.DataObject, which: int) -> None:
    platform, name = CSV_FIXTURES[which]
    _check(platform, ".csv", data.draw(mutated_csv(_fixture_text(name))), None)

"""`cutover import csv/jsonl --map` mistakes are errors that name the field, the column and the file's columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.importer.tabular import parse
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Platform

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "tabular"
GOOD = {"run_id": "Run", "received_at": "Timestamp", "status": "Outcome", "path": "Steps"}
HEADER = "Run, Timestamp, Outcome, Steps, Route, Email, Company, Error"


def _parse(columns: dict[str, str], name: str = "runs.csv") -> list[ImportedRun | ExportFormatError]:
    entry = AutomationEntry("lead-router", Platform.CSV, Coercion.STRICT, columns=columns)
    platform = Platform.JSONL if name.endswith(".jsonl") else Platform.CSV
    return list(parse(EXPORTS / name, entry, platform))


def test_a_mapped_column_the_file_lacks_is_an_error_listing_the_header() -> None:
    with pytest.raises(ExportFormatError) as caught:
        _parse({**GOOD, "decision.route": "Rout"})
    assert caught.value.field == "decision.route"
    assert caught.value.reason == f"--map decision.route=Rout: the file has no column 'Rout' (columns: {HEADER})"


def test_an_unknown_field_name_suggests_the_nearest_field() -> None:
    with pytest.raises(ExportFormatError) as caught:
        _parse({"recieved_at": "Timestamp", "status": "Outcome"})
    assert caught.value.field == "recieved_at"
    assert caught.value.reason == "--map recieved_at=Timestamp: unknown field (did you mean received_at?)"


def test_a_family_needs_a_name_after_its_dot() -> None:
    with pytest.raises(ExportFormatError, match="unknown field"):
        _parse({**GOOD, "decision.": "Route"})


@pytest.mark.parametrize(("columns", "missing"), [({}, "received_at"), ({"received_at": "Timestamp"}, "status")])
def test_a_required_field_without_a_column_says_which_map_to_pass(columns: dict[str, str], missing: str) -> None:
    with pytest.raises(ExportFormatError) as caught:
        _parse(columns)
    assert caught.value.field == missing
    assert caught.value.reason == f"no column for {missing}: pass --map {missing}=COLUMN (columns: {HEADER})"


def test_a_jsonl_line_without_a_required_field_says_which_map_to_pass() -> None:
    items = _parse({"received_at": "ts"}, "runs.jsonl")
    errors = [i for i in items if isinstance(i, ExportFormatError)]
    assert errors and errors[0].record == "line 1" and errors[0].field == "received_at"
    assert errors[0].reason.startswith("no column for received_at: pass --map received_at=COLUMN (columns: run_id, ")


def test_a_correct_mapping_still_imports_every_row() -> None:
    assert all(isinstance(i, ImportedRun) for i in _parse(GOOD)) and len(_parse(GOOD)) == 3

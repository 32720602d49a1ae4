"""Each class of malformed export that once ended in a Python traceback now ends in a typed error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.importer.pipeline import ImportRequest, import_export, parse_export
from harness.manifest import DEFAULT_COERCION, AutomationEntry
from harness.recording import Platform, iter_traces

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports"
JSON_EXPORTS = [
    (Platform.N8N, "n8n/executions_list.json"), (Platform.ZAPIER, "zapier/zap_runs_api.json"),
    (Platform.MAKE, "make/scenario_logs_api.json"), (Platform.POWER_AUTOMATE, "power-automate/runs_list.json"),
]
STATUS_PATHS = {Platform.N8N: ("data", 0, "status"), Platform.ZAPIER: ("data", 0, "status"),
                Platform.MAKE: ("scenarioLogs", 0, "status"), Platform.POWER_AUTOMATE: ("value", 0, "properties", "status")}
TIME_PATHS = {Platform.N8N: ("data", 0, "startedAt"), Platform.ZAPIER: ("data", 0, "start_time"),
              Platform.MAKE: ("scenarioLogs", 0, "timestamp"), Platform.POWER_AUTOMATE: ("value", 0, "properties", "startTime")}


def _items(platform: Platform, path: Path) -> list[Any]:
    request = ImportRequest(platform, path, path.parent / "set", "a")
    return list(parse_export(request, AutomationEntry("a", platform, DEFAULT_COERCION[platform])))


def _set(document: Any, where: tuple[Any, ...], value: Any) -> Any:
    node = document
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return document


def _write(tmp_path: Path, text: str, name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("platform", "name"), JSON_EXPORTS)
@pytest.mark.parametrize("depth", [300, 100_000])
def test_deep_nesting_is_a_typed_error_not_a_recursion_error(platform: Platform, name: str, depth: int, tmp_path: Path) -> None:
    text = (EXPORTS / name).read_text().replace("{", "[" * depth + "{", 1) + "]" * depth
    with pytest.raises(ExportFormatError, match="nested deeper"):
        _items(platform, _write(tmp_path, text))


@pytest.mark.parametrize(("platform", "name"), JSON_EXPORTS)
@pytest.mark.parametrize("value", [1e300, 10**30, -5, 1719907200000])
def test_numeric_timestamps_are_a_field_error_not_an_overflow(platform: Platform, name: str, value: Any, tmp_path: Path) -> None:
    document = _set(json.loads((EXPORTS / name).read_text()), TIME_PATHS[platform], value)
    items = _items(platform, _write(tmp_path, json.dumps(document)))
    assert all(isinstance(i, ImportedRun | ExportFormatError) for i in items)


@pytest.mark.parametrize(("platform", "name"), JSON_EXPORTS)
def test_infinity_is_rejected_as_no_json_number(platform: Platform, name: str, tmp_path: Path) -> None:
    text = json.dumps(_set(json.loads((EXPORTS / name).read_text()), TIME_PATHS[platform], float("inf")))
    with pytest.raises(ExportFormatError, match="Infinity is not a JSON number"):
        _items(platform, _write(tmp_path, text))


@pytest.mark.parametrize(("platform", "name"), JSON_EXPORTS)
def test_a_list_where_a_status_belongs_is_a_status_field_error(platform: Platform, name: str, tmp_path: Path) -> None:
    document = _set(json.loads((EXPORTS / name).read_text()), STATUS_PATHS[platform], ["success"])
    errors = [i for i in _items(platform, _write(tmp_path, json.dumps(document))) if isinstance(i, ExportFormatError)]
    assert platform is Platform.N8N or (errors and "status" in str(errors[0].field))


@pytest.mark.parametrize(("platform", "name"), JSON_EXPORTS)
def test_a_five_thousand_digit_integer_is_a_typed_error(platform: Platform, name: str, tmp_path: Path) -> None:
    text = (EXPORTS / name).read_text().replace("{", '{"huge": ' + "7" * 5000 + ", ", 1)
    with pytest.raises(ExportFormatError, match="not a usable JSON value"):
        _items(platform, _write(tmp_path, text))


@pytest.mark.parametrize(("platform", "name"), [(Platform.CSV, "tabular/runs.csv"), (Platform.ZAPIER, "zapier/zap_history.csv")])
def test_a_latin_1_csv_is_a_typed_error_asking_for_utf_8(platform: Platform, name: str, tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    path.write_bytes((EXPORTS / name).read_text().replace("a", "é").encode("latin-1"))
    with pytest.raises(ExportFormatError, match="UTF-8"):
        _items(platform, path)


def test_a_csv_field_over_128_kib_is_read(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    path.write_text("run_id,received_at,status,body.note\nr-1,2024-07-01T09:00:00Z,success," + "x" * 200_000 + "\n")
    [run] = _items(Platform.CSV, path)
    assert isinstance(run, ImportedRun) and run.trigger is not None and len(run.trigger.body["note"]) == 200_000


def test_a_broken_jsonl_line_is_named_by_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"status": "success", "start_time": "2024-07-01T09:00:00Z", "steps": []}\n{oops\n', "runs.jsonl")
    with pytest.raises(ExportFormatError) as caught:
        _items(Platform.ZAPIER, path)
    assert caught.value.record == "line 2"


def test_an_import_of_status_only_runs_is_refused_unless_kept(tmp_path: Path) -> None:
    request = ImportRequest(Platform.MAKE, EXPORTS / "make/scenario_logs_api.json", tmp_path / "set", "a", salt=b"s")
    with pytest.raises(ExportFormatError, match="nothing replayable.*cutover record"):
        import_export(request)
    assert not (tmp_path / "set" / "a").exists()
    summary = import_export(ImportRequest(**{**request.__dict__, "keep_unreplayable": True}))
    assert summary.legacy_only == 4 and ("status", 4) in summary.evidence
    assert len(list(iter_traces(tmp_path / "set" / "a" / "legacy.jsonl"))) == 0

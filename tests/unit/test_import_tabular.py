"""CSV and JSONL run history with a field → column mapping."""

from __future__ import annotations

from pathlib import Path

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.importer.tabular import parse
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Evidence, Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "tabular"
COLUMNS = {"run_id": "Run", "received_at": "Timestamp", "status": "Outcome", "path": "Steps",
           "decision.route": "Route", "body.email": "Email", "body.company": "Company", "error": "Error"}
ENTRY = AutomationEntry("lead-router", Platform.CSV, Coercion.STRICT, columns=COLUMNS)


def _runs(name: str, entry: AutomationEntry = ENTRY, platform: Platform = Platform.CSV) -> list[ImportedRun]:
    return [i for i in parse(EXPORTS / name, entry, platform) if isinstance(i, ImportedRun)]


def test_mapped_columns_fill_status_path_decisions_and_error() -> None:
    traces = [r.trace for r in _runs("runs.csv")]
    assert [(t.status, t.path, t.decisions, t.error) for t in traces if t] == [
        (TraceStatus.SUCCEEDED, ["enrich", "create-contact"], {"route": "enterprise"}, None),
        (TraceStatus.FILTERED, [], {"route": "junk"}, None),
        (TraceStatus.FAILED, ["enrich"], {}, "clearbit timeout"),
    ]


def test_body_columns_build_the_trigger() -> None:
    trigger = _runs("runs.csv")[0].trigger
    assert trigger is not None
    assert (trigger.id, trigger.body) == ("csv-r-1", {"email": "ana@globex.example", "company": "Globex"})


def test_bad_rows_name_the_row_the_field_and_its_column() -> None:
    errors = [i for i in parse(EXPORTS / "runs_bad.csv", ENTRY, Platform.CSV) if isinstance(i, ExportFormatError)]
    assert [(e.record, e.field) for e in errors] == [
        ("row 3", "received_at (column 'Timestamp')"), ("row 4", "status (column 'Outcome')")]


def test_jsonl_rows_use_canonical_names_and_a_json_body() -> None:
    runs = _runs("runs.jsonl", AutomationEntry("lead-router", Platform.JSONL, Coercion.STRICT), Platform.JSONL)
    assert runs[0].trigger is not None and runs[0].trigger.id == "sub_101"
    assert runs[0].trace is not None and runs[0].trace.decisions == {"route": "smb"}
    assert runs[1].trigger is None
    assert runs[1].trace is not None and runs[1].trace.failed_step == "enrich"


def test_a_field_without_a_column_is_not_evidence(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("run_id,received_at,status,path,decision.route\nr-1,2024-07-01T09:00:00Z,success,a > b,x\n")
    [run] = [i for i in parse(path, AutomationEntry("x", Platform.CSV, Coercion.STRICT), Platform.CSV)
             if isinstance(i, ImportedRun)]
    assert run.trace is not None and run.trace.evidence == (Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS)

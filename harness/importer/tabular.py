"""Import any tool's run history from CSV or JSONL, given a field → column mapping.

Canonical fields and their default column names (the mapping from ``--map field=column`` or the
manifest's ``columns`` table overrides them):

``run_id``, ``delivery_id``, ``received_at`` (required), ``started_at``, ``status`` (required:
success/succeeded/ok/completed, filtered/skipped, failed/error/errored), ``path`` (step names
separated by ``>``, ``|`` or ``,``), ``error``, ``failed_step``, ``body`` (a JSON object), and the
families ``body.<key>``, ``headers.<name>``, ``decision.<name>`` and ``output.<step>``: a column
named (or mapped to) ``decision.route`` fills ``decisions["route"]``. A row with a body gives a
trigger; a row without one gives a trace to pair with recorded triggers by delivery id or time.
The mapping is checked first: an unknown field name, a mapped column the CSV header lacks, or a
required field without a column stops the import naming the field and the file's columns.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from queue_core.suggest import closest

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import SHAPE_ERRORS, ImportedRun, parse_json_text, step_name, timestamp_or_none
from harness.manifest import AutomationEntry
from harness.recording import Evidence, LegacyTrace, Platform, RecordedTrigger, TraceStatus

STATUS_WORDS = {
    TraceStatus.SUCCEEDED: {"success", "succeeded", "successful", "ok", "completed", "done"},
    TraceStatus.FILTERED: {"filtered", "skipped", "halted"},
    TraceStatus.FAILED: {"failed", "failure", "error", "errored", "stopped"},
}
FAMILIES = ("body.", "headers.", "decision.", "output.")
FIELDS = ("run_id", "delivery_id", "received_at", "started_at", "status", "path", "error", "failed_step", "body",
          "calls")
REQUIRED = ("received_at", "status")
PATH_SEPARATOR = re.compile(r"\s*[>|,]\s*")


MAX_FIELD = 16 * 1024 * 1024  # a JSON body in one cell can exceed csv's 128 KiB default


def rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(record label, row)`` from a CSV (header row) or JSONL file, one row at a time.

    Raises ExportFormatError naming the row or line when the file is not UTF-8 or not CSV.
    """
    label = "line 1"
    try:
        for label, row in _raw_rows(path):
            yield label, row
    except UnicodeDecodeError as exc:
        raise ExportFormatError(str(path), f"after {label}", None,
                                f"not UTF-8 text (byte {exc.start} of a chunk): re-save the file as UTF-8") from None
    except csv.Error as exc:
        raise ExportFormatError(str(path), f"after {label}", None, f"not readable CSV ({exc})") from None


def _raw_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    if path.suffix.lower() == ".csv":
        csv.field_size_limit(MAX_FIELD)
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for number, row in enumerate(csv.DictReader(handle), start=2):
                yield f"row {number}", {k: v for k, v in row.items() if k is not None}
        return
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield f"line {number}", _json_row(line, str(path), f"line {number}")


def _json_row(line: str, path: str, record: str) -> dict[str, Any]:
    try:
        value = parse_json_text(line, path, record)
    except ExportFormatError as error:
        return {"__error__": error.reason}
    return value if isinstance(value, dict) else {"__error__": f"expected an object, got {type_name(value)}"}


def parse(path: Path, entry: AutomationEntry, platform: Platform) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed row) per row of the file."""
    if not path.exists():
        raise ExportFormatError(str(path), None, None, "file does not exist")
    check_fields(entry.columns, str(path))
    for record, row in rows(path):
        if record == "row 2":  # a CSV's first data row: its keys are the header
            check_header(list(row), entry.columns, str(path))
        try:
            yield parse_row(row, entry, platform, str(path), record)
        except ExportFormatError as error:
            yield error
        except SHAPE_ERRORS as exc:
            yield ExportFormatError(str(path), record, None, f"unexpected value in this row ({type(exc).__name__}: {str(exc)[:120]})")


def check_fields(columns: dict[str, str], path: str) -> None:
    """Raise ExportFormatError for a mapped field name that is no field, suggesting the nearest."""
    for name, column in columns.items():
        if name in FIELDS or (name.startswith(FAMILIES) and name.partition(".")[2]):
            continue
        close = closest(name, FIELDS)
        hint = f"did you mean {close}?" if close else (
            "expected one of " + ", ".join(FIELDS) + " or " + ", ".join(f + "<name>" for f in FAMILIES))
        raise ExportFormatError(path, None, name, f"--map {name}={column}: unknown field ({hint})")


def check_header(header: list[str], columns: dict[str, str], path: str) -> None:
    """Raise ExportFormatError when a mapped column, or a required field's column, is not in the CSV header."""
    listed = ", ".join(header)
    for name, column in columns.items():
        if column not in header:
            raise ExportFormatError(path, None, name, f"--map {name}={column}: the file has no column {column!r} "
                                                      f"(columns: {listed})")
    for name in REQUIRED:
        if columns.get(name, name) not in header:
            raise ExportFormatError(path, None, name, _no_column(name, header))


def _no_column(name: str, columns: list[str]) -> str:
    return f"no column for {name}: pass --map {name}=COLUMN (columns: {', '.join(columns)})"


class _Row:
    """A row read through the column mapping, with errors that name the column."""

    def __init__(self, row: dict[str, Any], columns: dict[str, str], path: str, record: str) -> None:
        self.row, self.columns, self.path, self.record = row, columns, path, record

    def column(self, field: str) -> str:
        return self.columns.get(field, field)

    def get(self, field: str) -> Any:
        value = self.row.get(self.column(field))
        return None if value == "" else value

    def fail(self, field: str, message: str) -> ExportFormatError:
        column = self.column(field)
        where = field if column == field else f"{field} (column {column!r})"
        return ExportFormatError(self.path, self.record, where, message)

    def family(self, prefix: str) -> dict[str, Any]:
        found = {f[len(prefix):]: self.get(f) for f in self.columns if f.startswith(prefix)}
        mapped = set(self.columns.values())
        found.update({c[len(prefix):]: v for c, v in self.row.items() if c.startswith(prefix) and c not in mapped})
        return {key: value for key, value in found.items() if value is not None}


def _loads(value: Any, row: _Row, field: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return parse_json_text(value, row.path, row.record)
    except ExportFormatError as error:
        raise row.fail(field, f"expected JSON text: {error.reason}") from None


def _status(row: _Row) -> TraceStatus:
    raw = row.get("status")
    word = str(raw).strip().lower() if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
    for status, words in STATUS_WORDS.items():
        if word in words:
            return status
    raise row.fail("status", f"expected success, filtered or failed (or a synonym), got {raw!r}")


def _body(row: _Row) -> dict[str, Any] | None:
    raw = row.get("body")
    if raw is not None:
        body = _loads(raw, row, "body")
        if not isinstance(body, dict):
            raise row.fail("body", f"expected a JSON object, got {type_name(body)}")
        return body
    nested: dict[str, Any] = {}
    for dotted, value in row.family("body.").items():
        node = nested
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested or None


def parse_row(row: dict[str, Any], entry: AutomationEntry, platform: Platform, path: str, record: str) -> ImportedRun:
    """Turn one row into a legacy trace, and a trigger when the row carries a body."""
    if "__error__" in row:
        raise ExportFormatError(path, record, None, str(row["__error__"]))
    read = _Row(row, entry.columns, path, record)
    for needed in REQUIRED:
        if read.column(needed) not in row:  # a JSONL line without the field (a CSV's header was checked)
            raise ExportFormatError(path, record, needed, _no_column(needed, list(row)))
    received = timestamp_or_none(read.get("received_at"))
    if received is None:
        raise read.fail("received_at", f"expected an ISO 8601 timestamp with offset, got {read.get('received_at')!r}")
    run_id = str(read.get("run_id") or record)
    delivery = read.get("delivery_id")
    body = _body(read)
    headers = {k.lower(): str(v) for k, v in read.family("headers.").items()}
    trigger = None
    if body is not None:
        trigger = RecordedTrigger(str(delivery or f"{platform}-{run_id}"), received, headers, body, f"{platform}:{run_id}")
    raw_path = read.get("path")
    steps = [s for s in PATH_SEPARATOR.split(str(raw_path)) if s] if raw_path else []
    mapped = [name for s in steps if (name := step_name(entry, s)) is not None]
    outputs = {step_name(entry, k) or k: _maybe_json(v) for k, v in read.family("output.").items()}
    trace = LegacyTrace(
        trigger_id="", status=_status(read), platform=platform, path=mapped,
        decisions={k: _maybe_json(v) for k, v in read.family("decision.").items()},
        calls=_calls(read), outputs=outputs, error=read.get("error"), failed_step=read.get("failed_step"),
        raw_run_id=run_id, started_at=timestamp_or_none(read.get("started_at")) or received,
        evidence=evidence(read),
    )
    return ImportedRun(record, trigger, trace, str(delivery) if delivery else None)


def evidence(row: _Row) -> tuple[Evidence, ...]:
    """Return the fields the file has columns for: a field with no column is not compared."""
    present = set(row.row)
    has = {
        Evidence.PATH: row.column("path") in present,
        Evidence.DECISIONS: any(c.startswith("decision.") for c in present) or any(
            f.startswith("decision.") and c in present for f, c in row.columns.items()),
        Evidence.CALLS: row.column("calls") in present,
        Evidence.OUTPUTS: any(c.startswith("output.") for c in present) or any(
            f.startswith("output.") and c in present for f, c in row.columns.items()),
    }
    return (Evidence.STATUS, *(e for e, found in has.items() if found))


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in '{["':
        try:
            return parse_json_text(value, "", None)
        except ExportFormatError:
            return value
    return value


def _calls(row: _Row) -> list[dict[str, Any]]:
    raw = row.get("calls")
    if raw is None:
        return []
    calls = _loads(raw, row, "calls")
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("step"), str) for c in calls):
        raise row.fail("calls", "expected a JSON array of objects each with a string 'step'")
    return calls

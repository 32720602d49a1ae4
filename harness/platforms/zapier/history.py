"""Import Zapier zap runs: the zap-runs API, its detailed form, and the Zap history CSV.

Documents: a zap-runs page (``{"data"|"results": [run, ...], "links"|"next": ...}``, also inside
the one-element array documentation shows), a bare list of runs, one run, JSONL with one run a
line, or a CSV download of Zap history (columns matched by name: run id, zap id, status, start
and end time, zap title).

What Zapier's API gives per run is ``id``, ``zap_id``, ``start_time``, ``end_time``, ``status``,
``zap_title``, ``steps[{status, start_time}]`` and ``data_in``/``data_out`` (``""`` in its own
example): steps carry no id, app, input or output. Such a run proves its status only, unless the
Zap's definition (``Zapfile.json``, ``--definition``) is given: then the ordered step statuses say
which steps ran, which filter stopped the run and which path ran (status, path and decisions).
A run with no ``data_in`` object has no trigger: record triggers with ``cutover record`` and the
import pairs each run with one by time. Runs whose steps carry ``title``/``app``/``data_in``/
``data_out`` (the detailed form some exporters write) give calls and outputs as well. With a
``GET /v2/zaps?expand=steps.action`` definition whose trigger is a polled READ action
(``is_instant`` false), a run's trigger is a polled item (``source = "poll"``, :func:`polled_trigger`).

Statuses: success → succeeded; error_handled → succeeded (the error handler ran; noted as the
trace's error); filtered, halted, skipped → filtered; stopped, errored, error → failed; waiting,
delayed, scheduled, playing, held, throttled (not finished) → no trace. An unknown status gives a
warning and no trace, never a stop.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import (
    ImportedRun, decision, guarded, load_json_document, obj, parse_json_text, status_word, step_name,
    timestamp_or_none,
)
from harness.importer.definition import unwrap
from harness.importer.pairing import delivery_id
from harness.platforms.zapier.definition import ZapDefinition, ZapStep, choose, read_zaps
from harness.manifest import AutomationEntry
from harness.shadow.normalize import unflatten
from harness.recording import POLL_SOURCE, Evidence, LegacyTrace, Platform, PollOrigin, RecordedTrigger, TraceStatus

STATUSES = {
    "success": TraceStatus.SUCCEEDED,
    "error_handled": TraceStatus.SUCCEEDED,
    "filtered": TraceStatus.FILTERED,
    "halted": TraceStatus.FILTERED,
    "skipped": TraceStatus.FILTERED,
    "stopped": TraceStatus.FAILED,
    "errored": TraceStatus.FAILED,
    "error": TraceStatus.FAILED,
}
UNFINISHED = {"waiting", "delayed", "scheduled", "playing", "pending", "running", "held", "holding", "throttled",
              "autoreplay"}
LOGIC_TYPES = {"trigger", "filter", "paths", "formatter", "delay", "code"}
DETAIL_KEYS = ("type", "title", "app", "data_in", "data_out", "action")
RAN = {"success", "error_handled", "filtered", "halted", "stopped", "errored", "error"}
CSV_COLUMNS = {
    "id": ("zap_run_id", "run_id", "id", "task_id"),
    "zap_id": ("zap_id",),
    "status": ("status", "zap_run_status"),
    "start_time": ("start_time", "started_at", "start_date", "date", "created_at", "time"),
    "end_time": ("end_time", "ended_at", "end_date", "finished_at"),
    "zap_title": ("zap_title", "zap_name", "zap"),
}
MAX_CSV_FIELD = 16 * 1024 * 1024


def read_runs(path: Path) -> list[tuple[str, Any]]:
    """Return ``(record, run)`` for each run of a zap-runs document (JSON, JSONL or CSV)."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_runs(path)
    if suffix == ".csv":
        return _csv_runs(path)
    document = unwrap(load_json_document(path))
    if isinstance(document, dict):
        listed = next((document[k] for k in ("data", "results") if isinstance(document.get(k), list)), None)
        runs = listed if listed is not None else [document]
    elif isinstance(document, list):
        runs = document
    else:
        raise ExportFormatError(str(path), None, None, f"expected an object or array, got {type_name(document)}")
    aliased = [with_aliases(run) for run in runs]
    return [(_record(run, index), run) for index, run in enumerate(aliased)]


def _record(run: Any, index: int) -> str:
    ident = run.get("id") if isinstance(run, dict) else None
    return str(ident) if isinstance(ident, str | int) and not isinstance(ident, bool) and ident != "" else f"#{index + 1}"


def _jsonl_runs(path: Path) -> list[tuple[str, Any]]:
    runs: list[tuple[str, Any]] = []
    for number, line in enumerate(_text(path).splitlines(), start=1):
        if line.strip():
            run = with_aliases(parse_json_text(line, str(path), f"line {number}"))
            runs.append((_record(run, -1) if isinstance(run, dict) and run.get("id") else f"line {number}", run))
    return runs


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExportFormatError(str(path), None, None, f"not UTF-8 text (byte {exc.start}): re-save the file as UTF-8") from None


def _key(column: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", column.strip().lower()).strip("_")


def _csv_runs(path: Path) -> list[tuple[str, Any]]:
    csv.field_size_limit(MAX_CSV_FIELD)
    try:
        reader = csv.DictReader(_text(path).splitlines())
        header = {_key(c): c for c in reader.fieldnames or [] if c is not None}
        columns = {field: next((header[n] for n in names if n in header), None) for field, names in CSV_COLUMNS.items()}
        if columns["status"] is None:
            raise ExportFormatError(str(path), None, None, _csv_hint(header))
        found = [(n, {f: row.get(c) for f, c in columns.items() if c}) for n, row in enumerate(reader, start=2)]
        return [(str(run.get("id") or f"row {n}"), run) for n, run in found]
    except csv.Error as exc:
        raise ExportFormatError(str(path), f"row {reader.line_num}", None, f"not readable CSV ({exc})") from None


def _csv_hint(header: dict[str, str]) -> str:
    if "url" in header or "download_url" in header:
        return ("this lists task history download URLs (task_history_download_urls.csv of the account export), not "
                "runs: download each URL's JSON page and import those")
    return f"no status column among {sorted(header.values())!r}: expected Zap history columns (status, start time, ...)"


def parse(path: Path, entry: AutomationEntry, definition: Any = None) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed one) per zap run in the file.

    ``definition`` is a Zapfile (``gdpr_v1`` or version 2) or a ``/v2/zaps`` page.
    """
    zaps = read_zaps(definition)
    return guarded(read_runs(path), str(path), lambda run, record: parse_run(run, entry, str(path), record, zaps))


def with_aliases(run: Any) -> Any:
    """Give a run read from a history download the API's field names (``Start Time`` → ``start_time``)."""
    if not isinstance(run, dict):
        return run
    keys = {_key(str(k)): k for k in run}
    found: dict[str, Any] = {}
    for field, names in CSV_COLUMNS.items():
        hit = next((keys[n] for n in names if n in keys), None)
        if field not in run and hit is not None:
            found[field] = run[hit]
    return {**found, **run} if found else run


def _fail(path: str, record: str, field: str, message: str) -> ExportFormatError:
    return ExportFormatError(path, record, field, message)


def outcome(raw: Any, path: str, record: str) -> tuple[TraceStatus | None, str | None]:
    """Map a run status to a trace status (``None``: not finished), and a warning when unknown."""
    word = status_word(raw)
    if word is None:
        raise _fail(path, record, "status", f"expected a status string, got {type_name(raw)}")
    word = word.replace(" ", "_")
    if word in STATUSES:
        return STATUSES[word], None
    if word in UNFINISHED:
        return None, None
    return None, f"run {record}: unknown zap run status {raw!r}, imported as unfinished (no trace)"


def parse_run(run: Any, entry: AutomationEntry, path: str, record: str, zaps: list[ZapDefinition] | None = None) -> ImportedRun:
    """Turn one zap run into a legacy trace, and a trigger when the run shows its input."""
    if not isinstance(run, dict):
        raise _fail(path, record, "", f"expected a zap run object, got {type_name(run)}")
    if "status" not in run:
        raise _fail(path, record, "status", "required field is missing")
    status, warning = outcome(run["status"], path, record)
    steps = run.get("steps") if run.get("steps") is not None else []
    if not isinstance(steps, list):
        raise _fail(path, record, "steps", f"expected an array, got {type_name(steps)}")
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            raise _fail(path, record, f"steps[{index}]", f"expected an object, got {type_name(step)}")
    started = timestamp_or_none(run.get("start_time"))
    if started is None:
        raise _fail(path, record, "start_time", "expected an ISO 8601 timestamp with offset")
    trigger = _trigger(run, steps, started, record)
    if trigger is not None and (polled := choose(zaps or [], run.get("zap_id"))) is not None and polled.polls:
        trigger = polled_trigger(trigger, polled, run, entry, record)
    warnings: tuple[str, ...] = (warning,) if warning else ()
    if status is None:
        return ImportedRun(record, trigger, None, delivery_id(trigger) if trigger else None, warnings)
    if any(k in step for step in steps for k in DETAIL_KEYS):
        trace = _trace(run, steps, status, entry, record)
    else:
        zap = choose(zaps or [], run.get("zap_id"))
        trace, note = _status_trace(run, steps, status, entry, record, zap)
        if zaps and zap is None:
            note = f"run {record}: zap {run.get('zap_id')!r} is not in the definition file: only the status is compared"
        warnings += (note,) if note else ()
    return ImportedRun(record, trigger, trace, delivery_id(trigger) if trigger else None, warnings)


def _trigger(run: dict[str, Any], steps: list[dict[str, Any]], started: Any, record: str) -> RecordedTrigger | None:
    data = run.get("data_in")
    if not isinstance(data, dict) and steps:
        data = steps[0].get("data_out")
    if not isinstance(data, dict) or not data:
        return None
    body = unflatten(data)
    trigger = RecordedTrigger(f"zapier-{record}", started, {}, body, f"zapier:zap-run/{record}")
    found = delivery_id(trigger)
    return trigger if found is None else RecordedTrigger(found, started, {}, body, trigger.source)


def polled_trigger(trigger: RecordedTrigger, zap: ZapDefinition, run: dict[str, Any], entry: AutomationEntry,
                   record: str) -> RecordedTrigger:
    """Make a polled Zap's trigger a poll item: ``source = "poll"``, the poll dated by the run's start.

    Zapier starts one run per new item a poll finds and dedupes items by their ``id``: the item is
    the manifest's ``items.key`` field, else the body's ``id``, else the run's id.
    """
    fields = entry.items.key_path() if entry.items is not None else None
    value: Any = trigger.body
    for part in fields or ("id",):
        value = value.get(part) if isinstance(value, dict) else None
    item = str(value) if isinstance(value, str | int) and not isinstance(value, bool) and value != "" else record
    poller = zap.title or zap.id or str(run.get("zap_id") or "zap")
    return replace(trigger, source=POLL_SOURCE, poll=PollOrigin(poller, trigger.received_at, item))


def _base(run: dict[str, Any], status: TraceStatus, record: str) -> LegacyTrace:
    handled = status_word(run.get("status")) == "error_handled"
    return LegacyTrace(
        trigger_id="", status=status, platform=Platform.ZAPIER, raw_run_id=record,
        error="a step errored and the Zap's error handler ran" if handled else None,
        workflow=str(run["zap_id"]) if isinstance(run.get("zap_id"), str | int) else None,
        started_at=timestamp_or_none(run.get("start_time")), finished_at=timestamp_or_none(run.get("end_time")),
    )


def _status_trace(
    run: dict[str, Any], steps: list[dict[str, Any]], status: TraceStatus, entry: AutomationEntry, record: str,
    zap: ZapDefinition | None,
) -> tuple[LegacyTrace, str | None]:
    """A run of the API's shape: status only, or a path and decisions when its Zap is defined."""
    base = replace(_base(run, status, record), evidence=(Evidence.STATUS,))
    if zap is None or not steps:
        return base, None
    states = [status_word(step.get("status")) or "" for step in steps]
    defined = list(zap.steps) if len(states) == len(zap.steps) else list(zap.steps[1:])
    if len(states) != len(defined):
        return base, (f"run {record}: {len(states)} step statuses but the Zap defines {len(zap.steps)} steps "
                      "(changed since?): only the status is compared")
    return replace(base, **_walk(defined, states, entry), evidence=(Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS)), None


def _walk(defined: list[ZapStep], states: list[str], entry: AutomationEntry) -> dict[str, Any]:
    """Turn the definition's steps and their statuses into path, decisions and the failed step."""
    path: list[str] = []
    decisions: dict[str, Any] = {}
    paths_taken: dict[str, list[str]] = {}
    failed: str | None = None
    for step, state in zip(defined, states, strict=True):
        name = step_name(entry, step.label, step.id)
        if step.kind == "trigger" or state not in RAN:
            continue
        if name is not None:
            path.append(name)
        if step.kind == "filter":
            key, value = decision(entry, step.label, "stopped" if state in {"filtered", "halted"} else "passed")
            decisions[key] = value
        if step.kind == "path" and step.branch and state not in {"filtered", "halted"}:
            paths_taken.setdefault(step.branch, []).append(step.label)
        if state in {"errored", "error", "stopped"} and failed is None:
            failed = name
    for branch, taken in paths_taken.items():
        key, value = decision(entry, branch, taken[0] if len(taken) == 1 else taken)
        decisions[key] = value
    return {"path": path, "decisions": decisions, "failed_step": failed}


def _label(step: dict[str, Any], index: int) -> str:
    return str(step.get("title") or step.get("action") or step.get("app") or f"step {index + 1}")


def _trace(
    run: dict[str, Any], steps: list[dict[str, Any]], status: TraceStatus, entry: AutomationEntry, record: str
) -> LegacyTrace:
    path: list[str] = []
    decisions: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    outputs: dict[str, Any] = {}
    error: str | None = None
    failed: str | None = None
    for index, step in enumerate(steps):
        kind = str(step.get("type", "trigger" if index == 0 else "action")).lower()
        state = str(step.get("status", "success")).lower()
        label = _label(step, index)
        name = step_name(entry, label, str(step.get("step_id", step.get("id", ""))))
        if kind == "trigger" or name is None or state == "skipped":
            continue
        path.append(name)
        outputs[name] = unflatten(step.get("data_out"))
        if kind in {"filter", "paths"}:
            value = "stopped" if state in {"filtered", "stopped", "halted"} else "passed"
            out = obj(step.get("data_out"))
            chosen = out.get("path") if kind == "paths" else value
            key, mapped = decision(entry, label, chosen)
            decisions[key] = mapped
        elif kind not in LOGIC_TYPES and step.get("app"):
            calls.append(_call(step, name, entry))
        if state in {"errored", "error", "stopped"} and error is None:
            error, failed = f"{label}: {step.get('error') or 'step failed'}", name
    return LegacyTrace(
        trigger_id="", status=status, platform=Platform.ZAPIER, path=path, decisions=decisions,
        calls=calls, outputs=outputs, error=error, failed_step=failed, raw_run_id=record,
        workflow=str(run["zap_id"]) if run.get("zap_id") is not None else None,
        started_at=timestamp_or_none(run.get("start_time")),
        finished_at=timestamp_or_none(run.get("end_time")),
    )


def _call(step: dict[str, Any], name: str, entry: AutomationEntry) -> dict[str, Any]:
    app = str(step.get("app") or "")
    provider = entry.providers.get(app, app.lower() or None)
    body = unflatten(step.get("data_in"))
    return {"step": name, "provider": provider, "method": step.get("method"), "url": step.get("url"), "body": body}

"""Import Zapier zap runs, shaped like the zap-runs API (``GET /v2/zap-runs``).

A document is ``{"data": [run, ...], "links": ..., "meta": ...}``, a bare list of runs, one run,
or JSONL with one run per line. A run has ``id``, ``zap_id``, ``start_time``, ``end_time``,
``status``, ``steps`` and ``data_in``/``data_out``; Zapier flattens nested keys as ``a__b``,
which are unflattened here. Statuses: Success → succeeded; Filtered (a filter stopped the run) and
Halted (a step stopped it on purpose) → filtered; Stopped/Errored → failed; Waiting, Delayed,
Scheduled and Playing runs have not finished and give no trace.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness._field import FieldReader, type_name
from harness.errors import ExportFormatError
from harness.importer._run import (
    ImportedRun, decision, load_json_document, step_name, timestamp_or_none, unflatten,
)
from harness.importer.pairing import delivery_id
from harness.manifest import AutomationEntry
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus

STATUSES = {
    "success": TraceStatus.SUCCEEDED,
    "filtered": TraceStatus.FILTERED,
    "halted": TraceStatus.FILTERED,
    "stopped": TraceStatus.FAILED,
    "errored": TraceStatus.FAILED,
    "error": TraceStatus.FAILED,
}
UNFINISHED = {"waiting", "delayed", "scheduled", "playing", "pending", "running"}
LOGIC_TYPES = {"trigger", "filter", "paths", "formatter", "delay", "code"}


def read_runs(path: Path) -> list[Any]:
    """Return the runs of a zap-runs document (JSON or JSONL)."""
    if path.suffix == ".jsonl":
        return _jsonl_runs(path)
    document = load_json_document(path)
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        runs: list[Any] = document["data"]
        return runs
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        return [document]
    raise ExportFormatError(str(path), None, None, f"expected an object or array, got {type_name(document)}")


def _jsonl_runs(path: Path) -> list[Any]:
    runs = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    runs.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ExportFormatError(str(path), f"line {number}", None, f"not valid JSON ({exc.msg})") from None
    return runs


def parse(path: Path, entry: AutomationEntry) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed one) per zap run in the file."""
    for index, run in enumerate(read_runs(path)):
        record = str(run.get("id")) if isinstance(run, dict) and run.get("id") else f"#{index + 1}"
        try:
            yield parse_run(run, entry, str(path), record)
        except ExportFormatError as error:
            yield error


def parse_run(run: Any, entry: AutomationEntry, path: str, record: str) -> ImportedRun:
    """Turn one zap run into a trigger and a legacy trace."""
    if not isinstance(run, dict):
        raise ExportFormatError(path, record, None, f"expected a zap run object, got {type_name(run)}")
    read = FieldReader(run, path, None, error=lambda _p, _l, f, m: ExportFormatError(path, record, f, m))
    raw_status = str(read.string("status")).lower()
    steps = read.array("steps")
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            raise read.fail(f"steps[{index}]", f"expected an object, got {type_name(step)}")
    started = timestamp_or_none(run.get("start_time"))
    if started is None:
        raise read.fail("start_time", "expected an ISO 8601 timestamp with offset")
    trigger = _trigger(run, steps, started, record)
    if raw_status in UNFINISHED:
        return ImportedRun(record, trigger, None, delivery_id(trigger))
    if raw_status not in STATUSES:
        raise read.fail("status", f"unknown zap run status {run['status']!r}")
    trace = _trace(run, steps, STATUSES[raw_status], entry, record)
    return ImportedRun(record, trigger, trace, delivery_id(trigger))


def _trigger(run: dict[str, Any], steps: list[dict[str, Any]], started: Any, record: str) -> RecordedTrigger:
    data = run.get("data_in")
    if not isinstance(data, dict) and steps:
        data = steps[0].get("data_out")
    body = unflatten(data) if isinstance(data, dict) else {}
    trigger = RecordedTrigger(f"zapier-{record}", started, {}, body, f"zapier:zap-run/{record}")
    found = delivery_id(trigger)
    return trigger if found is None else RecordedTrigger(found, started, {}, body, trigger.source)


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
            chosen = (step.get("data_out") or {}).get("path") if kind == "paths" else value
            key, mapped = decision(entry, label, chosen)
            decisions[key] = mapped
        elif kind not in LOGIC_TYPES:
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

"""Import Power Automate / Logic Apps run history, with action records and the flow definition.

Documents: the runs API (``{"value": [run, ...], "nextLink": ...}``), one run, a bare list (what
``m365 flow run list`` prints), or an API example wrapper around either. A run has ``name`` (the
run id), ``properties{status, startTime, endTime, correlation{clientTrackingId}, trigger{name,
inputsLink, outputsLink, status, code}}``; the PnP CLI adds ``status``/``startTime``/``triggerName``
at the top and, with ``--withTrigger``, ``triggerInformation`` (the trigger's downloaded outputs).
Action records sit under the run's ``actions`` (or ``properties.actions``): a list of
``.../runs/{run}/actions`` resources (``{name, properties{status, code, startTime, inputsLink,
outputsLink, error}}``), ``{"value": [...]}``, or an object keyed by action name. A downloaded
export may carry ``inputs``/``outputs`` inline (``m365 flow run get --withActions`` writes them as
``input``/``output``); a link is recorded as unavailable and never fetched (the links expire). A
Foreach's iterations are its record's ``repetitions``. Given on their own, action records,
repetitions, request histories and trigger histories are named for what they are
(``harness.importer.foreign``), not read as runs.

The trigger body is ``triggerInformation`` or the trigger's inline ``outputs`` (an HTTP request's
``{headers, body}``); without either, record the deliveries with ``cutover record`` and the
import pairs each run with one by ``x-ms-client-tracking-id`` (the run's clientTrackingId), then
by time. Statuses: Succeeded → succeeded; Skipped → filtered (trigger conditions not met);
Failed, TimedOut, Aborted, Cancelled → failed; Running, Waiting, Paused, Suspended → no trace.
With action records the path is the actions that ran (not ``Skipped``); with the definition
(``--definition``) each If says ``true``/``false`` and each Switch its case: an untaken branch's
actions are ``Skipped``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import (
    ImportedRun, decision, guarded, load_json_document, obj, status_word, step_name, timestamp_or_none,
)
from harness.importer.definition import unwrap
from harness.importer.foreign import recognise_runs
from harness.platforms.power_automate.definition import PowerAutomateFlow, read_flow
from harness.manifest import AutomationEntry
from harness.recording import Evidence, LegacyTrace, Platform, RecordedTrigger, TraceStatus

STATUSES = {
    "succeeded": TraceStatus.SUCCEEDED,
    "skipped": TraceStatus.FILTERED,
    "failed": TraceStatus.FAILED,
    "timedout": TraceStatus.FAILED,
    "aborted": TraceStatus.FAILED,
    "cancelled": TraceStatus.FAILED,
    "canceled": TraceStatus.FAILED,
}
UNFINISHED = {"running", "waiting", "paused", "suspended", "resuming", "notspecified", "ignored"}
FAILED_ACTION = {"failed", "timedout", "aborted", "cancelled"}
NOT_RUN = {"skipped", "notspecified", "ignored", "waiting"}
def read_runs(path: Path) -> list[tuple[str, Any]]:
    """Return ``(record, run)`` for each run of a run-history document."""
    document = unwrap(load_json_document(path))
    if isinstance(document, dict) and isinstance(document.get("value"), list):
        runs: list[Any] = document["value"]
    elif isinstance(document, list):
        runs = document
    elif isinstance(document, dict):
        runs = [document]
    else:
        raise ExportFormatError(str(path), None, None, f"expected an object or array, got {type_name(document)}")
    kind = recognise_runs(document)
    if kind is not None and kind.not_runs:  # action records, repetitions, request or trigger histories
        raise ExportFormatError(str(path), None, None, f"this is {kind.name}: {kind.not_runs}")
    return [(_record(run, index), run) for index, run in enumerate(runs)]


def _record(run: Any, index: int) -> str:
    name = run.get("name") if isinstance(run, dict) else None
    return name if isinstance(name, str) and name else f"#{index + 1}"


def parse(path: Path, entry: AutomationEntry, definition: Any = None) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed one) per flow run in the file."""
    flow = read_flow(definition) if definition is not None else None
    return guarded(read_runs(path), str(path), lambda run, record: parse_run(run, entry, str(path), record, flow))


def _properties(run: dict[str, Any], path: str, record: str) -> dict[str, Any]:
    props = run.get("properties", {})
    if not isinstance(props, dict):
        raise ExportFormatError(path, record, "properties", f"expected an object, got {type_name(props)}")
    return props


def outcome(raw: Any, path: str, record: str) -> tuple[TraceStatus | None, str | None]:
    """Map a run status to a trace status (``None``: not finished), with a warning when unknown."""
    word = status_word(raw)
    if word is None:
        raise ExportFormatError(path, record, "properties.status", f"expected a status string, got {type_name(raw)}")
    if word in STATUSES:
        return STATUSES[word], None
    if word in UNFINISHED:
        return None, None
    return None, f"run {record}: unknown run status {raw!r}, imported as unfinished (no trace)"


def parse_run(run: Any, entry: AutomationEntry, path: str, record: str, flow: PowerAutomateFlow | None = None) -> ImportedRun:
    """Turn one flow run (with its action records, if any) into a legacy trace and maybe a trigger."""
    if not isinstance(run, dict):
        raise ExportFormatError(path, record, None, f"expected a run object, got {type_name(run)}")
    props = _properties(run, path, record)
    raw_status = props.get("status", run.get("status"))
    if raw_status is None:
        raise ExportFormatError(path, record, "properties.status", "required field is missing")
    status, warning = outcome(raw_status, path, record)
    started = timestamp_or_none(props.get("startTime") or run.get("startTime"))
    if started is None:
        raise ExportFormatError(path, record, "properties.startTime", "expected an ISO 8601 timestamp with offset")
    trigger_props = obj(props.get("trigger"))
    trigger = _trigger(run, trigger_props, started, record)
    tracking = obj(props.get("correlation")).get("clientTrackingId")
    warnings = tuple(w for w in (warning, _link_warning(trigger, trigger_props, record)) if w)
    if status is None:
        return ImportedRun(record, trigger, None, tracking if isinstance(tracking, str) else None, warnings)
    actions = read_actions(run, props, path, record)
    trace = _trace(run, props, status, actions, flow, entry, record)
    return ImportedRun(record, trigger, trace, tracking if isinstance(tracking, str) else None, warnings)


def _link_warning(trigger: RecordedTrigger | None, trigger_props: dict[str, Any], record: str) -> str | None:
    if trigger is None and "outputsLink" in trigger_props:
        return f"run {record}: the trigger's outputs are behind outputsLink (expiring; not fetched): no trigger body"
    return None


def _trigger(run: dict[str, Any], trigger_props: dict[str, Any], started: Any, record: str) -> RecordedTrigger | None:
    info = run.get("triggerInformation")
    outputs = info if isinstance(info, dict) else trigger_props.get("outputs")
    if not isinstance(outputs, dict) or not outputs:
        return None
    headers: dict[str, str] = {}
    body: Any = outputs
    if isinstance(outputs.get("headers"), dict) and "body" in outputs:
        headers = {str(k).lower(): str(v) for k, v in outputs["headers"].items()}
        body = outputs["body"]
    received = timestamp_or_none(trigger_props.get("endTime")) or started
    ident = headers.get("x-ms-client-tracking-id") or f"power-automate-{record}"
    return RecordedTrigger(ident, received, headers, body if isinstance(body, dict) else {"value": body},
                           f"power-automate:run/{record}")


def read_actions(run: dict[str, Any], props: dict[str, Any], path: str, record: str) -> list[tuple[str, dict[str, Any]]] | None:
    """Return ``(name, properties)`` per action record, or ``None`` when the run carries none."""
    raw = run.get("actions", props.get("actions"))
    if raw is None:
        return None
    if isinstance(raw, dict) and isinstance(raw.get("value"), list):
        raw = raw["value"]
    if isinstance(raw, dict):
        raw = [{"name": name, "properties": value} for name, value in raw.items()]
    if not isinstance(raw, list):
        raise ExportFormatError(path, record, "actions", f"expected an array or object of actions, got {type_name(raw)}")
    out: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ExportFormatError(path, record, f"actions[{index}]", "expected an action object with a string 'name'")
        inner = item.get("properties", item)
        if not isinstance(inner, dict):
            raise ExportFormatError(path, record, f"actions[{index}].properties", f"expected an object, got {type_name(inner)}")
        out.append((item["name"], _inline(inner, item, path, record, index)))
    return out


def _inline(inner: dict[str, Any], item: dict[str, Any], path: str, record: str, index: int) -> dict[str, Any]:
    """Return an action record's properties with what exporters put beside them read the same way.

    ``m365 flow run get --withActions`` writes each action's downloaded content as ``input`` and
    ``output`` (singular), inside or beside ``properties``: they are its ``inputs``/``outputs``. A
    Foreach's or Until's ``repetitions`` (``.../actions/{name}/repetitions``: a list, or
    ``{"value": [...]}``) give the action's outputs per iteration, in order, and its status when
    the record has none: failed when an iteration failed.
    """
    props = dict(inner)
    for single, plural in (("output", "outputs"), ("input", "inputs")):
        for source in (inner, item):
            if plural not in props and single in source:
                props[plural] = source[single]
    raw = props.get("repetitions", item.get("repetitions"))
    if raw is None:
        return props
    if isinstance(raw, dict) and isinstance(raw.get("value"), list):
        raw = raw["value"]
    if not isinstance(raw, list):
        raise ExportFormatError(path, record, f"actions[{index}].repetitions", f"expected an array, got {type_name(raw)}")
    iterations = [r.get("properties", r) for r in raw if isinstance(r, dict)]
    iterations.sort(key=lambda r: [i.get("itemIndex", 0) for i in r.get("repetitionIndexes") or [] if isinstance(i, dict)])
    if "status" not in props and iterations:
        words = [status_word(r.get("status")) for r in iterations]
        props["status"] = "Failed" if any(w in FAILED_ACTION for w in words) else "Succeeded"
    if "outputs" not in props and iterations and all("outputs" in r or "output" in r for r in iterations):
        props["outputs"] = [_body(r.get("outputs", r.get("output"))) for r in iterations]
    return props


def _trace(
    run: dict[str, Any], props: dict[str, Any], status: TraceStatus, actions: list[tuple[str, dict[str, Any]]] | None,
    flow: PowerAutomateFlow | None, entry: AutomationEntry, record: str,
) -> LegacyTrace:
    workflow = obj(props.get("workflow"))
    base = dict(
        trigger_id="", status=status, platform=Platform.POWER_AUTOMATE, raw_run_id=record,
        workflow=str(workflow["name"]) if isinstance(workflow.get("name"), str) else None,
        started_at=timestamp_or_none(props.get("startTime") or run.get("startTime")),
        finished_at=timestamp_or_none(props.get("endTime") or run.get("endTime")),
        error=_run_error(props),
    )
    if actions is None:
        return LegacyTrace(**base, evidence=(Evidence.STATUS,))  # type: ignore[arg-type]
    ran = _ran(actions, flow)
    path = [n for name in ran if (n := step_name(entry, name)) is not None]
    outputs = {step_name(entry, name) or name: _body(p["outputs"]) for name, p in actions if name in ran and "outputs" in p}
    failed = next((name for name, p in actions if status_word(p.get("status")) in FAILED_ACTION), None)
    evidence = [Evidence.STATUS, Evidence.PATH]
    decisions: dict[str, Any] = {}
    if flow is not None:
        decisions = _decisions(flow, set(ran), dict(actions), entry)
        evidence.append(Evidence.DECISIONS)
    if ran and all("outputs" in dict(actions)[name] for name in ran):
        evidence.append(Evidence.OUTPUTS)
    base["error"] = base["error"] or (_action_error(dict(actions)[failed], failed) if failed else None)
    return LegacyTrace(**base, path=path, decisions=decisions, outputs=outputs,  # type: ignore[arg-type]
                       failed_step=step_name(entry, failed) if failed else None, evidence=tuple(evidence))


def _ran(actions: list[tuple[str, dict[str, Any]]], flow: PowerAutomateFlow | None) -> list[str]:
    """Return the names of the actions that ran, in definition order (else by start time)."""
    ran = {name: p for name, p in actions if status_word(p.get("status")) not in NOT_RUN}
    if flow is not None:
        ordered = [a.name for a in flow.actions if a.name in ran]
        return ordered + sorted(n for n in ran if n not in ordered)
    return sorted(ran, key=lambda n: (str(ran[n].get("startTime") or ""), n))


def _decisions(flow: PowerAutomateFlow, ran: set[str], records: dict[str, dict[str, Any]], entry: AutomationEntry) -> dict[str, Any]:
    decisions: dict[str, Any] = {}
    for branch in flow.branches():
        if branch.name not in ran:
            continue
        value = _taken(flow, branch.name, branch.type, ran, records.get(branch.name, {}))
        if value is not None:
            name, mapped = decision(entry, branch.name, value)
            decisions[name] = mapped
    return decisions


def _taken(flow: PowerAutomateFlow, name: str, kind: str, ran: set[str], record: dict[str, Any]) -> str | None:
    outputs = record.get("outputs")
    if kind == "if" and isinstance(outputs, dict) and isinstance(outputs.get("expression"), bool):
        return "true" if outputs["expression"] else "false"
    labels = ["true", "false"] if kind == "if" else sorted({a.branch for a in flow.actions if a.parent == name and a.branch})
    taken = [label for label in labels if any(a in ran for a in flow.inside(name, label))]
    if len(taken) == 1:
        return taken[0]
    if not taken and kind == "if":
        empty = [label for label in labels if not flow.inside(name, label)]
        return empty[0] if len(empty) == 1 else None
    return None


def _body(outputs: Any) -> Any:
    return outputs["body"] if isinstance(outputs, dict) and "body" in outputs and set(outputs) <= {"body", "headers", "statusCode"} else outputs


def _run_error(props: dict[str, Any]) -> str | None:
    error = props.get("error")
    if isinstance(error, dict):
        return f"{error.get('code') or 'Error'}: {error.get('message') or 'run failed'}"
    return None


def _action_error(props: dict[str, Any], name: str) -> str:
    error = props.get("error")
    if isinstance(error, dict):
        return f"{name}: {error.get('code') or props.get('code') or 'Error'}: {error.get('message') or 'action failed'}"
    return f"{name}: {props.get('code') or 'action failed'}"

"""Import n8n executions: the public API's shapes and the older ones.

Accepted documents: ``GET /executions?includeData=true`` (``{"data": [...], "nextCursor": ...}``),
a bare list of executions, one execution (with or without ``workflowData``), an execution whose
``data`` is a string (JSON or n8n's ``flatted`` serialisation, as stored in its database), and a
bare run-data document (``{"resultData": {"runData": ...}}``).

From each execution: the trigger is the output of the trigger/webhook node (for a Schedule Trigger or
Cron node, a ``source = "schedule"`` trigger received at the tick: the Schedule Trigger's
``timestamp`` field, else the node's start, to the whole second); the path is the other
nodes in ``startTime`` order (ties: ``executionIndex``, then order in ``runData``); an IF/Switch
node's decision is the index of its non-empty output (IF: ``"true"``/``"false"``; Switch: the
output's name when ``workflowData`` gives one); outputs are each node's item ``json``; HTTP
Request nodes with literal parameters become calls. A polling trigger's execution gives one
trigger per polled item, and ``[automations.<name>.items]`` splits a trace at a fan-out node
(:mod:`harness.platforms.n8n.items`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import ImportedRun, flat, guarded, load_json_document, timestamp_or_none
from harness.importer.pairing import delivery_id
from harness.manifest import AutomationEntry
from harness.platforms.n8n import items as by_item
from harness.platforms.n8n.definition import Node, read_nodes
from harness.platforms.n8n.error_class import execution_error_class
from harness.platforms.n8n.runs import (
    SCHEDULE_SOURCE, NodeRun, build_trace, find_trigger, is_schedule, ordered_runs, received_at, run_status,
)
from harness.recording import Evidence, LegacyTrace, RecordedTrigger, TraceStatus

TYPED_EVIDENCE = (Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS, Evidence.CALLS, Evidence.OUTPUTS)
UNTYPED_EVIDENCE = (Evidence.STATUS, Evidence.PATH, Evidence.OUTPUTS)


def parse(path: Path, entry: AutomationEntry, definition: Any = None) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed one) per execution in the file.

    ``definition`` is the workflow (one, or a list from ``export:workflow --all``): it gives node
    types and settings to executions that carry no ``workflowData``.
    """
    found = executions(load_json_document(path), str(path))
    records = [(_record_id(execution, index), execution) for index, execution in enumerate(found)]
    return flat(guarded(records, str(path), lambda execution, record: parse_execution_runs(
        _with_workflow(execution, definition), entry, str(path), record)))


def _record_id(execution: Any, index: int) -> str:
    ident = execution.get("id") if isinstance(execution, dict) else None
    return str(ident) if isinstance(ident, str | int) and not isinstance(ident, bool) else f"#{index + 1}"


def _with_workflow(execution: Any, definition: Any) -> Any:
    if not isinstance(execution, dict) or isinstance(execution.get("workflowData"), dict) or definition is None:
        return execution
    workflows = definition if isinstance(definition, list) else [definition]
    wanted = execution.get("workflowId")
    chosen = [w for w in workflows if isinstance(w, dict) and wanted is not None and str(w.get("id")) == str(wanted)]
    if not chosen and len(workflows) == 1:
        chosen = workflows
    return {**execution, "workflowData": chosen[0]} if chosen else execution


def executions(document: Any, path: str) -> list[Any]:
    """Return the executions in any accepted document shape."""
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        raise ExportFormatError(path, None, None, f"expected an object or array, got {type_name(document)}")
    if isinstance(document.get("data"), list):
        listed: list[Any] = document["data"]
        return listed
    if "resultData" in document:
        return [{"data": document}]
    return [document]


def decode_data(value: Any, path: str, record: str) -> dict[str, Any]:
    """Return an execution's ``data``, decoding a JSON or ``flatted`` string."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ExportFormatError(path, record, "data", "a string that is not JSON") from None
        if isinstance(value, list) and value:
            value = unflatted(value)
    if value is None:
        raise ExportFormatError(path, record, "data", "the execution carries no run data: list executions "
                                "with includeData=true (GET /api/v1/executions?includeData=true)")
    if not isinstance(value, dict):
        raise ExportFormatError(path, record, "data", f"expected an object, got {type_name(value)}")
    return value


def unflatted(table: list[Any]) -> Any:
    """Rebuild a value serialised with ``flatted`` (every string in a container is a table index)."""
    built: dict[int, Any] = {}

    def resolve(index: int) -> Any:
        if index in built:
            return built[index]
        raw = table[index]
        if isinstance(raw, dict):
            built[index] = out = {}
            out.update({k: resolve(int(v)) if isinstance(v, str) else v for k, v in raw.items()})
            return out
        if isinstance(raw, list):
            items: list[Any] = []
            built[index] = items
            items.extend(resolve(int(v)) if isinstance(v, str) else v for v in raw)
            return items
        return raw

    return resolve(0)


def parse_execution(execution: Any, entry: AutomationEntry, path: str, record: str) -> ImportedRun:
    """Turn one execution into a trigger and a legacy trace (a polled execution: its first item's)."""
    runs = parse_execution_runs(execution, entry, path, record)
    if not runs:
        raise ExportFormatError(path, record, "data.resultData.runData", "the polling trigger emitted no items")
    return runs[0]


def parse_execution_runs(execution: Any, entry: AutomationEntry, path: str, record: str) -> list[ImportedRun]:
    """Turn one execution into its imported runs: one, or one per item a polling trigger emitted.

    With ``entry.items.from_node`` the trace carries one item per output item of that node
    (:mod:`harness.platforms.n8n.items`). Raises ExportFormatError for a malformed execution.
    """
    if not isinstance(execution, dict):
        raise ExportFormatError(path, record, None, f"expected an execution object, got {type_name(execution)}")
    data = decode_data(execution.get("data"), path, record)
    result = data.get("resultData")
    if not isinstance(result, dict) or not isinstance(result.get("runData"), dict):
        raise ExportFormatError(path, record, "data.resultData.runData", "required object is missing")
    nodes = read_nodes(execution.get("workflowData"))
    runs = ordered_runs(result["runData"], nodes, path, record)
    trigger_run = find_trigger(runs)
    evidence = TYPED_EVIDENCE if nodes else UNTYPED_EVIDENCE
    if trigger_run is not None and by_item.is_polling(trigger_run):
        polled = by_item.poll_runs(execution, result, runs, trigger_run, entry, path, record, evidence)
        return [replace(r, trace=_with_error_class(r.trace, result, runs)) for r in polled]
    trigger = _trigger(trigger_run, execution, path, record) if trigger_run else None
    if entry.items is not None and entry.items.from_node is not None:
        _check_node(entry.items.from_node, nodes, path, record)
        trace = by_item.fan_out_trace(execution, result, runs, trigger_run, entry, path, record)
    else:
        status = run_status(execution, result, runs)
        trace = None if status is None else build_trace(execution, result, runs, trigger_run, status, entry, record)
    if trace is not None:
        trace = _with_error_class(replace(trace, evidence=evidence), result, runs)
    warnings = () if nodes or trace is None else (
        f"execution {record}: no workflowData, so IF/Switch decisions and HTTP calls are guessed from output "
        "indexes and not compared (pass the workflow with --definition)",)
    return [ImportedRun(record, trigger, trace, delivery_id(trigger) if trigger else None, warnings)]


def _with_error_class(trace: LegacyTrace | None, result: dict[str, Any], runs: list[NodeRun]) -> LegacyTrace | None:
    """A failed trace with the class of the error that ended it (harness.error_class), where n8n recorded one."""
    if trace is None or trace.status is not TraceStatus.FAILED:
        return trace
    failing = [r.task for r in runs if r.task.get("executionStatus") == "error"]
    return replace(trace, error_class=execution_error_class(result, failing))


def _check_node(name: str, nodes: dict[str, Node], path: str, record: str) -> None:
    if nodes and name not in nodes:
        raise ExportFormatError(path, record, "workflowData.nodes", f"has no node {name!r} (the manifest's items.from)")


def _trigger(run: NodeRun, execution: dict[str, Any], path: str, record: str) -> RecordedTrigger:
    items = [item for out in run.outputs() for item in out]
    first = items[0].get("json", {}) if items and isinstance(items[0], dict) else {}
    if is_schedule(run):
        return _tick(run, first if isinstance(first, dict) else {}, execution, path, record)
    webhook = isinstance(first, dict) and isinstance(first.get("headers"), dict) and "body" in first
    body = first.get("body") if webhook else first
    headers = {str(k).lower(): str(v) for k, v in first["headers"].items()} if webhook else {}
    received = received_at(run.task.get("startTime"), timestamp_or_none(execution.get("startedAt")))
    if received is None:
        raise ExportFormatError(path, record, "startedAt", "no startTime or startedAt to date the trigger")
    trigger = RecordedTrigger(
        id=f"n8n-{record}",
        received_at=received,
        headers=headers,
        body=body if isinstance(body, dict) else {"value": body},
        source=f"n8n:execution/{record}",
    )
    found = delivery_id(trigger)
    return trigger if found is None else RecordedTrigger(found, received, headers, trigger.body, trigger.source)


def _tick(run: NodeRun, item: dict[str, Any], execution: dict[str, Any], path: str, record: str) -> RecordedTrigger:
    """The trigger of a scheduled run: the tick's item as body, received at the tick.

    n8n's Schedule Trigger emits the tick's time in the workflow's timezone (``timestamp``, with
    its offset, a few milliseconds after the tick) and its parts (``Hour``, ``Day of week``...);
    the Cron node emits an empty item, so its node's start dates the tick. Ticks fall on whole
    seconds: the milliseconds are the firing latency and are dropped.
    """
    started = timestamp_or_none(execution.get("startedAt"))
    tick = timestamp_or_none(item.get("timestamp")) or received_at(run.task.get("startTime"), started)
    if tick is None:
        raise ExportFormatError(path, record, "startedAt", "no timestamp, startTime or startedAt to date the tick")
    tick = tick.astimezone(UTC).replace(microsecond=0)
    return RecordedTrigger(id=f"n8n-{record}", received_at=tick, headers={}, body=dict(item), source=SCHEDULE_SOURCE)

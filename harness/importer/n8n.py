"""Import n8n executions: the public API's shapes and the older ones.

Accepted documents: ``GET /executions?includeData=true`` (``{"data": [...], "nextCursor": ...}``),
a bare list of executions, one execution (with or without ``workflowData``), an execution whose
``data`` is a string (JSON or n8n's ``flatted`` serialisation, as stored in its database), and a
bare run-data document (``{"resultData": {"runData": ...}}``).

From each execution: the trigger is the output of the trigger/webhook node; the path is the other
nodes in ``startTime`` order (ties: ``executionIndex``, then order in ``runData``); an IF/Switch
node's decision is the index of its non-empty output (IF: ``"true"``/``"false"``; Switch: the
output's name when ``workflowData`` gives one); outputs are each node's item ``json``; HTTP
Request nodes with literal parameters become calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import (
    ImportedRun, decision, epoch_ms, load_json_document, split_url, step_name, timestamp_or_none,
)
from harness.importer.pairing import delivery_id
from harness.manifest import AutomationEntry
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus

FINISHED = {"success": TraceStatus.SUCCEEDED, "error": TraceStatus.FAILED, "crashed": TraceStatus.FAILED,
            "canceled": TraceStatus.FAILED}
UNFINISHED = {"waiting", "running", "new", "unknown"}
IF_TYPES = ("n8n-nodes-base.if",)
SWITCH_TYPES = ("n8n-nodes-base.switch",)
FILTER_TYPES = ("n8n-nodes-base.filter",)
HTTP_TYPES = ("n8n-nodes-base.httpRequest",)


@dataclass(frozen=True)
class NodeRun:
    """One run of one node, in execution order."""

    name: str
    task: dict[str, Any]
    node: dict[str, Any]

    @property
    def type(self) -> str:
        """Return the node's type (``""`` when the export has no ``workflowData``)."""
        return str(self.node.get("type", ""))

    def outputs(self) -> list[list[dict[str, Any]]]:
        """Return the node's main outputs: one list of items per output index."""
        main = (self.task.get("data") or {}).get("main") or []
        return [list(out or []) for out in main]


def parse(path: Path, entry: AutomationEntry) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed one) per execution in the file."""
    for index, execution in enumerate(executions(load_json_document(path), str(path))):
        record = str(execution.get("id", f"#{index + 1}")) if isinstance(execution, dict) else f"#{index + 1}"
        try:
            yield parse_execution(execution, entry, str(path), record)
        except ExportFormatError as error:
            yield error


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
    """Turn one execution into a trigger and a legacy trace."""
    if not isinstance(execution, dict):
        raise ExportFormatError(path, record, None, f"expected an execution object, got {type_name(execution)}")
    data = decode_data(execution.get("data"), path, record)
    result = data.get("resultData")
    if not isinstance(result, dict) or not isinstance(result.get("runData"), dict):
        raise ExportFormatError(path, record, "data.resultData.runData", "required object is missing")
    nodes = _workflow_nodes(execution.get("workflowData"))
    runs = ordered_runs(result["runData"], nodes, path, record)
    trigger_run = find_trigger(runs)
    trigger = _trigger(trigger_run, execution, path, record) if trigger_run else None
    status = _status(execution, result, runs)
    trace = None if status is None else _trace(execution, result, runs, trigger_run, status, entry, record)
    return ImportedRun(record, trigger, trace, delivery_id(trigger) if trigger else None)


def _workflow_nodes(workflow: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(workflow, dict):
        return {}
    return {n["name"]: n for n in workflow.get("nodes", []) if isinstance(n, dict) and "name" in n}


def ordered_runs(run_data: dict[str, Any], nodes: dict[str, Any], path: str, record: str) -> list[NodeRun]:
    """Return node runs sorted by startTime, then executionIndex, then order in runData."""
    keyed: list[tuple[tuple[float, float, int], NodeRun]] = []
    for position, (name, tasks) in enumerate(run_data.items()):
        if not isinstance(tasks, list):
            raise ExportFormatError(path, record, f"data.resultData.runData.{name}", "expected an array of runs")
        for task in tasks:
            if not isinstance(task, dict):
                raise ExportFormatError(path, record, f"data.resultData.runData.{name}", "expected run objects")
            start = task.get("startTime", 0)
            order = task.get("executionIndex", position)
            keyed.append(((start, order, position), NodeRun(name, task, nodes.get(name, {}))))
    keyed.sort(key=lambda pair: pair[0])
    return [run for _, run in keyed]


def find_trigger(runs: list[NodeRun]) -> NodeRun | None:
    """Return the trigger node's run: a Trigger/webhook type, else the first run with no source."""
    for run in runs:
        kind = run.type.lower()
        if kind.endswith("trigger") or kind.endswith("webhook"):
            return run
    for run in runs:
        if not run.task.get("source"):
            return run
    return None


def _trigger(run: NodeRun, execution: dict[str, Any], path: str, record: str) -> RecordedTrigger:
    items = [item for out in run.outputs() for item in out]
    first = items[0].get("json", {}) if items and isinstance(items[0], dict) else {}
    webhook = isinstance(first, dict) and isinstance(first.get("headers"), dict) and "body" in first
    body = first.get("body") if webhook else first
    headers = {str(k).lower(): str(v) for k, v in first["headers"].items()} if webhook else {}
    received = epoch_ms(run.task.get("startTime")) or timestamp_or_none(execution.get("startedAt"))
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


def _status(execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun]) -> TraceStatus | None:
    status = execution.get("status")
    if result.get("error") or any(r.task.get("executionStatus") == "error" for r in runs):
        return TraceStatus.FAILED
    if status in FINISHED:
        return FINISHED[status]
    if status in UNFINISHED or execution.get("waitTill") or execution.get("finished") is False:
        return None
    if runs and runs[-1].type in FILTER_TYPES and not any(runs[-1].outputs()[0:1] or [[]]):
        return TraceStatus.FILTERED
    return TraceStatus.SUCCEEDED


def _branch(run: NodeRun) -> Any:
    outputs = run.outputs()
    chosen = [i for i, items in enumerate(outputs) if items]
    if run.type not in IF_TYPES + SWITCH_TYPES and (run.type or len(outputs) < 2):
        return None
    if not chosen:
        return None
    names = _output_names(run)
    values = [names[i] if i < len(names) else str(i) for i in chosen]
    return values[0] if len(values) == 1 else values


def _output_names(run: NodeRun) -> list[str]:
    if run.type in IF_TYPES:
        return ["true", "false"]
    rules = ((run.node.get("parameters") or {}).get("rules") or {}).get("values") or []
    return [str(r.get("outputKey") or i) for i, r in enumerate(rules) if isinstance(r, dict)]


def _items_json(run: NodeRun) -> Any:
    items = [item.get("json") for out in run.outputs() for item in out if isinstance(item, dict)]
    return items[0] if len(items) == 1 else items


def _call(run: NodeRun, step: str, entry: AutomationEntry) -> dict[str, Any] | None:
    if run.type not in HTTP_TYPES:
        return None
    params = run.node.get("parameters") or {}
    url = params.get("url")
    url = url if isinstance(url, str) and not url.startswith("=") else None
    provider, target = split_url(entry, url) if url else (None, None)
    body = params.get("jsonBody")
    if isinstance(body, str) and not body.startswith("="):
        try:
            body = json.loads(body)
        except json.JSONDecodeError:
            pass
    elif isinstance(body, str):
        body = None
    return {"step": step, "provider": provider, "method": str(params.get("method", "GET")).upper(),
            "url": target, "body": body}


def _trace(
    execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun], trigger: NodeRun | None,
    status: TraceStatus, entry: AutomationEntry, record: str,
) -> LegacyTrace:
    path: list[str] = []
    decisions: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    outputs: dict[str, Any] = {}
    for run in runs:
        step = step_name(entry, run.name)
        if run is trigger or step is None:
            continue
        path.append(step)
        outputs[step] = _items_json(run)
        if (branch := _branch(run)) is not None:
            name, value = decision(entry, run.name, branch)
            decisions[name] = value
        if (call := _call(run, step, entry)) is not None:
            calls.append(call)
    error, failed = _error(result, runs, entry)
    workflow = execution.get("workflowId") or (execution.get("workflowData") or {}).get("name")
    return LegacyTrace(
        trigger_id="", status=status, platform=Platform.N8N, path=path, decisions=decisions,
        calls=calls, outputs=outputs, error=error, failed_step=failed, raw_run_id=record,
        workflow=str(workflow) if workflow else None,
        started_at=timestamp_or_none(execution.get("startedAt")),
        finished_at=timestamp_or_none(execution.get("stoppedAt")),
    )


def _error(result: dict[str, Any], runs: list[NodeRun], entry: AutomationEntry) -> tuple[str | None, str | None]:
    failing = [r for r in runs if r.task.get("executionStatus") == "error"]
    error = result.get("error") or (failing[-1].task.get("error") if failing else None)
    if not isinstance(error, dict):
        return None, None
    node = (error.get("node") or {}).get("name") or (failing[-1].name if failing else result.get("lastNodeExecuted"))
    message = str(error.get("message") or error.get("description") or "error")
    step = step_name(entry, node) if node else None
    return (f"{node}: {message}" if node else message), step

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
(:mod:`harness.importer.n8n_items`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import (
    ImportedRun, decision, epoch_ms, flat, guarded, load_json_document, obj, split_url, status_word, step_name,
    timestamp_or_none,
)
from harness.importer.pairing import delivery_id
from harness.manifest import AutomationEntry
from harness.recording import Evidence, LegacyTrace, Platform, RecordedTrigger, TraceStatus

FINISHED = {"success": TraceStatus.SUCCEEDED, "error": TraceStatus.FAILED, "crashed": TraceStatus.FAILED,
            "canceled": TraceStatus.FAILED}
UNFINISHED = {"waiting", "running", "new", "unknown"}
IF_TYPES = ("n8n-nodes-base.if",)
SWITCH_TYPES = ("n8n-nodes-base.switch",)
FILTER_TYPES = ("n8n-nodes-base.filter",)
HTTP_TYPES = ("n8n-nodes-base.httpRequest",)
# Nodes that start a run on a timer: the trigger is a tick, not a delivery.
SCHEDULE_TYPES = ("n8n-nodes-base.scheduletrigger", "n8n-nodes-base.cron")
SCHEDULE_SOURCE = "schedule"
ERROR_OUTPUT = "continueErrorOutput"
# A node's startTime further than this from the execution's startedAt is not a clock reading
# (test fixtures and some imports write 1); the execution's own start dates the trigger then.
CLOCK_SKEW = timedelta(days=1)
TYPED_EVIDENCE = (Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS, Evidence.CALLS, Evidence.OUTPUTS)
UNTYPED_EVIDENCE = (Evidence.STATUS, Evidence.PATH, Evidence.OUTPUTS)


@dataclass(frozen=True)
class NodeRun:
    """One run of one node, in execution order."""

    name: str
    task: dict[str, Any]
    node: dict[str, Any]
    run: int = 0  # which of the node's runs (its index in runData.<node>)

    @property
    def type(self) -> str:
        """Return the node's type (``""`` when the export has no ``workflowData``)."""
        return str(self.node.get("type", ""))

    def outputs(self) -> list[list[dict[str, Any]]]:
        """Return the node's main outputs: one list of items per output index."""
        main = obj(self.task.get("data")).get("main")
        return [out if isinstance(out, list) else [] for out in main] if isinstance(main, list) else []


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
    (:mod:`harness.importer.n8n_items`). Raises ExportFormatError for a malformed execution.
    """
    from harness.importer import n8n_items  # it builds on this module's node helpers

    if not isinstance(execution, dict):
        raise ExportFormatError(path, record, None, f"expected an execution object, got {type_name(execution)}")
    data = decode_data(execution.get("data"), path, record)
    result = data.get("resultData")
    if not isinstance(result, dict) or not isinstance(result.get("runData"), dict):
        raise ExportFormatError(path, record, "data.resultData.runData", "required object is missing")
    nodes = _workflow_nodes(execution.get("workflowData"))
    runs = ordered_runs(result["runData"], nodes, path, record)
    trigger_run = find_trigger(runs)
    evidence = TYPED_EVIDENCE if nodes else UNTYPED_EVIDENCE
    if trigger_run is not None and n8n_items.is_polling(trigger_run):
        return n8n_items.poll_runs(execution, result, runs, trigger_run, entry, path, record, evidence)
    trigger = _trigger(trigger_run, execution, path, record) if trigger_run else None
    if entry.items is not None and entry.items.from_node is not None:
        _check_node(entry.items.from_node, nodes, path, record)
        trace = n8n_items.fan_out_trace(execution, result, runs, trigger_run, entry, path, record)
    else:
        status = run_status(execution, result, runs)
        trace = None if status is None else build_trace(execution, result, runs, trigger_run, status, entry, record)
    if trace is not None:
        trace = replace(trace, evidence=evidence)
    warnings = () if nodes or trace is None else (
        f"execution {record}: no workflowData, so IF/Switch decisions and HTTP calls are guessed from output "
        "indexes and not compared (pass the workflow with --definition)",)
    return [ImportedRun(record, trigger, trace, delivery_id(trigger) if trigger else None, warnings)]


def _check_node(name: str, nodes: dict[str, dict[str, Any]], path: str, record: str) -> None:
    if nodes and name not in nodes:
        raise ExportFormatError(path, record, "workflowData.nodes", f"has no node {name!r} (the manifest's items.from)")


def _workflow_nodes(workflow: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(workflow, dict):
        return {}
    nodes = workflow.get("nodes")
    return {n["name"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("name"), str)} if isinstance(nodes, list) else {}


def ordered_runs(run_data: dict[str, Any], nodes: dict[str, Any], path: str, record: str) -> list[NodeRun]:
    """Return node runs sorted by startTime, then executionIndex, then order in runData."""
    keyed: list[tuple[tuple[float, float, int], NodeRun]] = []
    for position, (name, tasks) in enumerate(run_data.items()):
        if not isinstance(tasks, list):
            raise ExportFormatError(path, record, f"data.resultData.runData.{name}", "expected an array of runs")
        for run, task in enumerate(tasks):
            if not isinstance(task, dict):
                raise ExportFormatError(path, record, f"data.resultData.runData.{name}", "expected run objects")
            start = _number(task.get("startTime"), 0)
            order = _number(task.get("executionIndex"), position)
            keyed.append(((start, order, position), NodeRun(name, task, nodes.get(name, {}), run)))
    keyed.sort(key=lambda pair: pair[0])
    return [run for _, run in keyed]


def _number(value: Any, default: float) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
        return float(value) if abs(value) < 1e300 else default
    return default


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


def is_schedule(run: NodeRun) -> bool:
    """Return whether a trigger node is a Schedule Trigger or Cron node (its runs are ticks)."""
    return run.type.lower() in SCHEDULE_TYPES


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


def received_at(start_time: Any, started_at: datetime | None) -> datetime | None:
    """Date a trigger by its node's ``startTime`` unless that is no clock reading, else ``startedAt``."""
    node = epoch_ms(start_time)
    if node is None:
        return started_at
    if started_at is not None:
        return node if abs(node - started_at) <= CLOCK_SKEW else started_at
    return node if node.year >= 2000 else None


def run_status(execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun]) -> TraceStatus | None:
    """Return how an execution ended, judged on ``runs``; ``None`` while it has not finished."""
    status = status_word(execution.get("status"))
    if result.get("error") or any(r.task.get("executionStatus") == "error" for r in runs):
        return TraceStatus.FAILED
    if status in FINISHED:
        return FINISHED[status]
    if status in UNFINISHED or execution.get("waitTill") or execution.get("finished") is False:
        return None
    if runs and runs[-1].type in FILTER_TYPES and not any(runs[-1].outputs()[0:1] or [[]]):
        return TraceStatus.FILTERED
    return TraceStatus.SUCCEEDED


def branch_of(run: NodeRun) -> Any:
    """Return the output a branching node took (its decision), or ``None`` for a non-branch.

    A node set to "continue (using error output)" decides between ``success`` and ``error`` (the
    error output is its last); IF and Switch add ``error`` to their own outputs. Without node
    types (no workflowData), a node with several outputs decides by index, unless the items it
    emitted are error items (a Set node's error output is no branch).
    """
    outputs = run.outputs()
    chosen = [i for i, items in enumerate(outputs) if items]
    if not chosen:
        return None
    errors_out = run.node.get("onError") == ERROR_OUTPUT and len(outputs) > 1
    if run.type not in IF_TYPES + SWITCH_TYPES:
        if errors_out:
            return "error" if outputs[-1] else "success"
        if run.type or len(outputs) < 2 or _only_error_items(outputs, chosen):
            return None
    names = _output_names(run)
    values = ["error" if errors_out and i == len(outputs) - 1 else names[i] if i < len(names) else str(i) for i in chosen]
    return values[0] if len(values) == 1 else values


def _only_error_items(outputs: list[list[dict[str, Any]]], chosen: list[int]) -> bool:
    items = [item for i in chosen for item in outputs[i]]
    return all(isinstance(item, dict) and isinstance(item.get("json"), dict) and "error" in item["json"] for item in items)


def _output_names(run: NodeRun) -> list[str]:
    if run.type in IF_TYPES:
        return ["true", "false"]
    rules = obj(obj(obj(run.node.get("parameters")).get("rules"))).get("values")
    return [str(r.get("outputKey") or i) for i, r in enumerate(rules) if isinstance(r, dict)] if isinstance(rules, list) else []


def items_json(run: NodeRun) -> Any:
    """Return a run's output items' ``json``: the one item's, else the list of them."""
    items = [item.get("json") for out in run.outputs() for item in out if isinstance(item, dict)]
    return items[0] if len(items) == 1 else items


def http_call(run: NodeRun, step: str, entry: AutomationEntry) -> dict[str, Any] | None:
    """Return the call an HTTP Request node with literal parameters made; ``None`` for other nodes."""
    if run.type not in HTTP_TYPES:
        return None
    params = obj(run.node.get("parameters"))
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


def add_run(run: NodeRun, entry: AutomationEntry, path: list[str], decisions: dict[str, Any],
            calls: list[dict[str, Any]], outputs: dict[str, Any]) -> str | None:
    """Add one node run to a trace's parts (its decision, step, output, call); return its step.

    A branch node mapped to "" leaves the path but keeps its decision; None: no step.
    """
    if (branch := branch_of(run)) is not None:
        name, value = decision(entry, run.name, branch)
        decisions[name] = value
    step = step_name(entry, run.name)
    if step is None:
        return None
    path.append(step)
    outputs[step] = items_json(run)
    if (call := http_call(run, step, entry)) is not None:
        calls.append(call)
    return step


def build_trace(
    execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun], trigger: NodeRun | None,
    status: TraceStatus, entry: AutomationEntry, record: str,
) -> LegacyTrace:
    """Return the trace of ``runs`` (the trigger's run left out): path, decisions, calls, outputs, error."""
    path: list[str] = []
    decisions: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    outputs: dict[str, Any] = {}
    for run in runs:
        if run is not trigger:
            add_run(run, entry, path, decisions, calls, outputs)
    error, failed = run_error(result, runs, entry)
    workflow = execution.get("workflowId") or (execution.get("workflowData") or {}).get("name")
    return LegacyTrace(
        trigger_id="", status=status, platform=Platform.N8N, path=path, decisions=decisions,
        calls=calls, outputs=outputs, error=error, failed_step=failed, raw_run_id=record,
        workflow=str(workflow) if workflow else None,
        started_at=timestamp_or_none(execution.get("startedAt")),
        finished_at=timestamp_or_none(execution.get("stoppedAt")),
    )


def run_error(result: dict[str, Any], runs: list[NodeRun], entry: AutomationEntry) -> tuple[str | None, str | None]:
    """Return the execution's error (``"<node>: <message>"``) and the step that failed."""
    failing = [r for r in runs if r.task.get("executionStatus") == "error"]
    error = result.get("error") or (failing[-1].task.get("error") if failing else None)
    if not isinstance(error, dict):
        return None, None
    node = (error.get("node") or {}).get("name") or (failing[-1].name if failing else result.get("lastNodeExecuted"))
    message = str(error.get("message") or error.get("description") or "error")
    step = step_name(entry, node) if node else None
    return (f"{node}: {message}" if node else message), step

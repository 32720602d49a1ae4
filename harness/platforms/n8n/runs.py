"""One n8n execution's node runs, in execution order, and the legacy trace they make.

``ordered_runs`` sorts ``runData`` by ``startTime`` (ties: ``executionIndex``, then order in
``runData``); ``build_trace`` turns the runs into a path, decisions (an IF/Switch node's decision
is the index of its non-empty output: IF ``"true"``/``"false"``, Switch the output's name when the
workflow gives one), outputs (each node's item ``json``), every node's output items per output
index (``nodes``, capped as the runtime caps them) and calls (HTTP Request nodes with literal
parameters, their query parameters kept in the URL). ``harness.platforms.n8n.history`` reads executions with these; ``items`` splits them
item by item.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from harness.errors import ExportFormatError
from harness.importer._run import decision, epoch_ms, obj, split_url, status_word, step_name, timestamp_or_none
from harness.manifest import AutomationEntry
from harness.platforms.n8n.definition import Node
from harness.recording import LegacyTrace, Platform, TraceStatus
from harness.platforms.n8n.shell_runs import shell_calls
from harness.platforms.n8n.sql_runs import Inputs, input_items, sql_call
from queue_core.compat.n8n import recorded_outputs

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
ERROR_OUTPUT = "error_output"  # a node set to "continue (using error output)" (Node.on_error)
# A node's startTime further than this from the execution's startedAt is not a clock reading
# (test fixtures and some imports write 1); the execution's own start dates the trigger then.
CLOCK_SKEW = timedelta(days=1)

@dataclass(frozen=True)
class NodeRun:
    """One run of one node, in execution order."""

    name: str
    task: dict[str, Any]
    node: Node  # from workflowData; a node of no type when the export has none
    run: int = 0  # which of the node's runs (its index in runData.<node>)

    @property
    def type(self) -> str:
        """Return the node's type (``""`` when the export has no ``workflowData``)."""
        return self.node.type

    def outputs(self) -> list[list[dict[str, Any]]]:
        """Return the node's main outputs: one list of items per output index."""
        main = obj(self.task.get("data")).get("main")
        return [out if isinstance(out, list) else [] for out in main] if isinstance(main, list) else []


def _untyped(name: str) -> Node:
    """The node of a run the export's workflow does not describe (or the export carries no workflow)."""
    return Node(name, "", 1.0, {})


def ordered_runs(run_data: dict[str, Any], nodes: dict[str, Node], path: str, record: str) -> list[NodeRun]:
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
            keyed.append(((start, order, position), NodeRun(name, task, nodes.get(name) or _untyped(name), run)))
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
    errors_out = run.node.on_error == ERROR_OUTPUT and len(outputs) > 1
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
    return output_names(run.node) if run.type in IF_TYPES + SWITCH_TYPES else []


def output_names(node: Node) -> list[str]:
    """Return the names of a branching node's outputs, in output order (empty for other nodes).

    The one reading of these names: the importer records a decision by them, branch coverage
    counts them, and the scaffold routes to them. Read from ``node.settings`` (n8n's defaults
    put back). IF: ``true``, ``false``. Switch v1: ``0``-``3``. v2: each rule of ``rules.rules``
    by its ``outputKey``, else its index. v3+: each rule of ``rules.values`` by its ``outputKey``
    only when ``renameOutput`` is on, else its index — as n8n names them: its Workflow drops the
    parameters a node does not display, and ``outputKey`` shows only with ``renameOutput``
    (measured with n8n 1.123's ``NodeHelpers.getNodeOutputs``: a rule with a key and no rename
    is output ``"0"``) — plus the fallback output when ``options.fallbackOutput`` is ``"extra"``
    (``renameFallbackOutput``, else ``Fallback``). Expression mode: the indices of
    ``numberOutputs`` (v2: ``outputsAmount``).
    """
    if node.type in IF_TYPES:
        return ["true", "false"]
    if node.type not in SWITCH_TYPES:
        return []
    params = node.settings
    version = int(node.version)
    if version == 1:
        return [str(i) for i in range(4)]
    if params.get("mode") == "expression":
        amount = params.get("outputsAmount" if version == 2 else "numberOutputs")
        return [str(i) for i in range(int(amount))] if isinstance(amount, int | float) and not isinstance(amount, bool) else []
    rules = obj(params.get("rules")).get("rules" if version == 2 else "values")
    rules = [r for r in rules if isinstance(r, dict)] if isinstance(rules, list) else []
    if version == 2:
        return [str(r.get("outputKey") or i) for i, r in enumerate(rules)]
    names = [str(r["outputKey"]) if r.get("renameOutput") is True and r.get("outputKey") else str(i)
             for i, r in enumerate(rules)]
    options = obj(params.get("options"))
    if options.get("fallbackOutput") == "extra":
        names.append(str(options.get("renameFallbackOutput") or "Fallback"))
    return names


def items_json(run: NodeRun) -> Any:
    """Return a run's output items' ``json``: the one item's, else the list of them."""
    items = [item.get("json") for out in run.outputs() for item in out if isinstance(item, dict)]
    return items[0] if len(items) == 1 else items


def _literal(value: Any) -> bool:
    return not (isinstance(value, str) and value.startswith("="))


def query_pairs(params: dict[str, Any]) -> list[tuple[str, str]] | None:
    """Return an HTTP Request node's query parameters as (name, value) pairs; None when one is an
    expression (its value is known only to the run, so the URL is not either).

    v3+: ``sendQuery`` with ``queryParameters.parameters`` (or ``specifyQuery: "json"`` and
    ``jsonQuery``); v1/v2: ``queryParametersUi.parameter`` (or ``queryParametersJson``).
    """
    pairs: list[tuple[str, str]] = []
    if "sendQuery" in params or "queryParameters" in params or "jsonQuery" in params:
        if not params.get("sendQuery"):
            return pairs
        if params.get("specifyQuery") == "json":
            return _json_pairs(params.get("jsonQuery"))
        rows = obj(params.get("queryParameters")).get("parameters")
    elif params.get("jsonParameters") and "queryParametersJson" in params:
        return _json_pairs(params.get("queryParametersJson"))
    else:
        rows = obj(params.get("queryParametersUi")).get("parameter")
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        name, value = row.get("name", ""), row.get("value", "")
        if not (_literal(name) and _literal(value)):
            return None
        pairs.append((str(name), _query_text(value)))
    return pairs


def _json_pairs(text: Any) -> list[tuple[str, str]] | None:
    if not isinstance(text, str) or not _literal(text):
        return None
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return None
    return [(str(k), _query_text(v)) for k, v in value.items()] if isinstance(value, dict) else None


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _with_query(url: str | None, pairs: list[tuple[str, str]] | None) -> str | None:
    if url is None or pairs is None:
        return None
    if not pairs:
        return url
    from urllib.parse import urlencode

    return url + ("&" if "?" in url else "?") + urlencode(pairs)


def http_call(run: NodeRun, step: str, entry: AutomationEntry) -> dict[str, Any] | None:
    """Return the call an HTTP Request node with literal parameters made; ``None`` for other nodes.

    The URL keeps the node's query parameters (``/todos?limit=2&skip=10``); one that is an
    expression makes the URL unknown (``None``: not compared). The parameters are read as n8n
    runs the node's version (``Node.settings``): v1/v2 name the method ``requestMethod``.
    """
    if run.type not in HTTP_TYPES:
        return None
    params = run.node.settings  # as n8n ran it: the defaults the export left out put back
    url = params.get("url")
    url = _with_query(url if isinstance(url, str) and _literal(url) else None, query_pairs(params))
    provider, target = split_url(entry, url) if url else (None, None)
    body = params.get("jsonBody")
    if isinstance(body, str) and not body.startswith("="):
        try:
            body = json.loads(body)
        except json.JSONDecodeError:
            pass
    elif isinstance(body, str):
        body = None
    method = params.get("method", params.get("requestMethod", "GET"))  # v3+: method; v1/v2: requestMethod
    return {"step": step, "provider": provider, "method": str(method).upper(),
            "url": target, "body": body}


def add_run(run: NodeRun, entry: AutomationEntry, path: list[str], decisions: dict[str, Any],
            calls: list[dict[str, Any]], outputs: dict[str, Any], inputs: Inputs | None = None) -> str | None:
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
    if (call := http_call(run, step, entry) or sql_call(run, step, entry, inputs)) is not None:
        calls.append(call)
    calls.extend(shell_calls(run, step, entry, inputs))  # SSH, Execute Command, file reads and writes
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
    inputs = input_items(runs)  # what a Postgres node's statements were made of
    for run in runs:
        if run is not trigger:
            add_run(run, entry, path, decisions, calls, outputs, inputs)
    error, failed, failed_node = run_error(result, runs, entry)
    nodes = node_outputs(runs, trigger)
    workflow = execution.get("workflowId") or (execution.get("workflowData") or {}).get("name")
    return LegacyTrace(
        trigger_id="", status=status, platform=Platform.N8N, path=path, decisions=decisions,
        calls=calls, outputs=outputs, error=error, failed_step=failed, raw_run_id=record, nodes=nodes,
        failed_node=failed_node if status is TraceStatus.FAILED else None,
        workflow=str(workflow) if workflow else None,
        started_at=timestamp_or_none(execution.get("startedAt")),
        finished_at=timestamp_or_none(execution.get("stoppedAt")),
    )


def node_outputs(runs: list[NodeRun], trigger: NodeRun | None) -> dict[str, Any]:
    """Return every node's output items per output index (its last run's), the trigger's as None.

    A node whose run failed has no outputs and is left out: where a run failed is compared on
    its own (``failed_at``).
    """
    nodes: dict[str, Any] = {}
    for run in runs:
        if run is trigger:
            nodes[run.name] = None
        elif isinstance(obj(run.task.get("data")).get("main"), list):
            nodes[run.name] = recorded_outputs(run.outputs())
    return nodes


def run_error(result: dict[str, Any], runs: list[NodeRun],
              entry: AutomationEntry) -> tuple[str | None, str | None, str | None]:
    """Return the execution's error (``"<node>: <message>"``), the step and the node that failed."""
    failing = [r for r in runs if r.task.get("executionStatus") == "error"]
    error = result.get("error") or (failing[-1].task.get("error") if failing else None)
    if not isinstance(error, dict):
        return None, None, None
    node = (error.get("node") or {}).get("name") or (failing[-1].name if failing else result.get("lastNodeExecuted"))
    message = str(error.get("message") or error.get("description") or "error")
    step = step_name(entry, node) if node else None
    return (f"{node}: {message}" if node else message), step, (str(node) if node else None)

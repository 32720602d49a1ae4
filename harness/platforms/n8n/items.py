"""Import an n8n execution item by item: a fan-out node's items, and the items a polling trigger found.

n8n runs each node once over all of its items. With ``[automations.<name>.items] from = "<node>"``
the execution is still one trigger and one parent trace (the nodes up to and including that
node, and any node that joins several items), plus one :class:`~harness.recording.ItemTrace`
per output item of that node: the nodes that processed an item descending from it (by
``pairedItem``, see :mod:`harness.platforms.n8n.lineage`), each IF/Switch's output for it (one
value), its calls, its outputs, and its status (``filtered`` when a Filter dropped it, ``failed``
when the node that errored was processing it). A node failing on an item fails that item, not
the parent.

A polling trigger (a trigger node whose parameters have ``pollTimes``: Google Sheets Trigger,
RSS Feed Trigger, the app triggers that poll) emits every new item of a poll in one execution.
Such an execution becomes one trigger per polled item (``source = "poll"``, received at the poll,
``poll = {poller, at, item}``) and one trace per item from its lineage, so the migrated handler
is replayed once per item. A node that joins several polled items belongs to none and is left
out (with a warning).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from harness.errors import ExportFormatError
from harness.importer._run import ImportedRun, obj, status_word, timestamp_or_none
from harness.platforms.n8n.runs import (
    FILTER_TYPES, UNFINISHED, NodeRun, add_run, build_trace, is_schedule, received_at, run_status,
)
from harness.platforms.n8n.lineage import Lineage, RunRef, trace_lineage
from harness.manifest import AutomationEntry, ItemSplit
from harness.recording import POLL_SOURCE, Evidence, ItemTrace, LegacyTrace, PollOrigin, RecordedTrigger, TraceStatus

POLL_PARAMETER = "pollTimes"


@dataclass(frozen=True)
class ItemRun:
    """A node run that processed root items one by one: which it received, and each one's output items."""

    run: NodeRun
    received: frozenset[int]
    owned: dict[int, list[list[Any]]]  # root item -> the run's output items descending from it alone, per output

    def outputs_of(self, index: int) -> list[list[Any]]:
        """Return the run's outputs holding only root item ``index``'s descendants."""
        return self.owned.get(index) or [[] for _ in self.run.outputs()]


PerItem = list[ItemRun]


def is_polling(run: NodeRun) -> bool:
    """Return whether a trigger node polls: its parameters have ``pollTimes`` (Schedule/Cron nodes tick)."""
    return POLL_PARAMETER in run.node.parameters and not is_schedule(run)


def _order(runs: list[NodeRun]) -> list[RunRef]:
    return [(run.name, run.run) for run in runs]


def classify(runs: list[NodeRun], run_data: dict[str, Any], lineage: Lineage) -> tuple[list[NodeRun], PerItem]:
    """Split runs into the parent's and per-item runs (with the root items each processed).

    A run belongs to the items it received when it received any and joined none (no output item
    descends from two root items); the root's own runs, earlier runs and joins are the parent's.
    """
    parent: list[NodeRun] = []
    per_item: PerItem = []
    for run in runs:
        received = frozenset() if run.name == lineage.root else lineage.inputs(run_data, run.name, run.run)
        outputs = run.outputs()
        owned: dict[int, list[list[Any]]] = {}
        joined = False
        for o, out in enumerate(outputs):
            for j, item in enumerate(out):
                owners = lineage.of(run.name, run.run, o, j)
                joined = joined or len(owners) > 1
                if len(owners) == 1:
                    owned.setdefault(next(iter(owners)), [[] for _ in outputs])[o].append(item)
        if received and not joined:
            per_item.append(ItemRun(run, received, owned))
        else:
            parent.append(run)
    return parent, per_item


def item_keys(lineage: Lineage, split: ItemSplit | None, path: str, record: str) -> list[str]:
    """Name each root item: its index, or the item field ``key = "json:<path>"`` names (unique)."""
    fields = split.key_path() if split is not None else None
    keys: list[str] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(lineage.items):
        if fields is None:
            keys.append(str(index))
            continue
        value: Any = item.get("json") if isinstance(item, dict) else None
        for part in fields:
            value = value.get(part) if isinstance(value, dict) else None
        node, run, output, position = lineage.places[index]
        where = f"data.resultData.runData.{node}[{run}].data.main[{output}][{position}].json.{'.'.join(fields)}"
        if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
            raise ExportFormatError(path, record, where, "the item key (manifest items.key) needs a string or integer here")
        if str(value) in seen:
            raise ExportFormatError(path, record, where, f"item key {str(value)!r} repeats item {seen[str(value)]}'s")
        seen[str(value)] = index
        keys.append(str(value))
    return keys


def item_trace(index: int, keys: list[str], per_item: PerItem, lineage: Lineage, run_data: dict[str, Any],
               entry: AutomationEntry) -> ItemTrace:
    """Return what the runs that processed root item ``index`` did with it (and its descendants)."""
    path: list[str] = []
    decisions: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    outputs: dict[str, Any] = {}
    status, error, failed = TraceStatus.SUCCEEDED, None, None
    for part in per_item:
        if index not in part.received:
            continue
        run, mine = part.run, part.outputs_of(index)
        view = NodeRun(run.name, {**run.task, "data": {"main": mine}}, run.node, run.run)  # this item's part
        step = add_run(view, entry, path, decisions, calls, outputs)
        if run.task.get("executionStatus") == "error" and status is not TraceStatus.FAILED:
            status, error, failed = TraceStatus.FAILED, _item_error(run, index, keys, lineage, run_data), step
        elif run.type in FILTER_TYPES and not (mine and mine[0]) and status is TraceStatus.SUCCEEDED:  # kept = output 0
            status = TraceStatus.FILTERED
    return ItemTrace(keys[index], status, path, decisions, calls, outputs, error, failed)


def _item_error(run: NodeRun, index: int, keys: list[str], lineage: Lineage, run_data: dict[str, Any]) -> str:
    """The node's error for the item it names (``context.itemIndex``), else for every item it held."""
    error = obj(run.task.get("error"))
    message = str(error.get("message") or error.get("description") or "error")
    at = obj(error.get("context")).get("itemIndex")
    source = (run.task.get("source") or [None])[0]
    if isinstance(at, int) and not isinstance(at, bool) and isinstance(source, dict) and isinstance(source.get("previousNode"), str):
        owners = lineage.of(source["previousNode"], int(source.get("previousNodeRun") or 0),
                            int(source.get("previousNodeOutput") or 0), at)
        if len(owners) == 1 and index not in owners:
            return f"{run.name}: the node failed on item {keys[next(iter(owners))]!r} ({message})"
    return f"{run.name}: {message}"


def _item_failure(runs: list[NodeRun], per_item: PerItem) -> bool:
    failing = [id(r.task) for r in runs if r.task.get("executionStatus") == "error"]
    return bool(failing) and set(failing) <= {id(part.run.task) for part in per_item}


def _parent_status(execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun], parent: list[NodeRun],
                   per_item: PerItem) -> tuple[TraceStatus | None, dict[str, Any]]:
    """The parent's status, and the result data its error is read from (an item's failure is not the parent's)."""
    if not _item_failure(runs, per_item):
        return run_status(execution, result, parent), result
    if status_word(execution.get("status")) in UNFINISHED or execution.get("waitTill"):
        return None, result
    return TraceStatus.SUCCEEDED, {**result, "error": None}


def fan_out_trace(execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun], trigger: NodeRun | None,
                  entry: AutomationEntry, path: str, record: str) -> LegacyTrace | None:
    """Return the parent trace of an execution split at ``entry.items.from_node``, with one item per output item.

    Without the node in the run data (it never ran), the trace has no items. Raises
    ExportFormatError for malformed lineage or item keys.
    """
    assert entry.items is not None and entry.items.from_node is not None
    run_data = result["runData"]
    lineage = trace_lineage(run_data, entry.items.from_node, _order(runs), path, record)
    if lineage is None:
        status = run_status(execution, result, runs)
        return None if status is None else build_trace(execution, result, runs, trigger, status, entry, record)
    parent, per_item = classify(runs, run_data, lineage)
    status, parent_result = _parent_status(execution, result, runs, parent, per_item)
    if status is None:
        return None
    keys = item_keys(lineage, entry.items, path, record)
    trace = build_trace(execution, parent_result, parent, trigger, status, entry, record)
    return replace(trace, items=[item_trace(i, keys, per_item, lineage, run_data, entry) for i in range(len(keys))])


def poll_instant(run: NodeRun, execution: dict[str, Any], path: str, record: str) -> datetime:
    """Date a poll: the trigger node's start (else the execution's), to the whole second like a tick."""
    at = received_at(run.task.get("startTime"), timestamp_or_none(execution.get("startedAt")))
    if at is None:
        raise ExportFormatError(path, record, "startedAt", "no startTime or startedAt to date the poll")
    return at.astimezone(UTC).replace(microsecond=0)


def poll_runs(execution: dict[str, Any], result: dict[str, Any], runs: list[NodeRun], trigger: NodeRun,
              entry: AutomationEntry, path: str, record: str, evidence: tuple[Evidence, ...]) -> list[ImportedRun]:
    """Return one imported run per item a polling trigger emitted: its own trigger and its own trace."""
    run_data = result["runData"]
    lineage = trace_lineage(run_data, trigger.name, _order(runs), path, record)
    if lineage is None:
        return []
    parent, per_item = classify(runs, run_data, lineage)
    status, _ = _parent_status(execution, result, runs, parent, per_item)
    keys = item_keys(lineage, entry.items, path, record)
    at = poll_instant(trigger, execution, path, record)
    base = build_trace(execution, {**result, "error": None}, [], trigger, TraceStatus.SUCCEEDED, entry, record)
    warnings = _poll_warnings(parent, trigger, entry, record)
    found: list[ImportedRun] = []
    for index, key in enumerate(keys):
        item = lineage.items[index]
        found_json = item.get("json") if isinstance(item, dict) else None
        body: dict[str, Any] = dict(found_json) if isinstance(found_json, dict) else {"value": item}
        polled = RecordedTrigger(f"n8n-{record}-{key}", at, {}, body, POLL_SOURCE, PollOrigin(trigger.name, at, key))
        part = item_trace(index, keys, per_item, lineage, run_data, entry)
        trace = None if status is None else replace(
            base, status=part.status, path=part.path, decisions=part.decisions, calls=part.calls, outputs=part.outputs,
            error=part.error, failed_step=part.failed_step, evidence=evidence)
        found.append(ImportedRun(f"{record}/{key}", polled, trace, None, warnings if index == 0 else (), record))
    return found


def _poll_warnings(parent: list[NodeRun], trigger: NodeRun, entry: AutomationEntry, record: str) -> tuple[str, ...]:
    joins = [run.name for run in parent if run is not trigger and run.task.get("source")]
    notes = [f"execution {record}: {', '.join(sorted(set(joins)))} joined several polled items, so no item's trace "
             "holds it"] if joins else []
    if entry.items is not None and entry.items.from_node not in (None, trigger.name):
        notes.append(f"execution {record}: a polled execution is split at its trigger; items.from "
                     f"{entry.items.from_node!r} is not applied within each polled item")
    return tuple(notes)

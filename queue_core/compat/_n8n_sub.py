"""n8n sub-workflows: an Execute Workflow node is a child job of the callee's automation.

What n8n does (``n8n-nodes-base/nodes/ExecuteWorkflow``), and what this does with the queue's
children (``ctx.enqueue`` / ``ctx.wait_for_children``, durable: the parent waits holding no
worker, and a retry of the parent finds the same children by their keys):

- the items passed are the node's input items, each with the fields of ``workflowInputs.value``
  set on it (``{...json, ...values}``), minus fields the mapping's schema marks removed;
- ``mode: once`` (the default) runs the sub-workflow once with every item; ``mode: each`` once per
  item;
- with ``options.waitForSubWorkflow`` (default true) the node outputs what each sub-workflow run
  returned — the output of the last node it ran — in item order; without it the node outputs its
  input items at once and the children run on their own;
- a sub-workflow that fails fails the node (a child that did not succeed fails the parent
  terminally, naming it).

The callee's side: its Execute Workflow Trigger outputs the items it was given (trimmed to its
declared fields, a missing one null, unless it passes everything through), and its automation ends
with :func:`sub_return`, which records the last node's output as its ``ctx:returned`` step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..context import RETURNED_STEP

Items = list[dict[str, Any]]
# A child's payload is a JSON object (as every job's): the passed items' json under this field.
ITEMS_FIELD = "n8n_items"


def _passed(items: Items, fields: Callable[[dict[str, Any], int], dict[str, Any]] | None,
            removed: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for index, item in enumerate(items):
        json = dict(item.get("json") or {})
        if fields is not None:
            json.update(fields(item, index))
        for key in removed:
            json.pop(key, None)
        out.append(json)
    return out


async def execute_workflow(flow: Any, node: str, automation: str, items: Items,
                           fields: Callable[[dict[str, Any], int], dict[str, Any]] | None = None, *,
                           mode: str = "once", wait: bool = True, key: str, removed: Sequence[str] = ()) -> Items:
    """Run the sub-workflow ``automation`` as child job(s) of this job; record and return the node's items."""
    ctx = flow.ctx
    passed = _passed(items, fields, removed)
    batches = [[p] for p in passed] if mode == "each" else [passed]
    keys = [f"{key}:{index}" for index in range(len(batches))] if mode == "each" else [key]
    for batch, child_key in zip(batches, keys, strict=True):
        await ctx.enqueue(automation, {ITEMS_FIELD: batch}, key=child_key)
    if not wait:
        return flow.emit(node, items)
    outcomes = {o.key: o for o in await ctx.wait_for_children(policy="fail")}
    out: Items = []
    for child_key in keys:
        outcome = outcomes.get(child_key)
        returned = outcome.returned if outcome is not None else None
        for element in returned or []:
            out.append(element if isinstance(element, dict) and "json" in element else {"json": element})
    return flow.emit(node, out)


def sub_inputs(trigger: Any, fields: Sequence[str] | None = None) -> Items:
    """The Execute Workflow Trigger's items: what the caller passed, trimmed to ``fields`` when declared."""
    body = getattr(trigger, "body", None)
    if isinstance(body, dict) and isinstance(body.get(ITEMS_FIELD), list):
        body = body[ITEMS_FIELD]  # a calling job's items; else a recorded sub-execution's trigger item
    elements = body if isinstance(body, list) else ([] if body is None else [body])
    items = [e if isinstance(e, dict) and set(e) <= {"json", "binary", "pairedItem"} and "json" in e
             else {"json": e if isinstance(e, dict) else {"value": e}} for e in elements]
    if fields is None:
        return items
    return [{"json": {name: item["json"].get(name) for name in fields}} for item in items]


async def sub_return(flow: Any) -> None:
    """End a sub-workflow's run: return the first output of the last node that ran to the caller."""
    returned = [{"json": item.get("json", {})} for item in flow.last_output()]
    await flow.ctx.step(RETURNED_STEP, lambda: returned)

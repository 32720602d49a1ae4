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
from ..errors import TerminalError

Items = list[dict[str, Any]]


def _emitted(flow: Any, node: str, items: Items) -> Items:
    """Record ``items`` as ``node``'s output (``Flow.emit``) and return them."""
    flow.emit(node, items)
    return items
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
                           mode: str = "once", wait: bool = True, key: str, removed: Sequence[str] = (),
                           absent: str | None = None, on_error: str = "stop", version: float = 1.3) -> Items:
    """Run the sub-workflow ``automation`` as child job(s) of this job; record and return the node's items.

    ``absent`` names the n8n workflow when the callee was not in the scaffolded estate: while
    ``automation`` is not registered, a shadow or dry-run job answers the node from the legacy
    run's recorded output of step ``key`` (no callee code needed) and a live job fails at once,
    naming the automation to deploy (see :func:`_unregistered`).

    ``on_error="continue"`` (Continue, regular output): a child that did not succeed gives one item
    ``{"error": <its error>}`` in its place, as n8n's node does, instead of failing this job (mode
    ``each`` before version 1.3 put item i's error on output i: only item 0's reaches the one output).
    """
    ctx = flow.ctx
    if absent is not None and not _registered(ctx, automation):
        return _emitted(flow, node, await _unregistered(ctx, node, automation, absent, key))
    passed = _passed(items, fields, removed)
    batches = [[p] for p in passed] if mode == "each" else [passed]
    runs = len(getattr(flow, "runs", {}).get(node, []))
    if runs:  # the node's next run (in a loop): children of their own, not the first run's again
        key = f"{key}#{runs}"
    keys = [f"{key}:{index}" for index in range(len(batches))] if mode == "each" else [key]
    for batch, child_key in zip(batches, keys, strict=True):
        await ctx.enqueue(automation, {ITEMS_FIELD: batch}, key=child_key)
    if not wait:
        return _emitted(flow, node, items)
    outcomes = {o.key: o for o in await ctx.wait_for_children(policy="collect" if on_error == "continue" else "fail")}
    out: Items = []
    for index, child_key in enumerate(keys):
        outcome = outcomes.get(child_key)
        if outcome is not None and not outcome.succeeded:
            if mode == "once" or version >= 1.3 or index == 0:
                out.append({"json": {"error": outcome.error or f"the sub-workflow ended {outcome.status}"}})
            continue
        returned = outcome.returned if outcome is not None else None
        for element in returned or []:
            out.append(element if isinstance(element, dict) and "json" in element else {"json": element})
    return _emitted(flow, node, out)


async def require_automations(flow: Any, automations: Sequence[str]) -> None:
    """Refuse to start a live job whose workflow calls automations that are not deployed (not registered).

    Before any node runs, so nothing the workflow does happens half-way: a TerminalError naming
    them. A shadow or dry-run job goes on: its calls are answered from the recording.
    """
    ctx = flow.ctx
    if getattr(ctx, "mode", None) != "live":
        return
    missing = [a for a in automations if not _registered(ctx, a)]
    if missing:
        raise TerminalError(f"this workflow calls automation(s) {', '.join(map(repr, missing))} (sub-workflows "
                            "not in its scaffolded estate), which are not deployed: export those workflows, "
                            "scaffold them with this estate and deploy them before this automation runs live")


def _registered(ctx: Any, automation: str) -> bool:
    registry = getattr(getattr(ctx, "_run", None), "registry", None)
    return registry is not None and automation in registry


async def _unregistered(ctx: Any, node: str, automation: str, workflow: str, key: str) -> Items:
    """The items of a call to an automation this project does not have (a sub-workflow not exported).

    Live: refuse (TerminalError naming the automation), before any child is enqueued. Shadow and
    dry-run: the legacy node's recorded output (the manifest maps the node to step ``key``),
    memoised as step ``key``; none recorded fails the job naming the node and the automation.
    """
    mode = getattr(ctx, "mode", None)
    what = f"Execute Workflow {node!r} calls automation {automation!r} (n8n workflow {workflow})"
    if mode == "live":
        raise TerminalError(f"{what}, which is not deployed: export that workflow, scaffold it with this "
                            "estate and deploy it before this automation runs live")
    gateway = getattr(ctx, "_gateway", None)  # the recording the harness answers shadow calls from
    recorded = gateway.recorded(ctx.automation, ctx.trigger_id, key) if gateway is not None else None
    if recorded is None or not isinstance(recorded.json, list):
        raise TerminalError(f"{what}, which is not in this project, and the recording has no output of that "
                            f"node (step {key!r}) to answer it with")
    elements = recorded.json
    returned = await ctx.step(key, lambda: elements)
    return [{"json": e if isinstance(e, dict) else {"value": e}} for e in returned or []]  # items' json, recorded


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

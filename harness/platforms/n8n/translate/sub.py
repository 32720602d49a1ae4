"""Execute Workflow and Execute Workflow Trigger: a sub-workflow call is a child job of the callee.

The callee must be in the scaffolded estate (a directory scaffolded together), so its automation
exists: ``Slot.callees`` maps each workflow id of the estate to its automation name. Parameters are
read as n8n reads them (``Node.settings``: the description's defaults put back; ``workflowInputs``
only from version 1.2, where n8n shows it, as n8n drops a parameter its version does not show).
The runtime is ``queue_core.compat._n8n_sub``.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, name, stmts


def workflow_id(node: Node) -> tuple[str, str | None]:
    """Return the callee's workflow id and its cached name (raise Untranslatable when not fixed)."""
    params = node.parameters
    source = params.get("source", "database")
    if source != "database":
        raise Untranslatable(f"Execute Workflow from source {source!r}: only a workflow of the estate (source "
                             "'database') becomes a child job")
    raw = params.get("workflowId")
    cached = None
    if isinstance(raw, dict):
        cached = raw.get("cachedResultName") if isinstance(raw.get("cachedResultName"), str) else None
        raw = raw.get("value")
    if expr.is_expression(raw):
        raise Untranslatable(f"the sub-workflow is chosen at run time ({raw!r}): call the automation it names "
                             "with ctx.enqueue and ctx.wait_for_children")
    if raw in (None, ""):
        raise Untranslatable("Execute Workflow names no workflow")
    return str(raw), cached


def execute_workflow_node(node: Node, slot: Slot) -> NodeCode:
    """Execute Workflow: the callee's automation as child job(s), waited for or not, items in and out."""
    callee, cached = workflow_id(node)
    automation = slot.callees.get(callee)
    if automation is None:
        label = f"{callee} ({cached})" if cached else callee
        raise Untranslatable(f"the sub-workflow {label} is not in the scaffolded estate: scaffold the directory "
                             "holding both workflows, so the callee's automation exists")
    if node.on_error != "stop":
        raise Untranslatable("Execute Workflow continuing on error is not translated")
    params = node.parameters
    mode = params.get("mode", "once")
    if mode not in ("once", "each"):
        raise Untranslatable(f"Execute Workflow mode {mode!r} is not one n8n has")
    wait = (params.get("options") or {}).get("waitForSubWorkflow", True) is not False
    mapping = params.get("workflowInputs") if node.version >= 1.2 else None
    mapping = mapping if isinstance(mapping, dict) else {}
    values = mapping.get("value") if isinstance(mapping.get("value"), dict) else {}
    removed = [str(s.get("id")) for s in mapping.get("schema") or [] if isinstance(s, dict) and s.get("removed")]
    fields: ast.expr = ast.Constant(None)
    if values:
        fields = _code.expr("lambda item, i: $pairs", pairs=dict_of((k, expr.value(v)) for k, v in values.items()))
    runs = call("n8n.execute_workflow", name("flow"), node.name, automation, name("items"), fields, mode=mode,
                wait=wait, key=slot.step, **({"removed": removed} if removed else {}))
    lines = [comment(node),
             _code.comment(f"A child job of {automation!r} ({'one per item' if mode == 'each' else 'all items'}"
                           f"{', waited for' if wait else ', not waited for'})"),
             *stmts("items = $inp", inp=_input(slot)),
             *stmts("$var = (await $runs) if items else []", var=name(slot.var), runs=runs)]
    return NodeCode(lines, [slot.var], why=f"a child job of {automation}")


def trigger_fields(node: Node) -> list[str] | None:
    """The fields an Execute Workflow Trigger declares (None: it passes every field through)."""
    params = node.settings
    if node.version < 1.1:
        return None
    source = params.get("inputSource", "workflowInputs")
    if source == "passthrough":
        return None
    if source == "jsonExample":
        try:
            example = json.loads(str(params.get("jsonExample") or "{}"))
        except ValueError:
            raise Untranslatable("the trigger's JSON example is not JSON") from None
        return list(example) if isinstance(example, dict) else None
    declared: Any = (params.get("workflowInputs") or {}).get("values") or []
    return [str(v.get("name")) for v in declared if isinstance(v, dict) and v.get("name")]


def trigger_node(node: Node, slot: Slot) -> NodeCode:
    """Execute Workflow Trigger: the items the calling job passed (its payload)."""
    try:
        fields = trigger_fields(node)
    except Untranslatable as exc:
        return NodeCode([comment(node), *stmts("$var = flow.emit($node, n8n.sub_inputs(trigger))",
                                               var=name(slot.var), node=node.name)], [slot.var], why=exc.reason)
    items = call("n8n.sub_inputs", name("trigger"), fields) if fields is not None else call("n8n.sub_inputs",
                                                                                             name("trigger"))
    return NodeCode([comment(node), *stmts("$var = flow.emit($node, $items)", var=name(slot.var), node=node.name,
                                           items=items)], [slot.var], why="called by other workflows (a child job)")

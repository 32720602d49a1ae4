"""Execute Workflow and Execute Workflow Trigger: a sub-workflow call is a child job of the callee.

The callee is looked up in the scaffolded estate (a directory scaffolded together): ``Slot.callees``
maps each workflow id of the estate, and each workflow's name (``name:<name>``), to its automation,
so a callee exported under another id is still found by the name the export cached. An inline
workflow (``source: parameter``) is scaffolded as an automation of its own (``inline:<digest>``).
A callee found nowhere is still a child job, of the automation named after it (its cached name,
else its id): the call is known, what the callee does is not. The node is translated, the
workflow is not *whole* while the callee is missing (``NodeCode.needs``), and at run time a shadow
job answers the node from its recorded output while a live one refuses to start
(:func:`refuse_without_callees`, the module's first statement). Parameters are
read as n8n reads them (``Node.settings``: the description's defaults put back; ``workflowInputs``
only from version 1.2, where n8n shows it, as n8n drops a parameter its version does not show).
The runtime is ``queue_core.compat._n8n_sub``.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from harness.errors import ExportFormatError, Untranslatable
from harness.platforms.n8n.definition import Node, Workflow, parse_workflow
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code, automation_name
from harness.scaffold._code import call, dict_of, name, stmts

# ``Slot.callees`` holds each estate workflow by id and, under this prefix, by name.
NAME_PREFIX = "name:"


@dataclass(frozen=True)
class Callee:
    """Whom an Execute Workflow node calls: a key of ``Slot.callees`` and how to name it to a person."""

    key: str  # the workflow id; ``inline:<digest>`` for an inline workflow; the path or URL of a file
    label: str  # the id with the cached name, as the table says it
    name: str | None = None  # the callee's name when the export cached it (matched in the estate too)


def inline_key(workflow_json: Any) -> str:
    """Return the callee key of an inline (``source: parameter``) workflow: a digest of its JSON text."""
    text = workflow_json if isinstance(workflow_json, str) else json.dumps(workflow_json, sort_keys=True)
    return "inline:" + hashlib.sha256(text.strip().encode()).hexdigest()[:12]


def callee_of(node: Node) -> Callee:
    """Return the node's callee, read as n8n reads it per source (raise Untranslatable when not fixed)."""
    params = node.settings
    source = params.get("source", "database")
    if source == "parameter":
        return Callee(inline_key(params.get("workflowJson")), "given inline in the node")
    if source in ("localFile", "url"):
        where = params.get("workflowPath" if source == "localFile" else "workflowUrl")
        if not isinstance(where, str) or not where or expr.is_expression(where):
            raise Untranslatable(f"Execute Workflow from {source} {where!r}: the workflow file is chosen at run time")
        return Callee(where, f"{source} {where}", PurePosixPath(where.split("?")[0].rstrip("/")).stem or None)
    if source != "database":
        raise Untranslatable(f"Execute Workflow source {source!r} is not one n8n has")
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
    return Callee(str(raw), f"{raw} ({cached})" if cached else str(raw), cached)


def inline_workflows(workflows: list[Workflow]) -> list[Workflow]:
    """Return the workflows given inline in Execute Workflow nodes (``source: parameter``), each once.

    Each is named after its own name, else its caller's node, and keyed ``inline:<digest>`` (as
    :func:`callee_of` finds it); one whose JSON is no workflow is left to the node's translation.
    """
    found: dict[str, Workflow] = {}
    for workflow in workflows:
        for node in workflow.nodes.values():
            if node.short_type != "executeWorkflow" or node.settings.get("source") != "parameter":
                continue
            raw = node.settings.get("workflowJson")
            key = inline_key(raw)
            try:
                document = json.loads(raw) if isinstance(raw, str) else raw
                inline = parse_workflow(document, f"{workflow.path}#{node.name}")
            except (ValueError, ExportFormatError):
                continue
            named = document.get("name") if isinstance(document, dict) and isinstance(document.get("name"), str) else None
            found.setdefault(key, replace(inline, id=key, name=named or f"{workflow.name} {node.name}"))
    return list(found.values())


def resolve(callee: Callee, callees: dict[str, str]) -> str | None:
    """Return the estate's automation for ``callee``: by id, else by its cached name (None: not in the estate)."""
    found = callees.get(callee.key)
    if found is None and callee.name:
        found = callees.get(NAME_PREFIX + callee.name)
    return found


def absent_name(callee: Callee) -> str:
    """Return the automation name an absent callee is called by: from its cached name, else its key."""
    return automation_name(callee.name or callee.key, "sub-workflow")


def execute_workflow_node(node: Node, slot: Slot) -> NodeCode:
    """Execute Workflow: the callee's automation as child job(s), waited for or not, items in and out."""
    callee = callee_of(node)
    automation = resolve(callee, slot.callees)
    absent = automation is None
    if automation is None and callee.key.startswith("inline:"):
        raise Untranslatable("the workflow given inline (source 'parameter') is not an n8n workflow's JSON")
    if automation is None:
        automation = absent_name(callee)
    if node.on_error == "error_output":
        raise Untranslatable("Execute Workflow continuing on its error output is not translated (Continue, "
                             "regular output is)")
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
    extra: dict[str, Any] = {"removed": removed} if removed else {}
    if node.on_error == "continue":
        extra.update(on_error="continue", version=node.version)
    if absent:
        extra["absent"] = callee.label
    runs = call("n8n.execute_workflow", name("flow"), node.name, automation, name("items"), fields, mode=mode,
                wait=wait, key=slot.step, **extra)
    lines = [comment(node),
             _code.comment(f"A child job of {automation!r} ({'one per item' if mode == 'each' else 'all items'}"
                           f"{', waited for' if wait else ', not waited for'})"),
             *([_code.comment(f"{automation!r} is not in this estate (n8n workflow {callee.label}): in shadow the "
                              "node's recorded output answers; live refuses until it is deployed")] if absent else []),
             *stmts("items = $inp", inp=_input(slot)),
             *stmts("$var = (await $runs) if items else []", var=name(slot.var), runs=runs)]
    if not absent:
        return NodeCode(lines, [slot.var], why=f"a child job of {automation}")
    why = (f"calls automation {automation}, not in this estate (n8n workflow {callee.label}): the call is "
           "translated, what it does is not; in shadow its recorded output answers")
    return NodeCode(lines, [slot.var], why=why, call_step=slot.step, needs={automation: callee.key})


def refuse_without_callees(scaffold: Any) -> list[ast.stmt]:
    """The module's first statement when it calls automations not in the estate: live, refuse to start."""
    if not scaffold.missing:
        return []
    return [_code.comment("Calls automations that are not in this estate: a live job refuses to start "
                          "until they are deployed"),
            *stmts("await n8n.require_automations(flow, $names)", names=sorted(scaffold.missing)), _code.blank()]


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

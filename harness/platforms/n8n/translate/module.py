"""Assemble a scaffolded automation module from an n8n workflow, node by node, in n8n's run order.

The platform-neutral half (the ``Scaffold`` value, its table rows, the docstring, the edit
guard) is ``harness.scaffold._module``; this module is what makes the body n8n's.
"""

from __future__ import annotations

import keyword
import re

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import calls, nodes
from harness.platforms.n8n.translate.nodes import NodeCode, Slot
from harness.scaffold import _credential
from harness.scaffold._module import (
    HEADER, NodeRow, Scaffold, credential_reader, digest, module_docstring, registry_takes, slug, unique,
)

_RESERVED = {"flow", "ctx", "trigger", "items", "item", "i", "n8n", "response", "automation", "Context", "Trigger",
             "credential", "os", "TerminalError"}

TRANSLATORS: dict[str, nodes.Translator] = {
    "if": nodes.if_node, "filter": nodes.filter_node, "switch": nodes.switch_node,
    "set": nodes.set_node, "noOp": nodes.noop, "merge": nodes.merge_node, "code": nodes.code_node,
    "wait": nodes.wait_node, "httpRequest": calls.http_node, "testData": nodes.test_data_node,
    **dict.fromkeys(calls.APP_TYPES, calls.app_node),  # GitHub, Slack, HubSpot, Stripe, Sheets, …
}
BRANCH_TYPES = ("if", "switch")


def _identifier(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "node"
    if base[0].isdigit():
        base = f"n_{base}"
    candidate, n = base, 2
    while candidate in taken or keyword.iskeyword(candidate) or candidate in _RESERVED:
        candidate, n = f"{base}_{n}", n + 1
    taken.add(candidate)
    return candidate


def build(workflow: Workflow, automation: str, providers: dict[str, str]) -> Scaffold[Workflow]:
    """Translate ``workflow`` into the source of one ``@automation`` module."""
    order, looped = workflow.order()
    taken: set[str] = set()
    names = {name: _identifier(name, taken) for name in order}
    steps_taken: set[str] = set()
    outputs: dict[str, list[str]] = {}
    body: list[str] = []
    scaffold: Scaffold[Workflow] = Scaffold(automation, workflow, "", {}, {}, [])
    trigger = workflow.trigger()
    for name in order:
        node = workflow.nodes[name]
        inputs = _inputs(workflow, name, outputs)
        if node.execute_once:
            inputs = tuple(f"({source})[:1]" for source in inputs)
        slot = Slot(names[name], inputs, unique(slug(name), steps_taken), slug(name), providers)
        code = _translate(node, slot, is_trigger=trigger is not None and name == trigger.name, looped=name in looped)
        outputs[name] = code.outputs
        body += [*code.lines, *_always_output(node, slot, code), ""]
        _account(scaffold, node, code, is_trigger=trigger is not None and name == trigger.name)
    for name, node in workflow.nodes.items():
        if name not in outputs:
            scaffold.rows.append(NodeRow(name, node.type, "not reached",
                                         "disabled" if node.disabled else "no path from the trigger"))
    scaffold.source = _module_source(scaffold, body)
    return scaffold


def _always_output(node: Node, slot: Slot, code: NodeCode) -> list[str]:
    """n8n's "Always Output Data": a node that ran and output nothing outputs one empty item."""
    if not node.always_output or not code.translated or len(code.outputs) != 1 or not slot.inputs:
        return []
    (out,) = code.outputs
    return [f"if ({' or '.join(slot.inputs)}) and not {out}:  # Always Output Data",
            f"    {out} = flow.emit({node.name!r}, [{{'json': {{}}}}])"]


def _inputs(workflow: Workflow, name: str, outputs: dict[str, list[str]]) -> tuple[str, ...]:
    by_index: dict[int, list[str]] = {}
    for edge in workflow.parents(name):
        produced = outputs.get(edge.source)
        if produced is None:
            continue
        var = produced[edge.output] if edge.output < len(produced) else "[]"
        by_index.setdefault(edge.input, []).append(var)
    if not by_index:
        return ()
    last = max(by_index)
    return tuple(" + ".join(by_index.get(i, ["[]"])) if len(by_index.get(i, [])) < 2
                 else "(" + " + ".join(by_index[i]) + ")" for i in range(last + 1))


def _translate(node: Node, slot: Slot, *, is_trigger: bool, looped: bool) -> NodeCode:
    if is_trigger:
        return nodes.trigger(node, slot)
    if looped:
        return nodes.todo(node, slot, "this node is part of a loop (SplitInBatches / a connection back): "
                                       "write the loop in Python")
    known = node.type.startswith(("n8n-nodes-base.", "n8n-nodes-testing."))
    translator = TRANSLATORS.get(node.short_type) if known else None
    if translator is None:
        return nodes.todo(node, slot, f"no translation for node type {node.type}")
    try:
        return translator(node, slot)
    except Untranslatable as exc:
        return nodes.todo(node, slot, exc.reason, verbatim=_verbatim(node))


def _verbatim(node: Node) -> str:
    import json

    return json.dumps(_credential.redacted(node.parameters), indent=2, ensure_ascii=False)


def _account(scaffold: Scaffold[Workflow], node: Node, code: NodeCode, *, is_trigger: bool) -> None:
    scaffold.steps[node.name] = code.call_step or ""
    if code.decision is not None:
        scaffold.decisions[node.name] = code.decision
    scaffold.proposals.update(code.provider_proposals)
    scaffold.credentials += code.credentials
    if is_trigger:
        kind = node.short_type.lower()
        scaffold.trigger_kind = "webhook" if code.source else ("schedule" if kind in ("scheduletrigger", "cron")
                                                               else kind.removesuffix("trigger") or kind)
        scaffold.schedule = code.schedule
        scaffold.rows.append(NodeRow(node.name, node.type, "trigger", code.why or ""))
        return
    status = "translated" if code.translated else "todo"
    scaffold.rows.append(NodeRow(node.name, node.type, status, code.why or ""))


def _decorator(scaffold: Scaffold[Workflow]) -> str:
    args = [repr(scaffold.automation), "version=1"]
    if scaffold.schedule and registry_takes("schedule"):
        args.append(f"schedule={scaffold.schedule['cron']!r}")
    return f"@automation({', '.join(args)})"


def _module_source(scaffold: Scaffold[Workflow], body: list[str]) -> str:
    wf = scaffold.workflow
    function = re.sub(r"\W+", "_", scaffold.automation).strip("_") or "automation"
    intro = [f"{scaffold.automation}: scaffolded by `cutover scaffold n8n` from the n8n workflow {wf.name!r}.", "",
             "This is ordinary code and yours to edit; `pytest --shadow` on the workflow's recorded",
             "executions is what proves it. Every node of the workflow is a few lines below, in the",
             "order n8n ran them, with n8n's semantics (queue_core.compat.n8n)."]
    schedule = f"Schedule: {scaffold.schedule['cron']} (from the workflow's trigger)." if scaffold.schedule else None
    doc = module_docstring(intro, schedule=schedule, unit=scaffold.unit,
                           todo=[r for r in scaffold.rows if r.status == "todo"], proposals=scaffold.proposals,
                           credentials=scaffold.credentials)
    imports, reader = credential_reader(scaffold.credentials)
    core = "Context, TerminalError, Trigger, automation" if reader else "Context, Trigger, automation"
    lines = [*doc, "", "from __future__ import annotations", "", *imports,
             f"from queue_core import {core}", "from queue_core.compat import n8n", "", "", *reader,
             _decorator(scaffold), f"async def {function}(ctx: Context, trigger: Trigger) -> None:",
             f'    """Run the workflow {wf.name!r} node by node, as n8n did."""', "    flow = n8n.Flow(ctx)"]
    lines += [f"    {line}" if line else "" for line in body]
    lines.append("    flow.finish()")
    text = "\n".join(lines).rstrip() + "\n"
    return f"{HEADER}{digest(text)}\n{text}"

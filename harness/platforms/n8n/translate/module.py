"""Assemble a scaffolded automation module from an n8n workflow, node by node, in n8n's run order.

The platform-neutral half (the ``Scaffold`` value, its table rows, the docstring, the edit
guard) is ``harness.scaffold._module``; this module is what makes the body n8n's.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import replace

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import calls, merge, nodes
from harness.platforms.n8n.translate.nodes import NodeCode, Slot
from harness.scaffold import _code, _credential
from harness.scaffold._code import name, stmts
from harness.scaffold._module import NodeRow, Scaffold, Tool, module_source, slug, unique

TOOL = Tool(
    command="n8n",
    intro=("{automation}: scaffolded by `cutover scaffold n8n` from the n8n workflow {name}.", "",
           "This is ordinary code and yours to edit; `pytest --shadow` on the workflow's recorded",
           "executions is what proves it. Every node of the workflow is a few lines below, in the",
           "order n8n ran them, with n8n's semantics (queue_core.compat.n8n)."),
    schedule_from="the workflow's trigger",
    run="Run the workflow {name} node by node, as n8n did.",
    runtime="n8n", start="flow = n8n.Flow(ctx)", finish="flow.finish()",
)

_RESERVED = {"flow", "ctx", "trigger", "items", "item", "i", "n8n", "response", "automation", "Context", "Trigger",
             "credential", "os", "TerminalError"}

TRANSLATORS: dict[str, nodes.Translator] = {
    "if": nodes.if_node, "filter": nodes.filter_node, "switch": nodes.switch_node,
    "set": nodes.set_node, "noOp": nodes.noop, "merge": merge.merge_node, "code": nodes.code_node,
    "wait": nodes.wait_node, "httpRequest": calls.http_node, "testData": nodes.test_data_node,
    **dict.fromkeys(calls.APP_TYPES, calls.app_node),  # GitHub, Slack, HubSpot, Stripe, Sheets, …
}
BRANCH_TYPES = ("if", "switch")
# Node types translated from their parameters as n8n runs them: the export's, with every default it
# left out put back from n8n's description of the type and version (harness.platforms.n8n.descriptions).
READ_WITH_DEFAULTS = frozenset({"if", "filter", "switch", "set", "merge"})


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
    body: list[ast.stmt] = []
    scaffold: Scaffold[Workflow] = Scaffold(automation, workflow, "", {}, {}, [])
    trigger = workflow.trigger()
    for name in order:
        node = workflow.nodes[name]
        inputs = _inputs(workflow, name, outputs)
        if node.execute_once:
            inputs = tuple(_code.expr("$source[:1]", source=source) for source in inputs)
        slot = Slot(names[name], inputs, unique(slug(name), steps_taken), slug(name), providers)
        code = _translate(node, slot, is_trigger=trigger is not None and name == trigger.name, looped=name in looped)
        outputs[name] = code.outputs
        body += [*code.lines, *_always_output(node, slot, code), _code.blank()]
        _account(scaffold, node, code, is_trigger=trigger is not None and name == trigger.name)
    for name, node in workflow.nodes.items():
        if name not in outputs:
            scaffold.rows.append(NodeRow(name, node.type, "not reached",
                                         "disabled" if node.disabled else "no path from the trigger"))
    scaffold.source = module_source(scaffold, TOOL, body, workflow.name)
    return scaffold


def _always_output(node: Node, slot: Slot, code: NodeCode) -> list[ast.stmt]:
    """n8n's "Always Output Data": a node that ran and output nothing outputs one empty item."""
    if not node.always_output or not code.translated or len(code.outputs) != 1 or not slot.inputs:
        return []
    (out,) = code.outputs
    reached = slot.inputs[0] if len(slot.inputs) == 1 else ast.BoolOp(ast.Or(), list(slot.inputs))
    return stmts("if $reached and not $out:\n    $note\n    $out = flow.emit($node, [{'json': {}}])",
                 reached=reached, out=name(out), note=_code.comment("Always Output Data", trailing=True),
                 node=node.name)


def _inputs(workflow: Workflow, node: str, outputs: dict[str, list[str]]) -> tuple[ast.expr, ...]:
    by_index: dict[int, list[ast.expr]] = {}
    for edge in workflow.parents(node):
        produced = outputs.get(edge.source)
        if produced is None:
            continue
        var = name(produced[edge.output]) if edge.output < len(produced) else ast.List([], ast.Load())
        by_index.setdefault(edge.input, []).append(var)
    if not by_index:
        return ()
    joined = []
    for index in range(max(by_index) + 1):
        parts = by_index.get(index) or [ast.List([], ast.Load())]
        total = parts[0]
        for part in parts[1:]:
            total = ast.BinOp(total, ast.Add(), part)
        joined.append(total)
    return tuple(joined)


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
    if node.short_type in READ_WITH_DEFAULTS:  # an export leaves out what equals n8n's default
        node = replace(node, parameters=node.settings)
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

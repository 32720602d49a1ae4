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
from harness.platforms.n8n.definition import Loop, Node, Plan, Workflow
from harness.platforms.n8n.translate import (
    ai_roots, app_email, app_feeds, app_shell, app_sql, calls, data_nodes, execution_data, expr, loops, merge, nodes, respond, sub, wait,
)
from harness.platforms.n8n.translate import data_convert
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
    "wait": wait.wait_node, "httpRequest": calls.http_node, "testData": nodes.test_data_node,
    "function": nodes.code_node, "functionItem": nodes.code_node,
    "executeWorkflow": sub.execute_workflow_node, "respondToWebhook": respond.respond_node,
    **dict.fromkeys(calls.APP_TYPES, calls.app_node),  # GitHub, Slack, HubSpot, Stripe, Sheets, …
    **data_nodes.TRANSLATORS,  # Limit, Sort, Split Out, Aggregate
    **data_convert.TRANSLATORS,  # Convert to File: JSON, text
    "executionData": execution_data.execution_data_node,
    **app_feeds.TRANSLATORS, **app_email.TRANSLATORS,  # RSS Read (a GET, rss-parser's items); Send Email (SMTP)
    **app_sql.TRANSLATORS,  # Postgres: one SQL provider call per run (after APP_TYPES: it replaces that entry)
    **app_shell.TRANSLATORS,  # SSH (ssh:// providers), Execute Command and Read Binary File (the exec:// host)
}
BRANCH_TYPES = ("if", "switch")
# Node types translated from their parameters as n8n runs them: the export's, with every default it
# left out put back from n8n's description of the type and version (harness.platforms.n8n.descriptions).
READ_WITH_DEFAULTS = frozenset({"if", "filter", "switch", "set", "merge", "executeWorkflow", "respondToWebhook"})


def _identifier(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "node"
    if base[0].isdigit():
        base = f"n_{base}"
    candidate, n = base, 2
    while candidate in taken or keyword.iskeyword(candidate) or candidate in _RESERVED:
        candidate, n = f"{base}_{n}", n + 1
    taken.add(candidate)
    return candidate


def build(workflow: Workflow, automation: str, providers: dict[str, str],
          callees: dict[str, str] | None = None) -> Scaffold[Workflow]:
    """Translate ``workflow`` into the source of one ``@automation`` module.

    ``callees`` maps the workflow ids of the estate scaffolded with it to their automations, so an
    Execute Workflow node of one becomes a child job of another.
    """
    plan = workflow.plan()
    scaffold: Scaffold[Workflow] = Scaffold(automation, workflow, "", {}, {}, [])
    builder = _Builder(workflow, _flat(plan), providers, scaffold, dict(callees or {}))
    body = builder.block(plan)
    body = sub.refuse_without_callees(scaffold) + body  # live: no node runs while a callee is not deployed
    trigger = builder.trigger
    if trigger is not None and trigger.short_type == "executeWorkflowTrigger" and trigger.name in builder.outputs:
        body += stmts("await n8n.sub_return(flow)")  # what the calling workflow's node outputs
    if trigger is not None and trigger.short_type == "webhook" and trigger.name in builder.outputs:
        body += respond.answers_when_done(trigger)  # "When Last Node Finishes": answer with its output
    for name, node in workflow.nodes.items():
        if name in builder.outputs:
            continue
        if (part := ai_roots.sub_node_row(workflow, name, scaffold.rows)) is not None:  # an AI root's model, tool, …
            scaffold.rows.append(part)
            scaffold.steps[name] = ""  # its runs in n8n's history are its root's calls: no step of its own
        elif node.short_type == "stickyNote":
            scaffold.rows.append(NodeRow(name, node.type, "note", "a sticky note on the canvas (never runs)"))
        else:
            scaffold.rows.append(NodeRow(name, node.type, "not reached",
                                         "disabled" if node.disabled else "no path from the trigger"))
    _error_workflow(scaffold, workflow, dict(callees or {}))
    scaffold.source = module_source(scaffold, TOOL, body, workflow.name)
    return scaffold


def unreadable(workflow: Workflow, automation: str, error: Exception) -> Scaffold[Workflow]:
    """Return the scaffold of a workflow the translator failed on: every node a TODO naming why.

    The estate run goes on past it; the module's run fails at once, naming the workflow.
    """
    why = f"the workflow could not be translated ({type(error).__name__}: {error})"
    rows = [NodeRow(name, node.type, "note" if node.short_type == "stickyNote" else "todo", why)
            for name, node in workflow.nodes.items()]
    scaffold: Scaffold[Workflow] = Scaffold(automation, workflow, "", {}, {}, rows)
    body = stmts("raise n8n.TodoNode($name, $why)", name=workflow.name, why=why)
    scaffold.source = module_source(scaffold, TOOL, body, workflow.name)
    return scaffold


def _flat(plan: Plan) -> list[str]:
    out: list[str] = []
    for unit in plan:
        out += [unit.header, *_flat(list(unit.body))] if isinstance(unit, Loop) else [unit]
    return out


class _Builder:
    """One module being built: the nodes' Python names, the output variables so far, the table."""

    def __init__(self, workflow: Workflow, order: list[str], providers: dict[str, str],
                 scaffold: Scaffold[Workflow], callees: dict[str, str]) -> None:
        self.workflow, self.providers, self.scaffold, self.callees = workflow, providers, scaffold, callees
        self.timezone = _valid_zone(workflow.timezone())
        taken: set[str] = set()
        self.names = {name: _identifier(name, taken) for name in order}
        self.steps_taken: set[str] = set()
        self.outputs: dict[str, list[str]] = {}
        self.trigger = workflow.trigger()
        self.loop_states: dict[str, str] = {}  # a SplitInBatches node -> its state, in a loop
        self.depth = 0

    def block(self, plan: Plan) -> list[ast.stmt]:
        """Return the code of ``plan``'s nodes and loops, in order."""
        body: list[ast.stmt] = []
        for unit in plan:
            if isinstance(unit, Loop):
                if self.depth == 0:
                    body += loops.states(self, unit)
                    self.loop_states.update({m: loops.state_var(self, m) for m in unit.members()
                                             if self.workflow.nodes[m].short_type == loops.SPLIT_IN_BATCHES})
                self.depth += 1
                body += [*loops.loop_lines(self, unit), _code.blank()]
                self.depth -= 1
            else:
                body += self.node(unit)
        return body

    def node(self, name: str, inputs: tuple[ast.expr, ...] | None = None, todo: str | None = None) -> list[ast.stmt]:
        """Return the code of one node (its inputs: from its parents' outputs, unless given; a TODO with ``todo``)."""
        node = self.workflow.nodes[name]
        if inputs is None:
            inputs = _inputs(self.workflow, name, self.outputs)
        if node.execute_once:
            inputs = tuple(_code.expr("$source[:1]", source=source) for source in inputs)
        slot = Slot(self.names[name], inputs, unique(slug(name), self.steps_taken), slug(name), self.providers,
                    timezone=self.timezone, callees=self.callees)
        is_trigger = self.trigger is not None and name == self.trigger.name
        if todo is not None:
            code = nodes.todo(node, slot, todo)
        elif node.short_type == loops.SPLIT_IN_BATCHES and not is_trigger and node.type.startswith("n8n-nodes-base."):
            code = loops.split_in_batches(node, slot, self.loop_states.get(name))
        elif not is_trigger and ai_roots.is_root(node):  # @n8n/n8n-nodes-langchain: its sub-nodes are the workflow's
            code = ai_roots.root_node(node, slot, self.workflow)
        else:
            code = _translate(node, slot, is_trigger=is_trigger)
        self.outputs[name] = code.outputs
        _account(self.scaffold, node, code, is_trigger=is_trigger)
        return [*code.lines, *_always_output(node, slot, code), _code.blank()]


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


def _translate(node: Node, slot: Slot, *, is_trigger: bool) -> NodeCode:
    if is_trigger:
        return sub.trigger_node(node, slot) if node.short_type == "executeWorkflowTrigger" else nodes.trigger(node, slot)
    known = node.type.startswith(("n8n-nodes-base.", "n8n-nodes-testing."))
    translator = TRANSLATORS.get(node.short_type) if known else None
    if translator is None:
        return nodes.todo(node, slot, f"no translation for node type {node.type}")
    if node.short_type in READ_WITH_DEFAULTS:  # an export leaves out what equals n8n's default
        node = replace(node, parameters=node.settings)
    try:
        return expr.note_kept(translator(node, slot))
    except Untranslatable as exc:
        return nodes.todo(node, slot, exc.reason, verbatim=_verbatim(node))
    except Exception as exc:  # noqa: BLE001 - parameters of a shape no translator expects: the estate run goes on
        return nodes.todo(node, slot, f"its parameters could not be read ({type(exc).__name__}: {exc})",
                          verbatim=_verbatim(node))


def _error_workflow(scaffold: Scaffold[Workflow], workflow: Workflow, callees: dict[str, str]) -> None:
    """The workflow's ``errorWorkflow`` setting: the estate's automation it names starts on a failure."""
    wanted = workflow.settings.get("errorWorkflow")
    if not isinstance(wanted, str) or not wanted:
        return
    scaffold.error_automation = callees.get(wanted)
    if scaffold.error_automation is None:
        note = (f"its error workflow {wanted} is not in the scaffolded estate: scaffold the directory holding "
                "both, or set error_automation= by hand")
        at = next((i for i, r in enumerate(scaffold.rows) if r.status == "trigger"), None)
        if at is not None:
            scaffold.rows[at] = replace(scaffold.rows[at], why="; ".join(filter(None, [scaffold.rows[at].why, note])))


def _valid_zone(tz: str | None) -> str | None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return tz if tz is not None and ZoneInfo(tz) else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _zone(scaffold: Scaffold[Workflow], node: Node, code: NodeCode) -> None:
    """A schedule ticks in the workflow's timezone; with none set, n8n used its instance's."""
    tz = scaffold.workflow.timezone()
    assert code.schedule is not None
    if _valid_zone(tz):
        code.schedule["timezone"] = tz
        return
    unset = (f"the workflow's timezone {tz!r} is not an IANA name" if tz else "the workflow sets no timezone")
    code.why = "; ".join(filter(None, [code.why, f"{unset}: n8n used the instance's GENERIC_TIMEZONE "
                                                  "(America/New_York unless set); the schedule is in UTC: set timezone="]))


def _verbatim(node: Node) -> str:
    import json

    return json.dumps(_credential.redacted(node.parameters), indent=2, ensure_ascii=False)


def _account(scaffold: Scaffold[Workflow], node: Node, code: NodeCode, *, is_trigger: bool) -> None:
    scaffold.steps[node.name] = code.call_step or ""
    if code.decision is not None:
        scaffold.decisions[node.name] = code.decision
    scaffold.proposals.update(code.provider_proposals)
    scaffold.credentials += code.credentials
    scaffold.missing.update(code.needs)
    if is_trigger:
        kind = node.short_type.lower()
        scaffold.trigger_kind = "webhook" if code.source else ("schedule" if kind in ("scheduletrigger", "cron")
                                                               else kind.removesuffix("trigger") or kind)
        scaffold.schedule = code.schedule
        if code.schedule is not None:
            _zone(scaffold, node, code)
        scaffold.rows.append(NodeRow(node.name, node.type, "trigger", code.why or ""))
        return
    status = "translated" if code.translated else "todo"
    scaffold.rows.append(NodeRow(node.name, node.type, status, code.why or ""))

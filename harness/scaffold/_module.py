"""Assemble a scaffolded automation module from a workflow, node by node, in n8n's run order."""

from __future__ import annotations

import hashlib
import inspect
import keyword
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from harness.scaffold import _calls, _credential, _nodes
from harness.scaffold._credential import Credential
from harness.scaffold._nodes import NodeCode, Slot
from harness.scaffold._workflow import Node, Workflow
from harness.errors import Untranslatable

HEADER = "# cutover-scaffold: sha256="
_RESERVED = {"flow", "ctx", "trigger", "items", "item", "i", "n8n", "response", "automation", "Context", "Trigger",
             "credential", "os", "TerminalError"}

TRANSLATORS: dict[str, _nodes.Translator] = {
    "if": _nodes.if_node, "filter": _nodes.filter_node, "switch": _nodes.switch_node,
    "set": _nodes.set_node, "noOp": _nodes.noop, "merge": _nodes.merge_node, "code": _nodes.code_node,
    "wait": _nodes.wait_node, "httpRequest": _calls.http_node, "testData": _nodes.test_data_node,
    **dict.fromkeys(_calls.APP_TYPES, _calls.app_node),  # GitHub, Slack, HubSpot, Stripe, Sheets, …
}
BRANCH_TYPES = ("if", "switch")


@dataclass(frozen=True)
class NodeRow:
    """One line of the scaffold's table: a node and what became of it."""

    node: str
    type: str
    status: str  # translated | todo | trigger | not reached
    why: str = ""


W = TypeVar("W")  # what was scaffolded: an n8n Workflow, a Make Blueprint


@dataclass
class Scaffold(Generic[W]):
    """What scaffolding one workflow (or, as ``MakeScaffold``, one Make scenario) produced."""

    unit: ClassVar[str] = "node"  # what the scaffold's tables count, and what was scaffolded
    kind: ClassVar[str] = "workflow"

    automation: str
    workflow: W
    source: str
    steps: dict[str, str]
    decisions: dict[str, str]
    rows: list[NodeRow]
    proposals: dict[str, str] = field(default_factory=dict)
    trigger_kind: str = "manual"
    schedule: dict[str, Any] | None = None
    credentials: list[Credential] = field(default_factory=list)  # now read from the environment

    @property
    def translated(self) -> int:
        """Return how many nodes (modules) were translated (the trigger included)."""
        return sum(1 for r in self.rows if r.status in ("translated", "trigger"))

    @property
    def todo(self) -> int:
        """Return how many nodes (modules) are left for a person."""
        return sum(1 for r in self.rows if r.status == "todo")


def slug(name: str) -> str:
    """Return a step name for a node name: lower case, words joined by dashes."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text or "node"


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


def unique(name: str, taken: set[str]) -> str:
    """Return ``name``, or ``name-2``, ``name-3``… the first not in ``taken`` (which it joins)."""
    step = name
    candidate, n = step, 2
    while candidate in taken:
        candidate, n = f"{step}-{n}", n + 1
    taken.add(candidate)
    return candidate


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
        return _nodes.trigger(node, slot)
    if looped:
        return _nodes.todo(node, slot, "this node is part of a loop (SplitInBatches / a connection back): "
                                       "write the loop in Python")
    known = node.type.startswith(("n8n-nodes-base.", "n8n-nodes-testing."))
    translator = TRANSLATORS.get(node.short_type) if known else None
    if translator is None:
        return _nodes.todo(node, slot, f"no translation for node type {node.type}")
    try:
        return translator(node, slot)
    except Untranslatable as exc:
        return _nodes.todo(node, slot, exc.reason, verbatim=_verbatim(node))


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
    if scaffold.schedule and _registry_takes("schedule"):
        args.append(f"schedule={scaffold.schedule['cron']!r}")
    return f"@automation({', '.join(args)})"


def _registry_takes(name: str) -> bool:
    from queue_core import automation

    try:
        return name in inspect.signature(automation).parameters
    except (TypeError, ValueError):
        return False


def module_docstring(intro: list[str], *, schedule: str | None, unit: str, todo: list[NodeRow],
                     proposals: dict[str, str], credentials: list[Credential] | None = None) -> list[str]:
    """Return the lines of a scaffolded module's docstring: ``intro``, the schedule, what is left
    to write (each ``unit``, node or module, that fails the run until written), the credentials
    now read from the environment and the providers to configure; never two blank lines in a row."""
    doc = [f'"""{intro[0]}', *intro[1:], ""]
    if schedule:
        doc.append(schedule)
    if todo:
        doc += [f"Left to write by hand (each fails the run, naming the {unit}, until written):"]
        doc += [f"- {r.node}: {r.why}" for r in todo]
    if credentials:
        doc += ["", "Credentials the workflow held in clear, now read from the environment (never written here):"]
        doc += [f"- {line}" for line in credential_lines(credentials)]
    auth = _credential.auth_envs(credentials or [])
    if proposals:
        doc += ["", "Providers to configure in pyproject.toml (proposed for hosts with none):"]
        for name, base in sorted(proposals.items()):
            doc += [f"    [tool.cutover.providers.{name}]", f'    base_url = "{base}"']
            doc += [f'    auth_env = "{auth[name]}"'] if name in auth else []
    configured = sorted(set(auth) - set(proposals))
    if configured:
        doc += ["", "Providers configured already: add auth_env to their table in pyproject.toml:"]
        doc += [f'    [tool.cutover.providers.{name}] auth_env = "{auth[name]}"' for name in configured]
    doc.append('"""')
    return [line for i, line in enumerate(doc) if line or (i + 1 < len(doc) and doc[i + 1])]


def credential_lines(credentials: list[Credential]) -> list[str]:
    """Return one line per credential (each variable once): the variable to set and where it was."""
    seen: dict[str, str] = {}
    for found in credentials:
        line = found.line() + ("; the provider sends it as Authorization: Bearer (auth_env)" if found.bearer
                               else "; the module reads it when it calls")
        seen.setdefault(found.env, line)
    return list(seen.values())


def credential_reader(credentials: list[Credential]) -> tuple[list[str], list[str]]:
    """Return (extra imports, the ``credential`` function's lines) when a call reads one, else ([], [])."""
    if all(c.bearer for c in credentials):
        return [], []
    return ["import os", ""], [*_credential.HELPER, "", ""]


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


def digest(text: str) -> str:
    """Return the short digest recorded in a generated file's first line."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def edited(existing: str) -> bool:
    """Return whether a generated file was changed by a person since it was written."""
    first, _, rest = existing.partition("\n")
    if not first.startswith(HEADER):
        return True
    return first[len(HEADER):].strip() != digest(rest)

"""Every branch of an n8n workflow, named as ``cutover import n8n`` records it.

For branch coverage from the definition (``harness.coverage``). The branching nodes and their
outputs, per typeVersion (from n8n's node descriptions):

- **IF** v1, v2, v2.1, v2.2, v2.3: outputs ``true`` and ``false``.
- **Switch** v1: four fixed outputs; rules mode routes to each rule's ``output`` (default 0,
  which exports omit) and to ``fallbackOutput`` (default -1, none), so the branches are the
  outputs the rules and the fallback name; expression mode: outputs 0-3. v2: one output per rule
  of ``rules.rules`` (its ``outputKey`` is the label), ``fallbackOutput`` an index into them;
  expression mode: ``outputsAmount`` outputs (default 4). v3-v3.4: one output per rule of
  ``rules.values`` (renamed by ``outputKey`` when ``renameOutput``), plus an extra output when
  ``options.fallbackOutput`` is ``"extra"`` (named ``renameFallbackOutput``, default
  "Fallback"); an index sends the rest to that rule's output, ``"none"`` (the default) drops it;
  expression mode: ``numberOutputs`` outputs (default 4).
- **Filter** v1, v2-v2.2: *kept* and *discarded*.
- **Loop Over Items** (SplitInBatches) v2: outputs ``loop``, ``done``; v3: ``done``, ``loop``; v1
  has one output (no branch).
- **Any node** set to "continue (using error output)" (``onError: continueErrorOutput``): an
  extra ``error`` output (IF/Switch add it to theirs; another node decides success or error).

IF, Switch and error outputs are decisions the importer records; their values here are the ones
it records (``harness.platforms.n8n.runs.branch_of`` is asked, for a run that sent items to that
output alone). Filter and loop outputs are no decision: a trace shows them by its path — an
output was taken when the node fed only by it ran ("ran"); a Filter discarded when it ran and
its kept output's node did not ("stopped": a run that dropped some items but kept others is
counted as kept only). Where no node shows it (nothing connected, or the step is mapped to
``""``), the branch is "unreadable", never counted as taken.

A node of a version not listed, or whose rules cannot be read, raises ``BranchesUnreadable``
naming it: ``branch_coverage = "definition"`` then fails with that reason.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.importer._run import decision, step_name
from harness.manifest import AutomationEntry
from harness.platforms.adapter import Branch, BranchesUnreadable
from harness.platforms.n8n.definition import Node, Workflow, load_workflows
from harness.platforms.n8n.runs import ERROR_OUTPUT, NodeRun, branch_of, output_names

VERSIONS: dict[str, tuple[float, ...]] = {
    "if": (1, 2, 2.1, 2.2, 2.3),
    "switch": (1, 2, 3, 3.1, 3.2, 3.3, 3.4),
    "filter": (1, 2, 2.1, 2.2),
    "splitInBatches": (1, 2, 3),
}
_LOOP_NAMES = {2: ("loop", "done"), 3: ("done", "loop")}


def _unreadable(node: Node, why: str) -> BranchesUnreadable:
    return BranchesUnreadable(f"node {node.name!r} ({node.short_type} v{node.version:g}): {why}")


def _index(node: Node, value: Any, what: str, low: int, high: int | None) -> int:
    """An output index parameter, checked (an expression or a junk value cannot be read)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise _unreadable(node, f"{what} is {value!r}, not an output index")
    if value < low or (high is not None and value > high):
        raise _unreadable(node, f"{what} {int(value)} is outside the node's outputs")
    return int(value)


def _rules(node: Node, key: str) -> list[dict[str, Any]]:
    rules = node.settings.get("rules")
    if rules is None:
        return []
    listed = rules.get(key) if isinstance(rules, dict) else None
    if listed is None and isinstance(rules, dict):
        return []
    if not isinstance(listed, list) or not all(isinstance(r, dict) for r in listed):
        raise _unreadable(node, f"rules.{key} is not a list of rules")
    return listed


def _switch(node: Node) -> list[tuple[int, str]]:
    """(output index, output name) of each output a Switch can send items to.

    Parameters are read from ``node.settings`` (n8n's defaults put back, e.g. a v1 rule's
    ``output`` 0 that exports omit); names are ``runs.output_names``, the importer's own.
    """
    params = node.settings
    version = int(node.version)
    names = output_names(node)
    expression = params.get("mode") == "expression"
    if version == 1:
        if expression:
            return [(i, names[i]) for i in range(4)]
        used = {_index(node, r.get("output"), f"rule {i}'s output", 0, 3) for i, r in enumerate(_rules(node, "rules"))}
        fallback = _index(node, params.get("fallbackOutput"), "fallbackOutput", -1, 3)
        return [(i, names[i]) for i in sorted(used | ({fallback} - {-1}))]
    if expression:
        amount = params.get("outputsAmount" if version == 2 else "numberOutputs")
        return [(i, str(i)) for i in range(_index(node, amount, "the number of outputs", 1, None))]
    if version == 2:
        rules = _rules(node, "rules")
        _index(node, params.get("fallbackOutput"), "fallbackOutput", -1, len(rules) - 1)
        return list(enumerate(names))
    rules = _rules(node, "values")
    options: dict[str, Any] = params["options"] if isinstance(params.get("options"), dict) else {}
    fallback = options.get("fallbackOutput", "none")  # an option of a collection: n8n fills no default there
    if fallback not in ("none", "extra"):
        _index(node, fallback, "options.fallbackOutput", 0, len(rules) - 1)
    return list(enumerate(names))


def _recorded(node: Node, index: int, count: int) -> str:
    """The decision value the importer records for a run of ``node`` that sent items to ``index`` alone."""
    outputs: list[list[dict[str, Any]]] = [[] for _ in range(count)]
    outputs[index] = [{"json": {}}]
    value = branch_of(NodeRun(node.name, {"data": {"main": outputs}}, node))
    return str(value)


def _decision_branches(node: Node, outputs: list[tuple[int, str]], entry: AutomationEntry) -> list[Branch]:
    errors = node.on_error == ERROR_OUTPUT
    own = outputs + ([(max((i for i, _ in outputs), default=-1) + 1, "error")] if errors else [])
    count = max((i for i, _ in own), default=-1) + 1
    out = []
    for index, name in own:
        label, value = decision(entry, node.name, _recorded(node, index, count))
        out.append(Branch(node.name, "error-output" if errors and index == count - 1 else node.short_type,
                          name, str(label), str(value)))
    return out


def _fed_only_by(workflow: Workflow, node: Node, output: int, entry: AutomationEntry) -> list[str]:
    """The steps of the nodes on ``output`` of ``node`` that nothing else feeds (their run proves the output)."""
    steps = []
    for edge in workflow.children(node.name):
        target = workflow.nodes.get(edge.target)
        if edge.output != output or target is None or target.disabled:
            continue
        if all(e.source == node.name and e.output == output for e in workflow.parents(edge.target)):
            step = step_name(entry, edge.target)
            if step is not None:
                steps.append(step)
    return steps


def _path_branches(workflow: Workflow, node: Node, entry: AutomationEntry) -> list[Branch]:
    """A Filter's kept/discarded or a loop's outputs, as the trace's path shows them."""
    if node.short_type == "filter":
        kept = _fed_only_by(workflow, node, 0, entry)
        own = step_name(entry, node.name)
        if not kept:
            why = "no node fed only by the kept output is in the recorded path, so neither can be told apart"
            return [Branch(node.name, "filter", o, node.name, o, "unreadable", (), why) for o in ("kept", "discarded")]
        out = [Branch(node.name, "filter", "kept", node.name, "kept", "ran", tuple(kept))]
        if own is None:
            return out + [Branch(node.name, "filter", "discarded", node.name, "discarded", "unreadable", (),
                                 "the Filter's step is mapped to \"\", so the path cannot show it ran")]
        return out + [Branch(node.name, "filter", "discarded", node.name, "discarded", "stopped", (own, *kept))]
    names = _LOOP_NAMES.get(int(node.version))
    if names is None:  # v1: one output, the loop is closed by the nodes after it
        return []
    out = []
    for index, name in enumerate(names):
        steps = _fed_only_by(workflow, node, index, entry)
        read, note = ("ran", "") if steps else ("unreadable", f"no node fed only by the {name} output is in the path")
        out.append(Branch(node.name, "loop", name, node.name, name, read, tuple(steps), note))
    return out


def _error_branches(node: Node, entry: AutomationEntry) -> list[Branch]:
    out = []
    for index, name in enumerate(("success", "error")):
        label, value = decision(entry, node.name, _recorded(node, index, 2))
        out.append(Branch(node.name, "error-output", name, str(label), str(value)))
    return out


def every_branch(workflow: Workflow, entry: AutomationEntry) -> list[Branch]:
    """Return every branch of ``workflow`` (nodes in run order); raise BranchesUnreadable naming a node it cannot read."""
    order, _ = workflow.order()
    out: list[Branch] = []
    for name in order:
        node = workflow.nodes[name]
        kind = node.short_type
        if kind in VERSIONS and node.version not in VERSIONS[kind]:
            known = ", ".join(f"v{v:g}" for v in VERSIONS[kind])
            raise _unreadable(node, f"branch coverage reads {kind} {known} only")
        if kind == "if":
            out += _decision_branches(node, [(0, "true"), (1, "false")], entry)
        elif kind == "switch":
            out += _decision_branches(node, _switch(node), entry)
        elif kind in ("filter", "splitInBatches"):
            out += _path_branches(workflow, node, entry)
            out += _error_branches(node, entry) if node.on_error == ERROR_OUTPUT else []
        elif node.on_error == ERROR_OUTPUT:
            out += _error_branches(node, entry)
    return out


def branches(workflow: Workflow, entry: AutomationEntry) -> list[Branch]:
    """Return the IF/Switch outputs of ``workflow`` in output order, each valued by its output
    name (what ``cutover scaffold probe-triggers`` searches triggers for, as it did before branch
    coverage read the importer's values: the importer records an extra Switch fallback by its
    index). Branch coverage reads :func:`every_branch`."""
    out = []
    for b in every_branch(workflow, entry):
        if b.kind in ("if", "switch"):
            mapped = entry.decisions.get(b.node)
            out.append(replace(b, value=mapped.values.get(b.output, b.output) if mapped else b.output))
    return out


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read an n8n workflow file of one workflow and return its branches."""
    workflows = load_workflows(definition)
    if len(workflows) != 1:
        raise BranchesUnreadable(f"{definition} holds {len(workflows)} workflows; branch coverage reads a file of one")
    return every_branch(workflows[0], entry)


def covers_branches(definition: Path) -> bool:
    """Whether branch coverage can read ``definition``: a file of exactly one workflow."""
    return len(load_workflows(definition)) == 1

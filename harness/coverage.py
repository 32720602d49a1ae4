"""Branch coverage from the workflow definition: every branch, and how many recorded runs took it.

A recording set proves only the branches its traffic took. The legacy definition knows all of
them: each IF's true and false outputs, each Switch's outputs (renamed, and the fallback). For
an automation whose manifest entry names its ``definition`` (an n8n workflow file; for a Make
automation, a scenario blueprint, whose Routers' routes are its branches), ``branches``
lists every such output with the decision name and value ``cutover import n8n`` records for it
(through the entry's ``steps``/``decisions`` maps), and ``coverage`` counts the legacy traces that
took each one. A branch no recorded trigger took is untested: the report lists it, and
``[tool.cutover.gate] branch_coverage = "definition"`` makes it a NOT READY reason.

Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.manifest import AutomationEntry
from harness.recording import LegacyTrace, Platform
from harness.scaffold._workflow import Node, Workflow, load_workflows


@dataclass(frozen=True)
class Branch:
    """One output of a branch node of the definition."""

    node: str
    kind: str  # if | switch (n8n) | router (Make)
    output: str  # the output's name in the definition (true, false, a rule's key, the fallback)
    decision: str  # the decision name the importer records for the node
    value: str  # the decision value the importer records for this output


@dataclass(frozen=True)
class BranchCount:
    """A branch and the number of legacy traces that took it."""

    branch: Branch
    taken: int


def _outputs(node: Node) -> list[str]:
    kind = node.short_type
    if kind == "if":
        return ["true", "false"]
    params = node.parameters
    if params.get("mode") == "expression":
        return [str(i) for i in range(int(params.get("numberOutputs", 4)))]
    rules = ((params.get("rules") or {}).get("values")) or []
    names = [str(r.get("outputKey")) if r.get("renameOutput") and r.get("outputKey") else str(i)
             for i, r in enumerate(rules)]
    options = params.get("options") or {}
    if options.get("fallbackOutput") == "extra":
        names.append(str(options.get("renameFallbackOutput") or "Fallback"))
    return names


def branches(workflow: Workflow, entry: AutomationEntry) -> list[Branch]:
    """Return every IF/Switch output of ``workflow``, named as the importer names decisions."""
    order, _ = workflow.order()
    out = []
    for name in order:
        node = workflow.nodes[name]
        if node.short_type not in ("if", "switch"):
            continue
        mapped = entry.decisions.get(name)
        decision = mapped.name if mapped else (entry.steps.get(name) or name)
        for output in _outputs(node):
            value = mapped.values.get(output, output) if mapped else output
            out.append(Branch(name, node.short_type, output, decision, value))
    return out


def _took(trace: LegacyTrace, branch: Branch) -> bool:
    value: Any = trace.decisions.get(branch.decision)
    if isinstance(value, list):
        return branch.value in [str(v) for v in value]
    return value is not None and str(value) == branch.value


def coverage(found: list[Branch], traces: Iterable[LegacyTrace]) -> list[BranchCount]:
    """Count, for each branch, the legacy traces whose decisions took it."""
    counts = dict.fromkeys(found, 0)
    for trace in traces:
        for branch in found:
            if _took(trace, branch):
                counts[branch] += 1
    return [BranchCount(b, counts[b]) for b in found]


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read the entry's definition and return its branches.

    For a Make automation the file is a scenario blueprint and the branches are its Routers'
    routes (named as ``cutover import make`` names the decision); otherwise it is an n8n workflow
    file, of which the first workflow is read.
    """
    if entry.platform is Platform.MAKE:
        from harness.scaffold._make_blueprint import load_blueprint  # imports this module's Branch
        from harness.scaffold._make_branches import router_branches

        return router_branches(load_blueprint(definition), entry)
    return branches(load_workflows(definition)[0], entry)


def untaken(counts: list[BranchCount]) -> list[Branch]:
    """Return the branches no recorded trigger took."""
    return [c.branch for c in counts if c.taken == 0]


def definition_rows(definition: Path, entry: AutomationEntry, legacy: dict[str, int],
                    key: Any) -> list[dict[str, Any]]:
    """Return the report rows of a definition's branches, counted from the legacy branch table.

    ``legacy`` maps a branch key (``route=bug``) to the recorded triggers that took it; ``key``
    turns a Branch into that key (the report normalises values as the diff does).
    """
    return [{"node": b.node, "kind": b.kind, "output": b.output, "branch": key(b), "taken": legacy.get(key(b), 0)}
            for b in definition_branches(definition, entry)]

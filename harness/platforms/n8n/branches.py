"""Every IF and Switch output of an n8n workflow, named as ``cutover import n8n`` names its decisions.

For branch coverage from the definition (``harness.coverage``): each IF's true and false
outputs, each Switch's outputs (renamed, and the fallback), with the decision name and value the
importer records for it through the entry's ``steps``/``decisions`` maps.
"""

from __future__ import annotations

from pathlib import Path

from harness.manifest import AutomationEntry
from harness.platforms.adapter import Branch
from harness.platforms.n8n.definition import Node, Workflow, load_workflows


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


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read an n8n workflow file and return the branches of its first workflow."""
    return branches(load_workflows(definition)[0], entry)


def covers_branches(definition: Path) -> bool:
    """Whether branch coverage can read ``definition``: a file of exactly one workflow."""
    return len(load_workflows(definition)) == 1

"""Branch coverage from the workflow definition: every branch, and how many recorded runs took it.

A recording set proves only the branches its traffic took. The legacy definition knows all of
them: each IF's true and false outputs, each Switch's outputs (renamed, and the fallback). For
an automation whose manifest entry names its ``definition`` (an n8n workflow file; for a Make
automation, a scenario blueprint, whose Routers' routes are its branches), the tool's adapter
lists every such output (``harness.platforms.<tool>.branches``) with the decision name and value
the importer records for it (through the entry's ``steps``/``decisions`` maps), and ``coverage``
counts the legacy traces that took each one. A branch no recorded trigger took is untested: the report lists it, and
``[tool.cutover.gate] branch_coverage = "definition"`` makes it a NOT READY reason.

Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.manifest import AutomationEntry
from harness.platforms import adapter_for
from harness.platforms.adapter import Branch
from harness.recording import LegacyTrace, Platform


@dataclass(frozen=True)
class BranchCount:
    """A branch and the number of legacy traces that took it."""

    branch: Branch
    taken: int


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
    """Read the entry's definition and return its branches, through the entry's tool.

    For a Make automation the file is a scenario blueprint and the branches are its Routers'
    routes (named as ``cutover import make`` names the decision); for any other tool it is read
    as an n8n workflow file, of which the first workflow is read (as before the tools had
    folders: only n8n and Make list branches).
    """
    reader = adapter_for(entry.platform).branches or adapter_for(Platform.N8N).branches
    assert reader is not None  # n8n lists branches
    return reader(definition, entry)


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

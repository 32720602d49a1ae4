"""Every path and filter of a Zap, named as ``cutover import zapier`` records them.

For branch coverage from the definition (``harness.coverage``), from the Zapfile (``gdpr_v1`` or
version 2): a ``BranchingAPI`` branch step's paths are one decision, named after the branch
step (through the entry's ``decisions`` map) and valued with the label of the path that ran; a
Filter step is a decision valued ``passed`` or ``stopped``. Both are what the importer records
from a run's step statuses. The Partner API's ``/v2/zaps`` page lists a Zap's steps as a linear
chain, so paths cannot be read from it: ``BranchesUnreadable`` says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.importer._run import decision
from harness.manifest import AutomationEntry
from harness.platforms.adapter import Branch, BranchesUnreadable
from harness.platforms.zapier.definition import ZapDefinition, read_zaps
from harness.scaffold._foreign import read_json


def zap_branches(zap: ZapDefinition, entry: AutomationEntry) -> list[Branch]:
    """Return every path of every branch step, and both outcomes of every filter, in editor order."""
    out: list[Branch] = []
    for step in zap.steps:
        if step.kind == "filter":
            for value in ("passed", "stopped"):
                name, mapped = decision(entry, step.label, value)
                out.append(Branch(step.label, "filter", value, str(name), str(mapped)))
        elif step.kind == "path" and step.branch:
            name, mapped = decision(entry, step.branch, step.label)
            out.append(Branch(step.branch, "path", step.label, str(name), str(mapped)))
    return out


def _zap(document: Any, entry: AutomationEntry, where: str) -> ZapDefinition:
    if isinstance(document, dict) and not isinstance(document.get("zaps"), list) and isinstance(document.get("data"), list):
        raise BranchesUnreadable(f"{where} is a /v2/zaps page, which lists a Zap's steps as a chain: its paths "
                                 "and filters cannot be read (use the account export's Zapfile.json)")
    zaps = read_zaps(document)
    if not zaps:
        raise BranchesUnreadable(f"{where} holds no Zap (expected a Zapfile with zaps[])")
    if len(zaps) == 1:
        return zaps[0]
    wanted = [z for z in zaps if z.id is not None and z.id in entry.legacy_workflows]
    if len(wanted) != 1:
        raise BranchesUnreadable(f"{where} holds {len(zaps)} Zaps and the entry's legacy_workflows name "
                                 f"{len(wanted)} of them; branch coverage needs exactly one")
    return wanted[0]


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read a Zapfile and return the paths and filters of the entry's Zap."""
    return zap_branches(_zap(read_json(definition), entry, str(definition)), entry)


def covers_branches(definition: Path) -> bool:
    """Whether branch coverage can read ``definition``: a Zapfile of Zaps (not a /v2/zaps page)."""
    document = read_json(definition)
    return isinstance(document, dict) and isinstance(document.get("zaps"), list)

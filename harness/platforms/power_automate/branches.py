"""Every branch of a Power Automate flow definition, named as ``cutover import power-automate`` records it.

For branch coverage from the definition (``harness.coverage``): each If has two branches
(``true``, ``false``) and each Switch one per case (valued with the case's value, as the importer
values it) and ``default``; the importer records a decision named after the action (through the
entry's ``decisions`` map) valued with the branch taken. Branches nested in a loop are listed once.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import ExportFormatError
from harness.importer._run import decision
from harness.importer.definition import flow_definition
from harness.manifest import AutomationEntry
from harness.platforms.adapter import Branch
from harness.platforms.power_automate.definition import IF_TYPE, PowerAutomateFlow, documents, read_flow, switch_cases


def flow_branches(flow: PowerAutomateFlow, entry: AutomationEntry) -> list[Branch]:
    """Return every branch of ``flow``: the Ifs' true/false, the Switches' cases and default."""
    out: list[Branch] = []
    for action in flow.branches():
        if action.type == IF_TYPE:
            outputs = [("true", "true"), ("false", "false")]
            kind = "if"
        else:
            outputs = [(case, label) for (label, _), case in
                       zip(switch_cases(action.spec), sorted((action.spec.get("cases") or {})), strict=True)]
            outputs.append(("default", "default"))
            kind = "switch"
        for output, raw in outputs:
            name, value = decision(entry, action.name, raw)
            out.append(Branch(action.name, kind, output, str(name), str(value)))
    return out


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read a flow definition file and return its branches; ExportFormatError when it holds no flow."""
    for _, document in documents(definition):
        flow = read_flow(document)
        if flow is not None:
            return flow_branches(flow, entry)
    raise ExportFormatError(str(definition), None, None, "not a Power Automate flow definition (no 'triggers' and "
                            "'actions' objects): branch coverage reads the flow's definition.json")


def covers_branches(definition: Path) -> bool:
    """Whether branch coverage can read ``definition``: a JSON file holding one flow definition."""
    try:
        found = [d for _, d in documents(definition) if flow_definition(d) is not None]
    except (ExportFormatError, OSError):  # unreadable: no coverage from it
        return False
    return len(found) == 1

"""Node outputs and unfinished runs: what a scaffolded workflow's run is judged on beyond its decisions.

**Node outputs.** Where the legacy export records every node's output items (n8n's runData, kept
as :attr:`~harness.recording.LegacyTrace.nodes`) and the new code records its own (a scaffolded
workflow's ``Flow``, ``trace["nodes"]``), every node present on both sides is compared item by
item, per output index: ``nodes["Edit Fields"][0][2].code`` is field ``code`` of the third item of
output 0. A node present on one side only is a disagreement on ``nodes[<node>]``
(``missing_in_new``/``extra_in_new``). Not compared: the trigger's node (recorded as ``None``: it
is the recorded trigger, the replay's own input) and the nodes the manifest excludes with a
reason (``[automations.<name>.outputs] exclude``). When the new code records no node outputs at
all (hand-written code), none are compared, and the verdict does not claim they were. Both sides
cap an output at ``queue_core.compat.n8n.OUTPUT_ITEMS_CAP`` items (past it, a marker string
with the count of the rest), so the comparison and the stored traces stay bounded.

**Unfinished.** A run that reached code the scaffold did not translate (``TodoNode``,
``TodoModule``: its error begins with the class name) is *unfinished*: never agreement, whatever
the legacy run did. **Where a failed run failed** is compared when both sides failed:
``failed_at`` is the node the run stopped at. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.manifest import Coercion
from harness.shadow.diff import Disagreement, diff_traces

_TODO = re.compile(r"^(?:TodoNode|TodoModule): (?:node|module) '(?P<node>.+?)' is not translated yet")
_NODE_FAILED = re.compile(r"^(?:NodeFailed|ModuleFailed|N8nConditionError): (?P<node>[^:\n]+?): ")
TRIGGER_REASON = "the trigger: the replay's own input"


def unfinished(error: Any) -> str | None:
    """Return the untranslated node a failed run reached (from its error text), else None."""
    found = _TODO.match(error) if isinstance(error, str) else None
    return found.group("node") if found else None


def failed_node(error: Any, nodes: Collection[str | None]) -> str | None:
    """Return the node a failed new run stopped at, when its error names one of ``nodes``."""
    if not isinstance(error, str):
        return None
    todo = unfinished(error)
    if todo is not None:
        return todo
    found = _NODE_FAILED.match(error)
    return found.group("node") if found and found.group("node") in nodes else None


@dataclass
class NodesCompared:
    """What the node comparison did: its disagreements, and which nodes it compared or left out."""

    disagreements: list[Disagreement] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)  # node -> why it was not compared
    one_side: list[str] = field(default_factory=list)  # nodes only one side ran
    legacy: dict[str, Any] = field(default_factory=dict)  # the differing nodes' outputs, for exemplars
    new: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        """Return what a result row says of the node comparison."""
        return {"compared": self.compared, "excluded": sorted(self.excluded), "one_side": self.one_side,
                "differing": sorted(self.legacy.keys() | self.new.keys())}


def compare_nodes(legacy: Mapping[str, Any], new: Mapping[str, Any], exclude: Mapping[str, str],
                  coercion: Coercion) -> NodesCompared:
    """Compare the node outputs both sides recorded (see the module docstring)."""
    out = NodesCompared()
    for name in sorted(legacy.keys() | new.keys()):
        old, value = legacy.get(name), new.get(name)
        if name in exclude:
            out.excluded[name] = exclude[name]
        elif name in legacy and old is None:
            out.excluded[name] = TRIGGER_REASON
        elif name not in new or name not in legacy:
            out.one_side.append(name)
            kind = "missing_in_new" if name not in new else "extra_in_new"
            out.disagreements.append(Disagreement(_path(name), kind, old, value))
            out.legacy[name], out.new[name] = old, value
        else:
            out.compared.append(name)
            found = diff_traces({"nodes": {name: old}}, {"nodes": {name: value}}, coercion)
            if found:
                out.disagreements.extend(found)
                out.legacy[name], out.new[name] = old, value
    return out


def _path(name: str) -> str:
    return diff_traces({"nodes": {name: 0}}, {"nodes": {name: 1}})[0].path


def failure_disagreement(legacy_node: str | None, new_node: str | None) -> list[Disagreement]:
    """Return the ``failed_at`` disagreement of two failed runs that stopped at different nodes."""
    if legacy_node is None or new_node is None or legacy_node == new_node:
        return []
    return [Disagreement("failed_at", "value_changed", legacy_node, new_node)]

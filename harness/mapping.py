"""Propose the manifest's ``steps``/``decisions`` maps for a workflow an import has just read.

A legacy export names its steps after the workflow's nodes ("Add labels", "Is opened?") and
records a branch decision under the node that made it; the migrated code names its steps and
decisions itself (``ctx.step("add-labels")``, ``ctx.decide("opened", ...)``). Until the manifest
maps one onto the other every trigger disagrees on ``path[*]``. :func:`propose_maps` writes the
obvious first draft: every node to a slug of its name, and every branch node (IF, Switch,
Router, Filter) to ``""`` in ``steps`` — a decision is not a step of the new code — with its
decision named by the same slug in ``decisions``. :func:`proposal_lines` renders it as
*commented* TOML, which ``cutover import`` adds to ``manifest.toml`` on the automation's first
import only (:func:`harness.manifest.write_manifest`): the user uncomments it and edits the names.
Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from harness.recording import LegacyTrace

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class MapProposal:
    """A first draft of an automation's ``steps`` and ``decisions`` maps.

    ``steps`` maps each legacy node to a proposed new step name (``""`` for a branch node or a
    trigger: not a step of the new code); ``decisions`` maps each branch node to a decision name.
    """

    automation: str
    steps: dict[str, str] = field(default_factory=dict)
    decisions: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Return True when there is nothing to propose."""
        return not self.steps and not self.decisions


def slug(name: str) -> str:
    """Return ``name`` as a lower-case step name: ``"Add labels"`` → ``"add-labels"``."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-") or "step"


def propose_maps(nodes: list[str], branch_nodes: list[str], *, automation: str = "",
                 triggers: Sequence[str] = ()) -> MapProposal:
    """Propose maps for a workflow's ``nodes`` (in order), of which ``branch_nodes`` branch.

    A branch node maps to ``""`` in ``steps`` and keeps its decision under the slug of its name;
    a trigger node maps to ``""``; every other node to the slug of its name. Nodes are kept in
    the order given, each once.
    """
    branching = set(branch_nodes)
    steps: dict[str, str] = {}
    for node in [*triggers, *nodes, *branch_nodes]:
        if node not in steps:
            steps[node] = "" if node in branching or node in triggers else slug(node)
    decisions = {node: slug(node) for node in steps if node in branching}
    return MapProposal(automation, steps, decisions)


def proposal_from_traces(automation: str, traces: Iterable[LegacyTrace]) -> MapProposal:
    """Propose maps from an import's unmapped traces: path entries are nodes, decision keys
    are branch nodes (what an importer records before any map is written)."""
    nodes: dict[str, None] = {}
    branch: dict[str, None] = {}
    for trace in traces:
        nodes.update(dict.fromkeys(trace.path))
        branch.update(dict.fromkeys(trace.decisions))
    return propose_maps(list(nodes), list(branch), automation=automation)


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)


def proposal_lines(proposal: MapProposal) -> list[str]:
    """Return the proposal as commented TOML lines (without newlines), ready to uncomment."""
    if proposal.empty:
        return []
    table = f"automations.{_key(proposal.automation)}"
    lines = [f"# cutover import proposes these maps for {proposal.automation} (uncomment, then rename the",
             "# steps to the new code's ctx.step names and the decisions to its ctx.decide names; a branch",
             "# node maps to \"\" in steps, so it leaves the path, and keeps its decision under decisions):",
             f"# [{table}.steps]"]
    lines += [f"# {_key(node)} = {json.dumps(step, ensure_ascii=False)}" for node, step in proposal.steps.items()]
    for node, name in proposal.decisions.items():
        lines += ["#", f"# [{table}.decisions.{_key(node)}]", f"# name = {json.dumps(name, ensure_ascii=False)}"]
    return lines

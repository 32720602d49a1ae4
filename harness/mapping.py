"""Propose the manifest's ``steps``/``decisions`` maps for a workflow an import has just read.

A legacy export names its steps after the workflow's nodes ("Add labels", "Is opened?") and
records a branch decision under the node that made it; the migrated code names its steps and
decisions itself (``ctx.step("add-labels")``, ``ctx.decide("opened", ...)``). Until the manifest
maps one onto the other every trigger disagrees on ``path[*]``. :func:`propose_maps` writes the
obvious first draft: every node to a slug of its name, and every branch node (IF, Switch,
Router, Filter) to ``""`` in ``steps`` — a decision is not a step of the new code — with its
decision named by the same slug in ``decisions``; and every host a legacy call reached by an
absolute URL (no provider named for it yet) to a provider named after the host's second-level
label in ``providers`` (``api.github.com`` → ``github``), so the legacy call's URL becomes
relative to the provider the way the new code's is. :func:`proposal_lines` renders it as
*commented* TOML, which ``cutover import`` adds to ``manifest.toml`` on the automation's first
import only (:func:`harness.manifest.write_manifest`): the user uncomments it and edits the names.
Pure.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit
from dataclasses import dataclass, field, replace

from harness.recording import LegacyTrace

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class MapProposal:
    """A first draft of an automation's ``steps`` and ``decisions`` maps.

    ``steps`` maps each legacy node to a proposed new step name (``""`` for a branch node or a
    trigger: not a step of the new code); ``decisions`` maps each branch node to a decision name;
    ``providers`` maps each URL host of a legacy call without a provider to a provider name.
    """

    automation: str
    steps: dict[str, str] = field(default_factory=dict)
    decisions: dict[str, str] = field(default_factory=dict)
    providers: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Return True when there is nothing to propose."""
        return not self.steps and not self.decisions and not self.providers


def slug(name: str) -> str:
    """Return ``name`` as a lower-case step name: ``"Add labels"`` → ``"add-labels"``."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-") or "step"


# Second-level labels under which a country code registers names (example.co.uk, example.com.au).
_REGISTRY_LABELS = {"co", "com", "net", "org", "ac", "gov", "edu", "ne", "or"}


def provider_name(host: str) -> str:
    """Return a provider name for a URL host: a slug of its second-level label.

    ``api.example.com`` → ``example``, ``api.github.com`` → ``github``, ``mail.example.co.uk`` →
    ``example``; a single label (``localhost``) or an IP address gives the slug of the whole host.
    """
    labels = host.lower().rstrip(".").split(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return slug(host)
    except ValueError:
        pass
    if len(labels) < 2:
        return slug(host)
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _REGISTRY_LABELS:
        return slug(labels[-3])
    return slug(labels[-2])


def call_hosts(calls: Iterable[dict[str, object]]) -> list[str]:
    """Return the hosts (in order, each once) of calls with no provider and an absolute http(s) URL."""
    hosts: dict[str, None] = {}
    for call in calls:
        url = call.get("url")
        if call.get("provider") is None and isinstance(url, str):
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") and parts.hostname:
                hosts[parts.hostname] = None
    return list(hosts)


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
    are branch nodes (what an importer records before any map is written), and the hosts of calls
    without a provider get a provider name."""
    nodes: dict[str, None] = {}
    branch: dict[str, None] = {}
    hosts: dict[str, None] = {}
    for trace in traces:
        nodes.update(dict.fromkeys(trace.path))
        branch.update(dict.fromkeys(trace.decisions))
        hosts.update(dict.fromkeys(call_hosts(trace.calls)))
    proposal = propose_maps(list(nodes), list(branch), automation=automation)
    return replace(proposal, providers={host: provider_name(host) for host in hosts})


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)


def proposal_lines(proposal: MapProposal, *, providers_table: bool = True) -> list[str]:
    """Return the proposal as commented TOML lines (without newlines), ready to uncomment.

    ``providers_table=False`` (the entry already has a ``providers`` table) replaces the
    providers' table header with a note to add the lines to that table (TOML has no second one).
    """
    if proposal.empty:
        return []
    table = f"automations.{_key(proposal.automation)}"
    lines: list[str] = []
    if proposal.steps or proposal.decisions:
        lines += [f"# cutover import proposes these maps for {proposal.automation} (uncomment, then rename the",
                  "# steps to the new code's ctx.step names and the decisions to its ctx.decide names; a branch",
                  "# node maps to \"\" in steps, so it leaves the path, and keeps its decision under decisions):",
                  f"# [{table}.steps]"]
        lines += [f"# {_key(node)} = {json.dumps(step, ensure_ascii=False)}" for node, step in proposal.steps.items()]
        for node, name in proposal.decisions.items():
            lines += ["#", f"# [{table}.decisions.{_key(node)}]", f"# name = {json.dumps(name, ensure_ascii=False)}"]
    if proposal.providers:
        lines += ["#"] if lines else []
        lines += _provider_lines(proposal, table, providers_table)
    return lines


def _provider_lines(proposal: MapProposal, table: str, with_header: bool) -> list[str]:
    lines = [f"# cutover import proposes a provider for each host {proposal.automation}'s legacy calls reached",
             "# (uncomment, and use the names of [tool.cutover.providers] in pyproject.toml: a call's URL is",
             "# then compared relative to its provider, as the new code's is; import again to apply):"]
    lines.append(f"# [{table}.providers]" if with_header else f"# (add to [{table}.providers])")
    lines += [f"# {_key(host)} = {json.dumps(name, ensure_ascii=False)}" for host, name in proposal.providers.items()]
    return lines

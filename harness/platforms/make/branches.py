"""Every Router route of a Make blueprint, named as ``cutover import make`` names its decisions.

For branch coverage from the definition (``harness.coverage``): a Router's decision is named after
the router (through the entry's ``decisions`` map) and valued with the route taken, itself named
by the filter on the route's first module, else by its index from 0. A route no recorded run took
is one a shadow run cannot have proved. ``harness.platforms.n8n.branches`` reads n8n workflows; this
is the same list for a Make blueprint, the Make adapter's branch reader.
"""

from __future__ import annotations

from pathlib import Path

from harness.platforms.adapter import Branch
from harness.manifest import AutomationEntry
from harness.platforms.make.definition import Blueprint, load_blueprint, route_value


def router_branches(blueprint: Blueprint, entry: AutomationEntry) -> list[Branch]:
    """Return every route of every Router of ``blueprint`` (depth first), as decision name and value."""
    out = []
    for module in blueprint.modules.values():
        if module.app != "builtin:BasicRouter":
            continue
        mapped = entry.decisions.get(module.label)
        decision = mapped.name if mapped else (entry.steps.get(module.label) or module.label)
        for index, route in enumerate(module.routes):
            output = route_value(route, index)
            value = mapped.values.get(output, output) if mapped else output
            out.append(Branch(module.label, "router", output, decision, value))
    return out


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read a scenario blueprint file and return its Routers' routes."""
    return router_branches(load_blueprint(definition), entry)


def covers_branches(definition: Path) -> bool:
    """Whether branch coverage can read ``definition``: a blueprint always can (one scenario a file)."""
    return True

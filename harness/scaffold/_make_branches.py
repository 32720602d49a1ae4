"""Every Router route of a Make blueprint, named as ``cutover import make`` names its decisions.

For branch coverage from the definition (``harness.coverage``): a Router's decision is named after
the router (through the entry's ``decisions`` map) and valued with the route taken, itself named
by the filter on the route's first module, else by its index from 0. A route no recorded run took
is one a shadow run cannot have proved. ``harness.coverage.branches`` reads n8n workflows; this is
the same list for a Make blueprint, to be called when the entry's platform is ``make``.
"""

from __future__ import annotations

from harness.coverage import Branch
from harness.manifest import AutomationEntry
from harness.scaffold._make_blueprint import Blueprint, route_value


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

"""Every branch of a Make blueprint, named as ``cutover import make`` records it.

For branch coverage from the definition (``harness.coverage``):

- **Router** routes: the importer records a decision named after the router (through the entry's
  ``decisions`` map) valued with the route taken, itself named by the filter on the route's
  first module, else by its index from 0. A router inside an If-else branch is known to the
  importer by module id only and records no decision: its routes are read from the path (the
  route's first module ran). An empty route shows nothing: unreadable.
- **Error handlers** (a module's ``onerror`` route): no decision; taken when the handler's first
  module ran (the importer names it ``module#<id>``, or the step the entry maps it to).
- **If-else** branches: no decision; taken when the branch's first module ran.

A branch the path cannot show (an empty route, a first module mapped to ``""``) is
"unreadable", never counted as taken. ``harness.platforms.n8n.branches`` reads n8n workflows;
this is the Make adapter's branch reader.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from harness.importer._run import decision, step_name
from harness.manifest import AutomationEntry
from harness.platforms.adapter import Branch
from harness.platforms.make.definition import Blueprint, Module, load_blueprint, route_value

ROUTER = "builtin:BasicRouter"


def _walk(flow: Sequence[Module]) -> Iterator[Module]:
    """Every module of ``flow``, depth first: routes, If-else branches and error handlers too."""
    for module in flow:
        yield module
        for route in module.routes:
            yield from _walk(route)
        for branch in module.branches:
            yield from _walk(branch.flow)
        yield from _walk(module.onerror)


def _first_ran(module: Module, kind: str, output: str, flow: Sequence[Module], entry: AutomationEntry) -> Branch:
    """A branch shown by the run of the first module of ``flow`` (named by id, as the importer names it)."""
    if not flow:
        return Branch(module.label, kind, output, module.label, output, "unreadable", (),
                      "the branch has no module, so no recorded run can show it")
    first = flow[0]
    step = step_name(entry, f"module#{first.id}", str(first.id))
    if step is None:
        return Branch(module.label, kind, output, module.label, output, "unreadable", (),
                      f"its first module (#{first.id}) is mapped to \"\", so the path cannot show it ran")
    return Branch(module.label, kind, output, module.label, output, "ran", (step,))


def _router(module: Module, logged: bool, entry: AutomationEntry) -> list[Branch]:
    out = []
    for index, route in enumerate(module.routes):
        output = route_value(route, index)
        if not logged or not route:
            out.append(_first_ran(module, "router", output, route, entry))
            continue
        name, value = decision(entry, module.label, output)
        out.append(Branch(module.label, "router", output, str(name), str(value)))
    return out


def blueprint_branches(blueprint: Blueprint, entry: AutomationEntry) -> list[Branch]:
    """Return every branch of ``blueprint``: routes, error handlers, If-else branches (depth first)."""
    out: list[Branch] = []
    for module in _walk(blueprint.flow):
        if module.app == ROUTER:
            out += _router(module, module.id in blueprint.logged and blueprint.logged[module.id] is module, entry)
        for index, branch in enumerate(module.branches):
            label = branch.label or ("else" if branch.conditions is None else f"branch {index + 1}")
            out.append(_first_ran(module, "if-else", label, branch.flow, entry))
        if module.onerror:
            out.append(_first_ran(module, "error-handler", "error", module.onerror, entry))
    return out


def router_branches(blueprint: Blueprint, entry: AutomationEntry) -> list[Branch]:
    """Return the routes of the Routers of ``blueprint`` (kept for callers that list routes only)."""
    return [b for b in blueprint_branches(blueprint, entry) if b.kind == "router"]


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read a scenario blueprint file and return its branches."""
    return blueprint_branches(load_blueprint(definition), entry)


def covers_branches(definition: Path) -> bool:
    """Whether branch coverage can read ``definition``: a blueprint always can (one scenario a file)."""
    return True

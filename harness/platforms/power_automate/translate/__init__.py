"""``cutover scaffold power-automate``: a flow definition in, an automation and its manifest maps out.

``scaffold(path, …)`` reads a flow definition (the export package's ``definition.json``, a
package ``.zip``, a Logic Apps workflow, or a directory of them), writes one
``automations/<name>.py`` per flow (``flow`` lays the actions out in ``runAfter`` order,
``actions`` and ``connectors`` say what each action type becomes, ``values`` its expressions,
``trigger`` the trigger), and returns the maps that line the generated names up with what
``cutover import power-automate --definition`` records for the same flow:

- ``steps``: every action by its name → the step's slug for actions that call out (HTTP,
  connectors), ``""`` for the others (they make no call: no step on the new side);
- ``decisions``: every If and Switch by its name → the decision's slug; the values are the
  importer's (``true``/``false``, a Switch case's value, ``default``) and need no map;
- ``providers``: each host called → its provider, so the importer splits a URL the same way.
Files are written as for n8n and Make: a digest line, and an edited file is never overwritten
without ``force`` (the diff is returned instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tomlkit.items import Table

from harness.errors import ExportFormatError, ScaffoldError
from harness.importer.definition import flow_definition
from harness.manifest import set_relative
from harness.platforms.power_automate.definition import PowerAutomateFlow, documents, iter_flow_files, load_flow
from harness.platforms.power_automate.translate.gen import CALLS, FlowBuild
from harness.platforms.power_automate.translate.flow import scope
from harness.platforms.power_automate.translate.trigger import trigger
from harness.scaffold import Written, _maps, checked_name, write
from harness.scaffold._code import stmts
from harness.scaffold._module import NodeRow, Scaffold, Tool, module_source, slug, unique

__all__ = ["TOOL", "PowerAutomateScaffold", "build", "load_all", "maps_toml", "scaffold", "write_maps"]

TOOL = Tool(
    command="power-automate",
    intro=("{automation}: scaffolded by `cutover scaffold power-automate` from the Power Automate flow {name}.", "",
           "This is ordinary code and yours to edit; `pytest --shadow` on the flow's recorded runs is",
           "what proves it. Every action is a small function below, run in runAfter order with Power",
           "Automate's semantics (queue_core.compat.power_automate)."),
    schedule_from="the flow's Recurrence trigger",
    run="Run the flow {name} action by action, as Power Automate did.",
    runtime="power_automate", start="run = power_automate.FlowRun(ctx, trigger)",
    finish="await run.main(flow, run.top)", imports=("from typing import Any",),
)


@dataclass
class PowerAutomateScaffold(Scaffold[PowerAutomateFlow]):
    """What scaffolding one flow produced: a Scaffold, with the maps' providers too."""

    unit: ClassVar[str] = "action"
    kind: ClassVar[str] = "flow"
    pinned_tool: ClassVar[str | None] = "power_automate"

    trigger_kind: str = "webhook"
    providers: dict[str, str] = field(default_factory=dict)  # host -> provider


def _members(flow: PowerAutomateFlow) -> dict[str, list[str]]:
    return {a.name: flow.members(a.name) for a in flow.actions if flow.members(a.name)}


def _parameters(flow: PowerAutomateFlow) -> dict[str, Any]:
    """The definition's parameters by name, their default values (``$connections``/``$authentication`` and the
    secure ones left out: a SecureString's default is a secret, never copied; ``parameters('p')`` reads None)."""
    return {k: v.get("defaultValue") for k, v in flow.parameters.items()
            if isinstance(v, dict) and not k.startswith("$") and not str(v.get("type", "")).lower().startswith("secure")}


def build(flow: PowerAutomateFlow, automation: str, providers: dict[str, str]) -> PowerAutomateScaffold:
    """Translate ``flow`` into the source of one ``@automation`` module and its maps."""
    gen = FlowBuild(flow, providers)
    taken: set[str] = set()
    for action in flow.actions:  # every action that calls out has a step, translated or not
        if action.kind in CALLS:
            gen.steps[action.name] = unique(slug(action.name), taken)
    rows: list[NodeRow] = []
    kind, schedule = "manual", None
    first: list[Any] = []
    trigger_name = next(iter(flow.triggers), "manual")
    if flow.triggers:
        row, kind, schedule, first = trigger(trigger_name, flow.triggers[trigger_name], automation)
        rows.append(row)
    top = flow.scope(None)
    define = stmts("run.define(trigger=$trigger, members=$members, parameters=$parameters, workflow=$workflow, top=$top)",
                   trigger=trigger_name, members=_members(flow), parameters=_parameters(flow), workflow=flow.name,
                   top=[a.name for a in top])
    body = [*define, *first, *stmts("async def flow(run: power_automate.FlowRun) -> None:\n    $body", body=scope(top, gen))]
    steps = {a.name: gen.steps.get(a.name, "") for a in flow.actions}
    scaffold = PowerAutomateScaffold(automation, flow, "", steps, dict(gen.decisions), rows + gen.rows,
                                     proposals=dict(gen.proposals), trigger_kind=kind, schedule=schedule,
                                     credentials=list(gen.credentials), providers=dict(gen.hosts))
    scaffold.source = module_source(scaffold, TOOL, body, flow.name)
    return scaffold


def load_all(path: Path) -> tuple[list[PowerAutomateFlow], list[str]]:
    """Return the flows under ``path`` and the files skipped (not flow definitions) in a directory."""
    flows, skipped = [], []
    for file in iter_flow_files(path):
        found = documents(file)
        kept = [(where, doc) for where, doc in found if flow_definition(doc) is not None]
        if path.is_dir() and not kept:
            skipped.append(str(file))
            continue
        for where, document in kept or found:
            flows.append(load_flow(where, document))
    if not flows:
        raise ExportFormatError(str(path), None, None, "no Power Automate flow definition found")
    return flows, skipped


def scaffold(path: Path, *, automation: str | None, into: Path, force: bool = False,
             providers: dict[str, str] | None = None) -> tuple[list[Written], list[str]]:
    """Scaffold every flow in ``path`` (a file or a directory) into ``into``.

    Returns the written files and the files of a directory that were not flow definitions.
    Raises ExportFormatError for a file that is not one, ScaffoldError for a name that cannot be a module.
    """
    flows, skipped = load_all(path)
    many = len(flows) > 1
    results, used = [], set()  # type: ignore[var-annotated]
    for flow in flows:
        stem = re.sub(r"[^a-z0-9]+", "-", flow.name.lower()).strip("-") or "flow"
        stem = stem if stem[0].isalpha() else f"flow-{stem}"
        chosen = automation if automation and not many else f"{automation}-{stem}" if automation else stem
        results.append(build(flow, checked_name(unique(chosen, used)), providers or {}))
    return [write(s, into, force) for s in results], skipped


def maps_toml(scaffold: PowerAutomateScaffold) -> str:
    """Return the maps as the TOML a person would paste into the set's manifest."""
    return _maps.maps_toml(scaffold, _entry)


def write_maps(manifest: Path, scaffold: PowerAutomateScaffold) -> None:
    """Add the maps to ``manifest`` (created when missing), keeping everything already there."""
    _maps.write_maps(manifest, scaffold, _entry)


def _entry(entry: Table, scaffold: PowerAutomateScaffold, manifest_dir: Path | None) -> None:
    entry.setdefault("platform", "power-automate")
    path = scaffold.workflow.path
    if manifest_dir is not None and path and "!" not in path and Path(path).is_file():
        entry.setdefault("definition", set_relative(Path(path), manifest_dir))  # branch coverage reads every If/Switch


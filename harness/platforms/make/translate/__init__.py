"""``cutover scaffold make``: a Make scenario blueprint in, an automation and its manifest maps out.

``scaffold(path, …)`` reads a blueprint (or a directory of them), writes one
``automations/<name>.py`` per scenario (``flow`` lays the modules out, ``modules``
says what each module type becomes, ``iml`` the mapped expressions), and returns the maps that line the generated names up
with what ``cutover import make`` records for the same scenario:

- ``steps``: every module by its label (the designer name, else ``<app>#<id>``; a module inside
  an If-else branch also by its id, the only name the importer has for it) → ``""`` for modules
  that make no call (builtin, gateway, util, json: no step on the new side) and for the first
  module (the importer takes its output as the trigger), the step's slug for the others;
- ``decisions``: every Router by its label → the decision's slug; its values are the route
  names (a route's first-module filter name, else its index) and need no map;
- ``providers``: each HTTP host → its provider, so the importer splits a call's URL the same
  way; and an app's name → its provider (the importer names an app call's provider after its
  app: ``lokalise``, and ``http`` for ``http:MakeRequest`` when one provider serves them all).
Files are written as for n8n: a digest line, and an edited file is never overwritten without
``force`` (the diff is returned instead).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tomlkit.items import Table

from harness.errors import ExportFormatError, ScaffoldError
from harness.manifest import set_relative
from harness.platforms.make.definition import Blueprint, Module, is_blueprint, iter_blueprint_files, load_blueprint, read_document
from harness.platforms.make.translate.flow import Layout, comment, flow
from harness.platforms.make.translate.handlers import DIRECTIVES
from harness.platforms.make.translate.modules import TRIGGERS, Gen, makes_call, translate, var
from harness.scaffold import Written, _maps, _code, checked_name, write
from harness.scaffold._code import name, stmts
from harness.scaffold._module import NodeRow, Scaffold, Tool, module_source, slug, unique

TOOL = Tool(
    command="make",
    intro=("{automation}: scaffolded by `cutover scaffold make` from the Make scenario {name}.", "",
           "This is ordinary code and yours to edit; `pytest --shadow` on the scenario's recorded runs",
           "is what proves it. Every module is a few lines below, where Make runs it, with Make's",
           "semantics (queue_core.compat.make)."),
    schedule_from="the scenario's scheduling",
    run="Run the scenario {name} module by module, as Make did.",
    runtime="make", start="run = make.Run(ctx)", finish="run.finish()", imports=("from typing import Any",),
)


@dataclass
class MakeScaffold(Scaffold[Blueprint]):
    """What scaffolding one scenario produced: a Scaffold, with the maps' providers too."""

    unit: ClassVar[str] = "module"
    kind: ClassVar[str] = "scenario"
    pinned_tool: ClassVar[str | None] = "make"

    trigger_kind: str = "schedule"
    providers: dict[str, str] = field(default_factory=dict)  # host (or "http") -> provider


def schedule_of(scheduling: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str]:
    """Return (``{"cron": …}`` or None, why) for the API's ``scheduling`` of a scenario."""
    if not scheduling:
        return None, "no scheduling beside the blueprint: set schedule= by hand (GET /scenarios/{id} has it)"
    kind, interval = scheduling.get("type"), scheduling.get("interval")
    if kind == "indefinitely" and isinstance(interval, int) and interval >= 60:
        minutes = interval // 60
        if interval % 60 == 0 and 60 % minutes == 0:
            return {"cron": "* * * * *" if minutes == 1 else f"*/{minutes} * * * *"}, f"every {interval} s"
        if interval % 3600 == 0 and 24 % (interval // 3600) == 0:
            hours = interval // 3600
            return {"cron": "0 * * * *" if hours == 1 else f"0 */{hours} * * *"}, f"every {interval} s"
    time = str(scheduling.get("time", ""))
    at = time.split(":") if re.fullmatch(r"\d{1,2}:\d{2}", time) else None
    if kind == "daily" and at:
        return {"cron": f"{int(at[1])} {int(at[0])} * * *"}, "daily"
    days, dates, months = (_integers(scheduling.get("days"), 1, 7), _integers(scheduling.get("dates"), 1, 31),
                           _integers(scheduling.get("months"), 1, 12))
    if kind == "weekly" and at and days:  # Make's days: 1 Monday … 7 Sunday
        week = ",".join(str(d) for d in sorted({d % 7 for d in days}))
        return {"cron": f"{int(at[1])} {int(at[0])} * * {week}"}, f"weekly on days {days}"
    if kind == "monthly" and at and dates:
        return {"cron": f"{int(at[1])} {int(at[0])} {','.join(map(str, dates))} * *"}, f"monthly on dates {dates}"
    if kind == "yearly" and at and dates and months:
        return {"cron": f"{int(at[1])} {int(at[0])} {','.join(map(str, dates))} {','.join(map(str, months))} *"}, \
            "yearly"
    if kind == "once":
        return None, f"scheduling 'once' (at {scheduling.get('date')!r}) is one run, not a schedule: start it by hand"
    if kind == "immediately":
        return None, "scheduling 'immediately' runs as data arrives: the trigger is an instant one"
    return None, f"scheduling {scheduling!r} (type {kind!r}) has no cron equivalent here: set schedule= by hand"


def _integers(values: Any, low: int, high: int) -> list[int]:
    """Return ``values`` sorted when it is a list of integers from ``low`` to ``high``, else []."""
    if isinstance(values, list) and values and all(
            isinstance(v, int) and not isinstance(v, bool) and low <= v <= high for v in values):
        return sorted(values)
    return []


def _names(blueprint: Blueprint, gen: Gen, first: Module | None) -> dict[str, str]:
    steps: dict[str, str] = {}
    taken: set[str] = set()
    for module in blueprint.modules.values():
        if module.app in DIRECTIVES:  # an error handler's directive: part of the module it handles
            continue
        # a module in an If-else branch is known to the importer by its id only (it does not read
        # branches); its label is mapped too, for an importer that does
        keys = [module.label, str(module.id)] if module.in_branch else [module.label]
        step = ""
        if makes_call(module):
            gen.steps[module.id] = unique(slug(module.label), taken)
            # the importer takes the first module's output as the trigger: no step of it is recorded
            step = "" if module is first else gen.steps[module.id]
        for key in keys:
            steps.setdefault(key, step)
    return steps


def _start(first: Module, lay: Layout, scheduled: bool) -> tuple[list[ast.stmt], bool]:
    """Return the statements that produce the first module's bundles, and whether it is a trigger."""
    bundles = name(f"bundles_{first.id}")
    instant = _instant(first)
    if first.app in TRIGGERS or instant is not None:
        function = instant or "make.webhook_bundle"
        why = "the delivery's body is the bundle" if instant is None else f"an instant app webhook: {function}(trigger)"
        lay.rows.append(NodeRow(first.label, first.app, "trigger", why))
        return [comment(first), *stmts("$bundle = $made\n$bundles = [$bundle]", made=_called(function),
                                       bundle=var(first), bundles=bundles)], True
    code = translate(first, lay.gen)
    why = "a replay starts from its recorded bundle; a live tick runs this module"
    lay.rows.append(NodeRow(first.label, first.app, "todo" if code.todo else "trigger",
                            f"{code.todo}; {why}" if code.todo else why))
    produce = code.lines + (stmts("$bundles = list($source)", bundles=bundles, source=code.bundles)
                            if code.bundles is not None else stmts("$bundles = [$bundle]", bundles=bundles,
                                                                   bundle=code.bundle))
    return [comment(first), *stmts("recorded = make.first_bundle(trigger)\n$recorded_note\nif recorded is not None:\n"
                                   "    $bundles = [recorded]\nelse:\n    $tick_note\n    $produce",
                                   recorded_note=_code.comment("cutover import make: the run's first bundle",
                                                               trailing=True),
                                   bundles=bundles, tick_note=_code.comment("a live schedule tick", trailing=True),
                                   produce=produce)], False


def _instant(first: Module) -> str | None:
    """Return the runtime function that makes an instant app webhook's bundle from its delivery
    (``triggers.INSTANT``, the app areas' table), or None when ``first`` is not one."""
    try:
        from harness.platforms.make.translate.triggers import INSTANT
    except ImportError:  # the app areas' triggers are not installed
        return None
    function = INSTANT.get(first.app)
    if not isinstance(function, str) or not re.fullmatch(r"make(\.[a-z_][a-z0-9_]*)+", function):
        return None
    return function


def _called(function: str) -> ast.expr:
    """Return ``<function>(trigger)`` for a dotted runtime name (``make.poll.tally_bundle``)."""
    target: ast.expr = name("make")
    for part in function.split(".")[1:]:
        target = ast.Attribute(target, part, ast.Load())
    return ast.Call(target, [name("trigger")], [])


def build(blueprint: Blueprint, automation: str, providers: dict[str, str]) -> MakeScaffold:
    """Translate ``blueprint`` into the source of one ``@automation`` module and its maps."""
    gen = Gen(providers)
    first = blueprint.flow[0] if blueprint.flow else None
    scaffold = MakeScaffold(automation, blueprint, "", _names(blueprint, gen, first), {}, [])
    lay = Layout(gen)
    body: list[ast.stmt] = []
    if first is not None:
        start, instant = _start(first, lay, scheduled=True)
        rest = flow(blueprint.flow[1:], lay)
        body = stmts("run.scenario_name = $name", name=blueprint.name) + start + stmts("for $bundle in $bundles:\n    run.emit($id, $bundle)\n    $rest", bundle=var(first),
                             bundles=name(f"bundles_{first.id}"), id=first.id, rest=rest)
        scaffold.trigger_kind = "webhook" if instant else "schedule"
    scaffold.rows = lay.rows
    scaffold.decisions = {blueprint.modules[i].label: decision for i, decision in lay.decisions.items()}
    scaffold.proposals = dict(gen.proposals)
    scaffold.credentials = list(gen.credentials)
    scaffold.providers = dict(gen.hosts)
    http_providers = {gen.hosts.get(_host(m), "") for m in blueprint.modules.values() if m.app == "http:MakeRequest"}
    if len(http_providers) == 1 and "" not in http_providers:
        scaffold.providers["http"] = http_providers.pop()
    if scaffold.trigger_kind == "schedule":
        scaffold.schedule, why = schedule_of(blueprint.scheduling)
        if first is not None and scaffold.rows:
            row = scaffold.rows[0]
            scaffold.rows[0] = NodeRow(row.node, row.type, row.status, f"{row.why}; schedule: {why}")
    scaffold.source = module_source(scaffold, TOOL, body, blueprint.name)
    return scaffold


def _host(module: Module) -> str:
    url = str(module.mapper.get("url") or "")
    return re.sub(r"^[a-z]+://", "", url).split("/")[0].split(":")[0].split("{")[0]


def load_all(path: Path) -> tuple[list[Blueprint], list[str]]:
    """Return the blueprints under ``path`` and the files skipped (not blueprints) in a directory."""
    blueprints, skipped = [], []
    for file in iter_blueprint_files(path):
        document = read_document(file)
        if path.is_dir() and not is_blueprint(document):
            skipped.append(str(file))
            continue
        blueprints.append(load_blueprint(file, document))
    if not blueprints:
        raise ExportFormatError(str(path), None, None, "no Make blueprint found")
    return blueprints, skipped


def scaffold(path: Path, *, automation: str | None, into: Path, force: bool = False,
                  providers: dict[str, str] | None = None) -> tuple[list[Written], list[str]]:
    """Scaffold every blueprint in ``path`` (a file or a directory) into ``into``.

    Returns the written files and the files of a directory that were not blueprints. Raises
    ExportFormatError for a file that is not one, ScaffoldError for a name that cannot be a module.
    """
    blueprints, skipped = load_all(path)
    many = len(blueprints) > 1
    results, used = [], set()  # type: ignore[var-annotated]
    for blueprint in blueprints:
        stem = re.sub(r"[^a-z0-9]+", "-", blueprint.name.lower()).strip("-") or "scenario"
        stem = stem if stem[0].isalpha() else f"scenario-{stem}"
        name = checked_name(unique(automation if automation and not many else f"{automation}-{stem}" if automation else stem, used))
        results.append(build(blueprint, name, providers or {}))
    return [write(s, into, force) for s in results], skipped


def maps_toml(scaffold: MakeScaffold) -> str:
    """Return the maps as the TOML a person would paste into the set's manifest."""
    return _maps.maps_toml(scaffold, _entry)


def write_maps(manifest: Path, scaffold: MakeScaffold) -> None:
    """Add the maps to ``manifest`` (created when missing), keeping everything already there."""
    _maps.write_maps(manifest, scaffold, _entry)


def _entry(entry: Table, scaffold: MakeScaffold, manifest_dir: Path | None) -> None:
    entry.setdefault("platform", "make")
    entry.setdefault("coercion", "make")
    definition = _definition(manifest_dir, scaffold)
    if definition is not None:  # branch coverage then lists every route of the scenario's routers
        entry.setdefault("definition", definition)


def _definition(set_dir: Path | None, scaffold: MakeScaffold) -> str | None:
    """Return the blueprint file as the manifest names a definition (relative to the set), if it is one.

    None for the pasteable maps (no set) and for a file that is not one blueprint.
    """
    if set_dir is None or not scaffold.workflow.path:
        return None
    path = Path(scaffold.workflow.path)
    return set_relative(path, set_dir) if path.is_file() else None

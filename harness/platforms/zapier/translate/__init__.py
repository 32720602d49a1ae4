"""``cutover scaffold zapier``: a Zapfile in, one automation per Zap and its manifest maps out.

``scaffold(path, …)`` reads a Zapfile (``gdpr_v1`` or version 2; or a directory of them), writes
one ``automations/<name>.py`` per Zap (``flow`` lays the steps out, ``steps`` and ``apps`` say
what each step becomes, ``fields`` the mapped ``{{id__field}}`` references) and returns the maps
that line the generated names up with what ``cutover import zapier --definition`` records:

- ``steps``: every step by the importer's label (its title, else ``<selected_api>:<action>``;
  ``Path A``… for an untitled path) → the step's slug for steps that call (app steps, Webhooks
  requests, Storage, Sub-Zap calls), ``sleep`` for a Delay (the durable wait's step), ``""`` for
  the trigger and the steps that make no call (Filter, Paths, Code, Formatter, Looping);
- ``decisions``: every Filter and Paths step by its label → the decision's slug (values:
  ``passed``/``stopped``, the path labels, as the importer records them);
- ``providers``: each host (and app) → its provider.
Files are written as for n8n and Make: a digest line, and an edited file is never overwritten
without ``force``.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tomlkit.items import Table

from harness.errors import ExportFormatError, ScaffoldError, Untranslatable
from harness.manifest import set_relative
from harness.platforms.zapier.definition import ZapDefinition, ZapStep, read_zaps
from harness.platforms.zapier.translate.fields import references
from harness.platforms.zapier.translate.sheets import NEW_ROW_TRIGGERS, poll_automation
from harness.platforms.zapier.translate.flow import ZapLayout, chain, comment, step_type, unreached
from harness.platforms.zapier.translate.steps import ZapGen, family, makes_call, todo
from harness.scaffold import Written, _maps, automation_name, checked_name, write
from harness.scaffold._code import render, stmts
from harness.scaffold._foreign import read_json
from harness.scaffold._module import HEADER, NodeRow, Scaffold, Tool, digest, module_source, slug, unique

TOOL = Tool(
    command="zapier",
    intro=("{automation}: scaffolded by `cutover scaffold zapier` from the Zap {name}.", "",
           "This is ordinary code and yours to edit; `pytest --shadow` on the Zap's imported runs",
           "is what proves it. Every step is a few lines below, in the Zap's order, with Zapier's",
           "semantics (queue_core.compat.zapier)."),
    schedule_from="the Zap's Schedule trigger",
    run="Run the Zap {name} step by step, as Zapier did.",
    runtime="zapier", start="run = zapier.Run(ctx)", finish="run.finish()", imports=("from typing import Any",),
)
WEBHOOK_TRIGGERS = ("hook", "hook_v2", "catch_hook", "hook_raw")
_DAYS = {d: i for i, d in enumerate(("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"))}


@dataclass(frozen=True)
class ZapFile:
    """One Zap of a Zapfile: its definition and the file it came from."""

    definition: ZapDefinition
    path: str

    @property
    def id(self) -> str | None:
        return self.definition.id

    @property
    def name(self) -> str:
        return self.definition.title or f"zap {self.definition.id}"


@dataclass
class ZapierScaffold(Scaffold[ZapFile]):
    """What scaffolding one Zap produced: a Scaffold, with the maps' providers too."""

    unit: ClassVar[str] = "step"
    kind: ClassVar[str] = "zap"
    pinned_tool: ClassVar[str | None] = "zapier"

    trigger_kind: str = "webhook"
    providers: dict[str, str] = field(default_factory=dict)
    poller: list[ast.stmt] = field(default_factory=list)  # the module-level poll automation of a polled trigger

    def proof(self, row: NodeRow) -> str:
        """As ``Scaffold.proof``; a Formatter step (``<app>:<action>:<transform>``) is ``pinned`` only when its
        transform, ``"%s:%s" % canonical(action, transform)``, is in ``formatter_proved.json``."""
        app, _, rest = row.type.partition(":")
        if family(app) == "Formatter" and ":" in rest:
            from queue_core.compat._zapier_formatter import canonical

            action, _, transform = rest.partition(":")
            return "pinned" if "%s:%s" % canonical(action, transform) in formatter_proved() else "none"
        return super().proof(row)


@functools.cache
def formatter_proved() -> frozenset[str]:
    """Return the Formatter transforms ``harness/platforms/zapier/formatter_proved.json`` lists as pinned."""
    path = Path(__file__).resolve().parent.parent / "formatter_proved.json"
    if not path.is_file():
        return frozenset()
    return frozenset(json.loads(path.read_text(encoding="utf-8")).get("transforms", {}))


def _hour(raw: Any) -> int | None:
    text = str(raw or "").strip().lower()
    if text in ("midnight", "12am"):
        return 0
    if text == "noon":
        return 12
    match = re.fullmatch(r"(\d{1,2})(?::00)?\s*(am|pm)?", text)
    if not match:
        return None
    hour, half = int(match.group(1)), match.group(2)
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    return hour if 0 <= hour < 24 else None


def schedule_of(step: ZapStep) -> tuple[dict[str, Any] | None, str]:
    """Return (``{"cron": …}`` or None, why) for a Schedule by Zapier trigger's action and params."""
    params, action = step.params, step.action
    weekends = str(params.get("trigger_on_weekends", "yes")).lower() not in ("no", "false")
    days = "*" if weekends else "1-5"
    zone = "in the Zapier account's time zone (the Zapfile does not hold it): set timezone= on the automation"
    if action == "every_hour":
        return {"cron": f"0 * * * {days}"}, f"hourly, {zone}"
    hour = _hour(params.get("hod", "9am" if action != "every_hour" else None))
    if hour is None:
        return None, f"Schedule hour {params.get('hod')!r} is not read: set schedule= by hand"
    if action == "every_day":
        return {"cron": f"0 {hour} * * {days}"}, f"daily, {zone}"
    if action == "every_week":
        day = _DAYS.get(str(params.get("dow", "")).strip().lower())
        if day is None:
            return None, f"Schedule day {params.get('dow')!r} is not read: set schedule= by hand"
        return {"cron": f"0 {hour} * * {day}"}, f"weekly, {zone}"
    if action == "every_month":
        dom = str(params.get("dom", "")).strip()
        if not dom.isdigit() or not 1 <= int(dom) <= 31:
            return None, f"Schedule day of month {dom!r} is not read: set schedule= by hand"
        return {"cron": f"0 {hour} {int(dom)} * *"}, f"monthly, {zone}"
    return None, f"Schedule action {action!r} has no cron here: set schedule= by hand"


def _trigger(root: ZapStep, gen: ZapGen, scaffold: ZapierScaffold) -> tuple[list[ast.stmt], NodeRow]:
    """Return the statements that make the trigger's output, and its row."""
    kin, kind = family(root.app), step_type(root)
    read = root.id in gen.referenced
    emit = stmts("run.emit($id, zapier.hook_output(trigger))", id=root.id)
    if kin == "WebHook" and root.action in WEBHOOK_TRIGGERS:
        scaffold.trigger_kind = "webhook"
        if root.action == "hook_raw" and read:
            code = todo(root, "Catch Raw Hook's output (raw_body, headers) is not reproduced")
            return [comment(root), *code.lines], NodeRow(root.label, kind, "todo", code.todo or "")
        return [comment(root), *emit], NodeRow(root.label, kind, "trigger", "verified webhook ingress; the delivery's "
                                               "JSON body is the trigger's output")
    if kin == "Schedule":
        scaffold.trigger_kind = "schedule"
        scaffold.schedule, why = schedule_of(root)
        if read:
            code = todo(root, "a later step reads the Schedule trigger's output (its date fields are not reproduced)")
            return [comment(root), *code.lines], NodeRow(root.label, kind, "todo", code.todo or "")
        return [comment(root), *stmts("run.emit($id, {})", id=root.id)], NodeRow(root.label, kind, "trigger",
                                                                                 f"schedule: {why}")
    if kin == "SubZap" and root.action == "start":
        scaffold.trigger_kind = "manual"
        return [comment(root), *emit], NodeRow(root.label, kind, "trigger", "started by a calling Zap's Sub-Zap step")
    if kin in ("Code", "Filter", "Branching", "Formatter", "Delay", "Looping", "Storage") or not root.app:
        code = todo(root, f"a {root.app or 'step'} trigger ({root.action!r}) is not translated")
        return [comment(root), *code.lines], NodeRow(root.label, kind, "todo", code.todo or "")
    scaffold.trigger_kind = "poll"
    if kin == "GoogleSheets" and root.action in NEW_ROW_TRIGGERS:
        try:
            scaffold.poller, note = poll_automation(root, gen, scaffold.automation)
        except Untranslatable as exc:
            code = todo(root, exc.reason)
            return [comment(root), *code.lines], NodeRow(root.label, kind, "todo", code.todo or "")
        return [comment(root), *emit], NodeRow(root.label, kind, "trigger", note)
    return [comment(root), *emit], NodeRow(
        root.label, kind, "trigger", f"{root.app} {root.action!r}: the run's trigger is the new item (a replay's "
        "recorded one); live, a poller starts one run per new item, deduped on its id as Zapier does "
        "(ctx.start_new(..., id_of=lambda item: item['id'])): the poll's call to the app is yours to write")


def _names(steps: tuple[ZapStep, ...], gen: ZapGen) -> dict[str, str]:
    names: dict[str, str] = {}
    taken: set[str] = {"sleep"}
    for step in steps:
        value = ""
        if makes_call(step):
            gen.steps[step.id] = value = unique(slug(step.label), taken)
        elif family(step.app) == "Delay" and step.kind not in ("trigger",):
            value = "sleep"  # ctx.sleep's step: what the new run's path holds
        names.setdefault(step.label, value)
    return names


def build(zap: ZapFile, automation: str, providers: dict[str, str], automations: dict[str, str]) -> ZapierScaffold:
    """Translate one Zap into the source of one ``@automation`` module and its maps."""
    steps = zap.definition.steps
    gen = ZapGen(providers, referenced=set().union(*(references(s.params) for s in steps)) if steps else set(),
              automations=automations)
    gen.referenced |= {str(r.get("key", "")).split("__", 1)[0] for s in steps
                       for r in s.params.get("filter_criteria") or [] if isinstance(r, dict)}
    scaffold = ZapierScaffold(automation, zap, "", _names(steps, gen), {}, [])
    children: dict[str, list[ZapStep]] = {}
    for step in steps[1:]:
        if step.parent is not None:
            children.setdefault(step.parent, []).append(step)
    lay = ZapLayout(gen, children)
    body: list[ast.stmt] = []
    if steps:
        root = steps[0]
        start, row = _trigger(root, gen, scaffold)
        lay.rows.append(row)
        body = start + chain(root.id, lay, {root.id})
        unreached(steps, lay)
    scaffold.rows = lay.rows
    by_id = {s.id: s for s in steps}
    scaffold.decisions = {by_id[i].label: decision for i, decision in lay.decisions.items()}
    scaffold.proposals = dict(gen.proposals)
    scaffold.credentials = list(gen.credentials)
    scaffold.providers = dict(gen.hosts)
    scaffold.source = module_source(scaffold, TOOL, gen.functions + body, zap.name)
    if scaffold.poller:  # a second automation in the module: the digest line is over the whole text
        text = scaffold.source.split("\n", 1)[1].rstrip() + "\n\n\n" + render(scaffold.poller).rstrip() + "\n"
        scaffold.source = f"{HEADER}{digest(text)}\n{text}"
    return scaffold


def zapfiles(path: Path) -> list[Path]:
    """Return the JSON files a scaffold reads: ``path`` itself, or a directory's, sorted."""
    return sorted(p for p in path.rglob("*.json") if p.is_file()) if path.is_dir() else [path]


def is_zapfile(document: Any) -> bool:
    """Return whether a document is a Zapfile: ``zaps[]`` whose entries have ``nodes``."""
    zaps = document.get("zaps") if isinstance(document, dict) else None
    return isinstance(zaps, list) and bool(zaps) and all(isinstance(z, dict) and "nodes" in z for z in zaps)


def _not_zapfile(document: Any, file: Path) -> str:
    """Say what a file that is not a Zapfile is, and the command that reads it."""
    if isinstance(document, list) and len(document) == 1:  # the API pages as Zapier's documentation shows them
        document = document[0]
    rows = document.get("data") if isinstance(document, dict) else None
    first = rows[0] if isinstance(rows, list) and rows and isinstance(rows[0], dict) else {}
    if first.get("type") == "zap" or "steps" in first and "zap_id" not in first:
        return "a /v2/zaps page names its steps' actions by id only: scaffold the account data export's Zapfile.json"
    if "zap_id" in first or "zap_title" in first:
        return (f"Zap runs (GET /v2/zap-runs), not a Zap definition: scaffold the Zapfile.json, then "
                f"`cutover import zapier {file.name} --definition Zapfile.json --automation … --into …`")
    return "not a Zapfile (expected metadata.version and zaps[] with nodes)"


def load_all(path: Path) -> tuple[list[ZapFile], list[str]]:
    """Return the Zaps under ``path`` and the files skipped (not Zapfiles) in a directory."""
    zaps: list[ZapFile] = []
    skipped: list[str] = []
    for file in zapfiles(path):
        document = read_json(file)
        if not is_zapfile(document):
            if path.is_dir():
                skipped.append(str(file))
                continue
            raise ExportFormatError(str(file), None, None, _not_zapfile(document, file))
        zaps += [ZapFile(z, str(file)) for z in read_zaps(document)]
    if not zaps:
        raise ExportFormatError(str(path), None, None, "no Zapfile found")
    return zaps, skipped


def scaffold(path: Path, *, automation: str | None, into: Path, force: bool = False,
             providers: dict[str, str] | None = None) -> tuple[list[Written], list[str]]:
    """Scaffold every Zap in ``path`` (a Zapfile or a directory) into ``into``.

    Returns the written files and the files of a directory that were not Zapfiles. Raises
    ExportFormatError for a file that is not one, ScaffoldError for a name that cannot be a module.
    """
    zaps, skipped = load_all(path)
    many = len(zaps) > 1
    used: set[str] = set()
    named = []
    for zap in zaps:
        stem = automation_name(zap.name, "zap")
        chosen = automation if automation and not many else f"{automation}-{stem}" if automation else stem
        named.append((zap, checked_name(unique(chosen, used))))
    automations = {z.id: n for z, n in named if z.id is not None}
    results = [build(zap, name, providers or {}, automations) for zap, name in named]
    return [write(s, into, force) for s in results], skipped


def maps_toml(scaffold: ZapierScaffold) -> str:
    """Return the maps as the TOML a person would paste into the set's manifest."""
    return _maps.maps_toml(scaffold, _entry)


def write_maps(manifest: Path, scaffold: ZapierScaffold) -> None:
    """Add the maps to ``manifest`` (created when missing), keeping everything already there."""
    _maps.write_maps(manifest, scaffold, _entry)


def _entry(entry: Table, scaffold: ZapierScaffold, manifest_dir: Path | None) -> None:
    entry.setdefault("platform", "zapier")
    entry.setdefault("coercion", "zapier")
    if scaffold.workflow.id is not None:  # the Zapfile may hold several Zaps: this entry's is named
        entry.setdefault("legacy_workflows", [scaffold.workflow.id])
    if manifest_dir is not None and Path(scaffold.workflow.path).is_file():
        entry.setdefault("definition", set_relative(Path(scaffold.workflow.path), manifest_dir))

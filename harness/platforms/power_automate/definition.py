"""Read a Power Automate / Logic Apps flow definition (WDL) into its ordered actions and branches.

Accepted: the export package's ``definition.json`` (``{name, id, type, properties{displayName,
definition, connectionReferences}}``), a Logic Apps workflow resource (``properties.definition``),
``{definition: ...}``, or the bare definition (``{$schema, triggers, actions}``); an export
package ``.zip`` holds one or more ``Microsoft.Flow/flows/<id>/definition.json``. Actions nest:
``If`` has ``actions`` (true) and ``else.actions``; ``Switch`` has ``cases{name: {case, actions}}``
and ``default.actions``; ``Scope``/``Foreach``/``Until`` have ``actions``. Order inside a scope is
given only by ``runAfter`` (empty: first); actions are listed depth first in that order.

``read_flow`` is the lenient reading the importer uses beside a run history; ``load_flow`` the
strict one ``cutover scaffold power-automate`` needs (ExportFormatError naming file and field).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError
from harness.importer.definition import flow_definition

IF_TYPE = "if"
SWITCH_TYPE = "switch"
STATUSES = ("Succeeded", "Failed", "Skipped", "TimedOut")


@dataclass(frozen=True)
class FlowAction:
    """One action of a flow: its type, the action containing it, and the branch it sits in.

    ``type`` is lower case (what the importer compares); ``spec`` the action's definition as
    written (``kind`` its type as written, ``inputs``, ``run_after``).
    """

    name: str
    type: str
    parent: str | None = None
    branch: str | None = None  # "true"/"false" under an If; under a Switch its case's value, or "default"
    spec: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def kind(self) -> str:
        """Return the action's type as the definition writes it (``Compose``, ``OpenApiConnection``)."""
        return str(self.spec.get("type") or self.type)

    @property
    def inputs(self) -> Any:
        """Return the action's ``inputs`` (None when it has none)."""
        return self.spec.get("inputs")

    @property
    def run_after(self) -> dict[str, tuple[str, ...]]:
        """Return ``runAfter``: each action it waits for and the statuses it runs after."""
        raw = self.spec.get("runAfter")
        if not isinstance(raw, dict):
            return {}
        return {str(k): tuple(str(s) for s in v) if isinstance(v, list) else ("Succeeded",) for k, v in raw.items()}


@dataclass(frozen=True)
class PowerAutomateFlow:
    """A flow's actions in definition order (depth first, ``runAfter`` order inside a scope)."""

    actions: tuple[FlowAction, ...]
    name: str = ""
    triggers: dict[str, Any] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    connections: dict[str, Any] = field(default_factory=dict)  # connectionReferences
    path: str = ""

    def get(self, name: str) -> FlowAction | None:
        """Return the action called ``name``."""
        return next((a for a in self.actions if a.name == name), None)

    def branches(self) -> list[FlowAction]:
        """Return the If and Switch actions: the flow's decisions."""
        return [a for a in self.actions if a.type in (IF_TYPE, SWITCH_TYPE)]

    def inside(self, parent: str, branch: str) -> list[str]:
        """Return the names of the actions directly inside one branch of ``parent``."""
        return [a.name for a in self.actions if a.parent == parent and a.branch == branch]

    def scope(self, parent: str | None, branch: str | None = None) -> list[FlowAction]:
        """Return the actions directly inside ``parent`` (None: the top level) and ``branch``, in order."""
        return [a for a in self.actions if a.parent == parent and a.branch == branch]

    def members(self, parent: str) -> list[str]:
        """Return the names of every action directly inside ``parent``, any branch."""
        return [a.name for a in self.actions if a.parent == parent]


def read_flow(document: Any, *, name: str = "", path: str = "") -> PowerAutomateFlow | None:
    """Return the flow a definition document describes, or ``None`` when it holds none."""
    definition = flow_definition(document)
    if definition is None:
        return None
    out: list[FlowAction] = []
    _scope(definition.get("actions"), None, None, out)
    props = document.get("properties") if isinstance(document, dict) else None
    props = props if isinstance(props, dict) else {}
    title = props.get("displayName") or (document.get("name") if isinstance(document, dict) else None) or name
    return PowerAutomateFlow(tuple(out), str(title or ""), obj(definition.get("triggers")),
                             obj(definition.get("parameters")), obj(props.get("connectionReferences")), path)


def obj(value: Any) -> dict[str, Any]:
    """Return ``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _ordered(actions: dict[str, Any]) -> list[str]:
    """Order a scope's actions by ``runAfter`` (a topological order; ties and cycles by name)."""
    after = {name: set(_run_after(spec)) for name, spec in actions.items()}
    done: list[str] = []
    left = sorted(after)
    while left:
        ready = [n for n in left if not after[n] & set(left)]
        chosen = ready[0] if ready else left[0]
        done.append(chosen)
        left.remove(chosen)
    return done


def _run_after(spec: Any) -> list[str]:
    run_after = spec.get("runAfter") if isinstance(spec, dict) else None
    return [str(k) for k in run_after] if isinstance(run_after, dict) else []


def _scope(actions: Any, parent: str | None, branch: str | None, out: list[FlowAction]) -> None:
    if not isinstance(actions, dict):
        return
    for name in _ordered(actions):
        spec = actions[name] if isinstance(actions[name], dict) else {}
        kind = str(spec.get("type") or "").lower()
        out.append(FlowAction(name, kind, parent, branch, spec))
        if kind == IF_TYPE:
            _scope(spec.get("actions"), name, "true", out)
            _scope(_inner(spec.get("else")), name, "false", out)
        elif kind == SWITCH_TYPE:
            for label, block in switch_cases(spec):
                _scope(_inner(block), name, label, out)
            _scope(_inner(spec.get("default")), name, "default", out)
        else:
            _scope(spec.get("actions"), name, None, out)


def switch_cases(spec: dict[str, Any]) -> list[tuple[str, Any]]:
    """Return a Switch's cases as ``(label, case block)``: the label is the case's value (what
    the importer records), else the case's name; sorted by the case's name, as the importer lists them."""
    cases: dict[str, Any] = spec["cases"] if isinstance(spec.get("cases"), dict) else {}
    out = []
    for case in sorted(cases):
        value = cases[case].get("case") if isinstance(cases[case], dict) else None
        label = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else case
        out.append((label, cases[case]))
    return out


def _inner(block: Any) -> Any:
    return block.get("actions") if isinstance(block, dict) else None


# -- files -------------------------------------------------------------------------------


def iter_flow_files(path: Path) -> Iterator[Path]:
    """Yield ``path`` or, for a directory, every ``*.json`` and ``*.zip`` file under it (sorted)."""
    if path.is_dir():
        yield from sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (".json", ".zip"))
    else:
        yield path


def documents(path: Path) -> list[tuple[str, Any]]:
    """Return ``(where, JSON document)`` for a file: itself, or each flow definition in a package zip."""
    if path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as package:
                names = sorted(n for n in package.namelist() if n.endswith("definition.json"))
                return [(f"{path}!{n}", _parse(package.read(n), f"{path}!{n}")) for n in names]
        except zipfile.BadZipFile as exc:
            raise ExportFormatError(str(path), None, None, f"not a readable zip package ({exc})") from None
    return [(str(path), _parse(path.read_bytes(), str(path)))]


def _parse(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ExportFormatError(where, None, None, f"not JSON ({exc})") from None


def load_flow(where: str, document: Any) -> PowerAutomateFlow:
    """Read one flow strictly; raise ExportFormatError naming the file and the field at fault."""
    definition = flow_definition(document)
    if definition is None:
        raise ExportFormatError(where, None, "properties.definition",
                                "expected a flow definition with 'triggers' and 'actions' objects")
    _check(definition.get("actions"), where, "actions")
    if len(obj(definition.get("triggers"))) > 1:
        raise ExportFormatError(where, None, "triggers", "a flow has one trigger; this definition has several")
    stem = Path(where.split("!")[0]).stem.removesuffix(".definition")
    flow = read_flow(document, name=stem, path=where)
    assert flow is not None
    return flow


def _check(actions: Any, where: str, at: str) -> None:
    if not isinstance(actions, dict):
        raise ExportFormatError(where, None, at, "expected an object of actions")
    for name, spec in actions.items():
        field_at = f"{at}.{name}"
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            raise ExportFormatError(where, None, field_at, "expected an action object with a string 'type'")
        run_after = spec.get("runAfter", {})
        if not isinstance(run_after, dict):
            raise ExportFormatError(where, None, f"{field_at}.runAfter", "expected an object")
        for before, statuses in run_after.items():
            if before not in actions:
                raise ExportFormatError(where, None, f"{field_at}.runAfter.{before}",
                                        "runs after an action that is not in the same scope")
            if not isinstance(statuses, list) or any(s not in STATUSES for s in statuses):
                raise ExportFormatError(where, None, f"{field_at}.runAfter.{before}",
                                        f"expected a list of statuses ({', '.join(STATUSES)})")
        for key, block in (("actions", spec.get("actions")), ("else", _inner(spec.get("else"))),
                           ("default", _inner(spec.get("default")))):
            if block is not None:
                _check(block, where, f"{field_at}.{key}")
        cases = spec.get("cases")
        if isinstance(cases, dict):
            for case, body in cases.items():
                if _inner(body) is not None:
                    _check(_inner(body), where, f"{field_at}.cases.{case}.actions")

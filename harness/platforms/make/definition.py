"""Read Make scenario blueprints: modules, routes, if/else branches, filters, error handlers, schedule.

Accepted documents: a blueprint (what the scenario editor's "Export blueprint" writes:
``{name, flow, metadata}``), the API's ``GET /scenarios/{id}/blueprint`` body (``{code,
response: {blueprint, scheduling}}``), and a ``{blueprint, scheduling}`` pair. The schedule
is not part of a blueprint: the API gives it beside it (``scheduling: {type: "indefinitely",
interval: 900}``). A directory is read file by file; a JSON file in it that is not a
blueprint (a run log, an execution detail) is skipped and named.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError
from harness.importer.definition import DefinitionKind
from harness.scaffold._foreign import read_json, refuse_foreign


@dataclass(frozen=True)
class Module:
    """One module of a scenario (``routes``/``branches`` hold the nested flows of a Router/If-else)."""

    id: int
    app: str  # "http:MakeRequest"
    version: int
    label: str  # as the Make importer names it: the designer name, else "<app>#<id>"
    mapper: dict[str, Any]
    parameters: dict[str, Any]
    filter: dict[str, Any] | None = None
    onerror: tuple[Module, ...] = ()
    routes: tuple[tuple[Module, ...], ...] = ()
    branches: tuple[IfElseBranch, ...] = ()
    in_branch: bool = False  # inside an If-else branch: the importer knows it by id only
    metadata: dict[str, Any] = field(default_factory=dict)  # the designer's: ``expect`` lists a form's fields

    @property
    def package(self) -> str:
        """Return the app part of the module type (``http`` for ``http:MakeRequest``)."""
        return self.app.split(":", 1)[0]


@dataclass(frozen=True)
class IfElseBranch:
    """One branch of an If-else: a condition (None for the Else branch) and its flow."""

    label: str
    conditions: list[Any] | None
    flow: tuple[Module, ...]


@dataclass(frozen=True)
class Blueprint:
    """A parsed scenario blueprint, with its schedule when the document carried one."""

    name: str
    id: str | None
    flow: tuple[Module, ...]
    scheduling: dict[str, Any] | None = None
    instant: bool | None = None
    path: str = ""
    modules: dict[int, Module] = field(default_factory=dict)

    @cached_property
    def logged(self) -> dict[int, Module]:
        """Return the modules a run log names by their label, by id, in flow order.

        The flow's modules and, depth first, those of Routers' routes; not those inside an
        If-else branch or an error handler, which the importer knows by id only.
        """
        found: dict[int, Module] = {}
        pending = list(reversed(self.flow))
        while pending:
            module = pending.pop()
            found[module.id] = module
            pending.extend(reversed([m for route in module.routes for m in route]))
        return found

    @property
    def first(self) -> str | None:
        """Return the first module's type (the trigger's), ``None`` for an empty flow."""
        return self.flow[0].app if self.flow else None


def route_value(route: Sequence[Module], index: int) -> str:
    """Name a Router's route as ``cutover import make`` does: its first module's filter name
    (the module id when the filter has no name), else the route's index from 0."""
    first = route[0] if route else None
    if first is not None and first.filter is not None:
        return str(first.filter.get("name") or first.id)
    return str(index)


def is_blueprint(document: Any) -> bool:
    """Return whether a JSON value is (or wraps) a Make blueprint."""
    inner = _inner(document)[0]
    return isinstance(inner, dict) and isinstance(inner.get("flow"), list)


def _inner(document: Any) -> tuple[Any, Any, Any]:
    """Return (blueprint, scheduling, scenario id) from any accepted wrapper."""
    if isinstance(document, dict) and isinstance(document.get("response"), dict):
        response = document["response"]
        return response.get("blueprint"), response.get("scheduling"), response.get("scenarioId")
    if isinstance(document, dict) and isinstance(document.get("blueprint"), dict) and "flow" not in document:
        return document["blueprint"], document.get("scheduling"), document.get("scenarioId") or document.get("id")
    return document, document.get("scheduling") if isinstance(document, dict) else None, None


def iter_blueprint_files(path: Path) -> Iterator[Path]:
    """Yield ``path`` or, for a directory, every ``*.json`` file in it (sorted)."""
    if path.is_dir():
        yield from sorted(p for p in path.rglob("*.json") if p.is_file())
    else:
        yield path


def read_document(path: Path) -> Any:
    """Return one file's JSON; raise ExportFormatError naming the file when it is not JSON."""
    return read_json(path)


def load_blueprint(path: Path, document: Any = None) -> Blueprint:
    """Parse the blueprint in ``path``; raise ExportFormatError naming the file and field at fault."""
    document = read_document(path) if document is None else document
    raw, scheduling, scenario = _inner(document)
    if not is_blueprint(document):
        refuse_foreign(document, str(path), DefinitionKind.MAKE_BLUEPRINT)
        hint = " (this is a run log: scaffold reads the blueprint, GET /scenarios/{id}/blueprint)" \
            if isinstance(document, dict) and ("scenarioLogs" in document or "scenarioLog" in document) else ""
        raise ExportFormatError(str(path), None, "flow", f"expected a Make blueprint with a flow array{hint}")
    modules: dict[int, Module] = {}
    flow = _flow(raw["flow"], str(path), "flow", modules, in_branch=False)
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    return Blueprint(str(raw.get("name") or path.stem), None if scenario is None else str(scenario), flow,
                     scheduling if isinstance(scheduling, dict) else None,
                     metadata.get("instant") if isinstance(metadata.get("instant"), bool) else None, str(path), modules)


def read_blueprint(document: Any) -> Blueprint:
    """Read the blueprint beside a run import (``--definition``, or the one inside the logs), leniently.

    The importer only names modules, routes and filters with it, so what it cannot read (a
    module without an integer id, a route that is no object, a flow that is no array) is left out
    instead of refusing the runs; ``load_blueprint`` is the strict reading scaffold needs. A
    document that holds no blueprint reads as an empty one.
    """
    raw, scheduling, scenario = _inner(document)
    if not isinstance(raw, dict):
        return Blueprint("", None, ())
    modules: dict[int, Module] = {}
    flow = _flow(raw.get("flow"), "", "flow", modules, in_branch=False, strict=False)
    metadata: dict[str, Any] = raw["metadata"] if isinstance(raw.get("metadata"), dict) else {}
    return Blueprint(raw["name"] if isinstance(raw.get("name"), str) else "", None if scenario is None else str(scenario),
                     flow, scheduling if isinstance(scheduling, dict) else None,
                     metadata.get("instant") if isinstance(metadata.get("instant"), bool) else None, "", modules)


def _flow(raw: Any, path: str, where: str, modules: dict[int, Module], *, in_branch: bool,
          strict: bool = True) -> tuple[Module, ...]:
    if not isinstance(raw, list):
        if not strict:
            return ()
        raise ExportFormatError(path, None, where, "expected an array of modules")
    return tuple(_module(m, path, f"{where}[{i}]", modules, in_branch, strict) for i, m in enumerate(raw)
                 if strict or _readable(m))


def _readable(raw: Any) -> bool:
    """Whether the lenient reading keeps a module: an object with an integer id."""
    return isinstance(raw, dict) and isinstance(raw.get("id"), int)


def _module(raw: Any, path: str, where: str, modules: dict[int, Module], in_branch: bool, strict: bool = True) -> Module:
    if strict and (not _readable(raw) or not isinstance(raw.get("module"), str)):
        raise ExportFormatError(path, None, where, "expected a module with an integer id and a module type")
    ident, app = raw["id"], str(raw.get("module", ""))
    designer = ((raw.get("metadata") or {}).get("designer") or {}) if isinstance(raw.get("metadata"), dict) else {}
    routes = tuple(_flow(r.get("flow") or [] if isinstance(r, dict) else r, path, f"{where}.routes[{i}].flow", modules,
                         in_branch=in_branch, strict=strict)
                   for i, r in enumerate(_listed(raw.get("routes"), strict)) if strict or isinstance(r, dict))
    branches = tuple(_branch(b, path, f"{where}.branches[{i}]", modules, strict)
                     for i, b in enumerate(_listed(raw.get("branches"), strict)) if strict or isinstance(b, dict))
    # an error handler's modules are known to the importer by id only, as an If-else branch's are
    handlers = _flow(raw.get("onerror") or [], path, f"{where}.onerror", modules, in_branch=True, strict=strict)
    version: int = raw["version"] if isinstance(raw.get("version"), int) else 1
    module = Module(ident, app, version, str(designer.get("name") or f"{app}#{ident}"),
                    raw["mapper"] if isinstance(raw.get("mapper"), dict) else {},
                    raw["parameters"] if isinstance(raw.get("parameters"), dict) else {},
                    raw["filter"] if isinstance(raw.get("filter"), dict) else None, handlers, routes, branches, in_branch,
                    raw["metadata"] if isinstance(raw.get("metadata"), dict) else {})
    modules[ident] = module
    return module


def _listed(value: Any, strict: bool) -> Any:
    """A module's ``routes``/``branches`` (the lenient reading drops one that is no array)."""
    if strict:
        return value or []
    return value if isinstance(value, list) else []


def _branch(raw: Any, path: str, where: str, modules: dict[int, Module], strict: bool = True) -> IfElseBranch:
    if not isinstance(raw, dict):
        raise ExportFormatError(path, None, where, "expected an If-else branch object")
    conditions = None if raw.get("type") == "else" else (raw.get("conditions") or raw.get("condition") or [])
    return IfElseBranch(str(raw.get("label") or ""), conditions,
                        _flow(raw.get("flow") or [], path, f"{where}.flow", modules, in_branch=True, strict=strict))

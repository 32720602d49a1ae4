"""``manifest.toml``: what a recording set is, where it came from, and how to read it.

The manifest names the window the set covers, each source export with the retention and sampling limits of
the tool it came from, each automation with its legacy platform, coercion profile, legacy workflow ids and name
maps (legacy step → new step, legacy branch node → decision, nodes whose outputs are not compared), and the
redaction settings applied on ingest. It is read with :mod:`tomllib` and written with :mod:`tomlkit`, which
edits an existing file in place: the user's comments, key order and map entries survive a re-import (tomli-w
could only rewrite the file from scratch, dropping every comment). ``docs/recordings.md`` specifies every key.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from queue_core.suggest import closest

from harness._field import FieldReader
from harness.errors import ManifestError
from harness.recording import Platform

if TYPE_CHECKING:
    from harness.mapping import MapProposal

MANIFEST_FILE = "manifest.toml"
FORMAT_VERSION = 1
DEFAULT_SALT_ENV = "CUTOVER_REDACTION_SALT"


class Coercion(StrEnum):
    """How loosely the legacy tool typed its values, so the diff can normalise before comparing."""

    STRICT = "strict"
    N8N = "n8n"
    ZAPIER = "zapier"
    MAKE = "make"


DEFAULT_COERCION = {
    Platform.N8N: Coercion.N8N,
    Platform.ZAPIER: Coercion.ZAPIER,
    Platform.MAKE: Coercion.MAKE,
    Platform.POWER_AUTOMATE: Coercion.STRICT,
    Platform.CSV: Coercion.STRICT,
    Platform.JSONL: Coercion.STRICT,
}


@dataclass(frozen=True)
class Window:
    """The time range the set's triggers were received in (inclusive)."""

    start: datetime
    end: datetime


@dataclass(frozen=True)
class ExportSource:
    """One imported export and the limits of the tool it came from.

    ``saves_successful_runs``/``saves_failed_runs`` are ``None`` when unknown; ``sampling`` is the
    fraction of runs the tool kept (1.0 = all); ``skipped_records`` counts records an import with
    ``--skip-bad`` left out, so a set with gaps never looks complete.
    """

    platform: Platform
    automation: str
    files: tuple[str, ...]
    retention_days: int | None = None
    saves_successful_runs: bool | None = None
    saves_failed_runs: bool | None = None
    sampling: float = 1.0
    records: int | None = None
    skipped_records: int = 0
    imported_at: datetime | None = None
    note: str | None = None


@dataclass(frozen=True)
class DecisionMap:
    """Turn a legacy branch node into a named decision, translating its raw values."""

    name: str
    values: dict[str, str] = field(default_factory=dict)


INDEX_KEY = "index"
JSON_KEY_PREFIX = "json:"
ITEMS_KEYS = ("from", "key")

# The keys each table of the manifest may hold (docs/recordings.md): any other is a typo, refused.
TOP_KEYS = ("format", "name", "description", "window", "redaction", "sources", "automations")
WINDOW_KEYS = ("start", "end")
REDACTION_KEYS = ("salt_env", "headers", "json_paths")
SOURCE_KEYS = ("platform", "automation", "files", "retention_days", "saves_successful_runs",
               "saves_failed_runs", "sampling", "records", "skipped_records", "imported_at", "note")
AUTOMATION_KEYS = ("platform", "coercion", "legacy_workflows", "delivery_id", "definition", "steps",
                   "decisions", "providers", "columns", "items", "outputs")
OUTPUTS_KEYS = ("exclude",)
DECISION_KEYS = ("name", "values")


@dataclass(frozen=True)
class ItemSplit:
    """How a legacy run over many items is imported item by item (``[automations.<name>.items]``).

    ``from_node`` is the legacy node whose output items each become one child (an n8n node
    name; ``None``: no fan-out, only polled items are split); ``key`` names each item the way the
    migrated code keys its child job: ``"index"`` (``"0"``, ``"1"``...) or ``"json:<dotted
    path>"``, a field of the item (``json:id``).
    """

    from_node: str | None = None
    key: str = INDEX_KEY

    def key_path(self) -> tuple[str, ...] | None:
        """Return the item field's path for a ``json:`` key, ``None`` for the index."""
        return tuple(self.key[len(JSON_KEY_PREFIX):].split(".")) if self.key.startswith(JSON_KEY_PREFIX) else None


@dataclass(frozen=True)
class AutomationEntry:
    """One automation in the set: its legacy origin and the maps that line the two sides up.

    ``steps`` maps a legacy node/step name to the new step name (``""`` drops the legacy step
    from the path; a branch node dropped so still records its decision, under its ``decisions``
    name when it has one); ``providers`` maps a URL host to a provider name; ``columns`` is the tabular
    importer's field → column mapping; ``delivery_id`` says where a trigger's delivery id lives
    (``header:<name>`` or ``body:<dotted.path>``); ``definition`` is the legacy workflow's
    definition file, relative to the set (its branches are what branch coverage counts);
    ``items`` splits a run over many items into per-item sub-traces and keys polled items.
    ``exclude_outputs`` (``[<automation>.outputs] exclude = {"Node" = "why"}``): nodes not compared, why.
    """

    name: str
    platform: Platform
    coercion: Coercion
    legacy_workflows: tuple[str, ...] = ()
    steps: dict[str, str] = field(default_factory=dict)
    decisions: dict[str, DecisionMap] = field(default_factory=dict)
    providers: dict[str, str] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)
    delivery_id: str | None = None
    definition: str | None = None
    items: ItemSplit | None = None
    exclude_outputs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Redaction:
    """Redaction applied on ingest: extra header names and JSON paths, and the salt's env var."""

    salt_env: str = DEFAULT_SALT_ENV
    headers: tuple[str, ...] = ()
    json_paths: tuple[str, ...] = ()

    def salt(self) -> bytes | None:
        """Return the per-set salt from the environment, or ``None`` when it is not set."""
        value = os.environ.get(self.salt_env)
        return value.encode("utf-8") if value else None


@dataclass(frozen=True)
class Manifest:
    """A recording set's manifest."""

    name: str
    format: int = FORMAT_VERSION
    description: str | None = None
    window: Window | None = None
    sources: tuple[ExportSource, ...] = ()
    automations: dict[str, AutomationEntry] = field(default_factory=dict)
    redaction: Redaction = field(default_factory=Redaction)

    def automation_for_workflow(self, workflow: str) -> str | None:
        """Return the automation a legacy workflow id or name migrated to, if the set says."""
        for entry in self.automations.values():
            if workflow in entry.legacy_workflows:
                return entry.name
        return None


def _toml_line(message: str) -> int | None:
    found = re.search(r"line (\d+)", message)
    return int(found.group(1)) if found else None


def _check_keys(read: FieldReader, known: tuple[str, ...], table: str) -> None:
    """Refuse a key of ``read.obj`` not in ``known``, naming the table and suggesting the nearest."""
    for key in read.obj:
        if key not in known:
            close = closest(key, known)
            hint = f"did you mean {close}?" if close else "expected one of " + ", ".join(sorted(known))
            raise read.fail(key, f"unknown key in {table} ({hint})")


def set_relative(path: Path, set_dir: Path) -> str:
    """Return ``path`` as a manifest names a file: relative to the set's directory, with ``/``
    (absolute when no relative path exists, as for another drive)."""
    resolved = path.resolve()
    try:
        return Path(os.path.relpath(resolved, set_dir.resolve())).as_posix()
    except ValueError:
        return resolved.as_posix()


def load_manifest(path: Path) -> Manifest:
    """Read and validate a ``manifest.toml``; raise ManifestError naming the file, line and key."""
    name = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(name, None, None, "file does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(name, _toml_line(str(exc)), None, f"not valid TOML ({exc})") from None
    return manifest_from_dict(data, name)


def manifest_from_dict(data: dict[str, Any], path: str) -> Manifest:
    """Validate a parsed manifest table (``path`` is only used in error messages)."""
    read = FieldReader(data, path, None, error=ManifestError)
    _check_keys(read, TOP_KEYS, "the top-level table")
    version = data.get("format", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise read.fail("format", f"expected {FORMAT_VERSION}, got {version!r}")
    automations = read.obj_field("automations", required=False)
    return Manifest(
        name=str(read.string("name")),
        description=read.string("description", required=False),
        window=_window(read) if "window" in data else None,
        sources=tuple(_source(read, i, s) for i, s in enumerate(read.array("sources", required=False))),
        automations={key: _automation(read.nested("automations"), key) for key in automations},
        redaction=_redaction(read.nested("redaction", required=False)),
    )


def _datetime(read: FieldReader, key: str, *, required: bool = True) -> datetime | None:
    value = read.obj.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise read.fail(key, "expected a TOML offset date-time such as 2024-06-01T00:00:00Z")
    return value


def _window(read: FieldReader) -> Window:
    window = read.nested("window")
    _check_keys(window, WINDOW_KEYS, "[window]")
    start, end = _datetime(window, "start"), _datetime(window, "end")
    assert start is not None and end is not None
    if end < start:
        raise window.fail("end", "window ends before it starts")
    return Window(start, end)


def _optional_bool(read: FieldReader, key: str) -> bool | None:
    value = read.obj.get(key)
    if value is not None and not isinstance(value, bool):
        raise read.fail(key, "expected true or false")
    return value


def _source(read: FieldReader, index: int, value: Any) -> ExportSource:
    if not isinstance(value, dict):
        raise read.fail(f"sources[{index}]", "expected a table")
    src = FieldReader(value, read.path, None, prefix=f"sources[{index}].", error=ManifestError)
    _check_keys(src, SOURCE_KEYS, f"[[sources]] (entry {index + 1})")
    retention = value.get("retention_days")
    if retention is not None and (not isinstance(retention, int) or retention < 0):
        raise src.fail("retention_days", "expected a non-negative integer")
    sampling = value.get("sampling", 1.0)
    if not isinstance(sampling, int | float) or not 0 < sampling <= 1:
        raise src.fail("sampling", "expected a fraction in (0, 1]")
    return ExportSource(
        platform=Platform(src.choice("platform", tuple(Platform))),
        automation=str(src.string("automation")),
        files=tuple(src.strings("files")),
        retention_days=retention,
        saves_successful_runs=_optional_bool(src, "saves_successful_runs"),
        saves_failed_runs=_optional_bool(src, "saves_failed_runs"),
        sampling=float(sampling),
        records=value.get("records"),
        skipped_records=int(value.get("skipped_records", 0)),
        imported_at=_datetime(src, "imported_at", required=False),
        note=src.string("note", required=False),
    )


def _string_map(read: FieldReader, key: str) -> dict[str, str]:
    table = read.obj_field(key, required=False)
    for name, value in table.items():
        if not isinstance(value, str):
            raise read.fail(f"{key}.{name}", "expected a string")
    return table


def _automation(parent: FieldReader, key: str) -> AutomationEntry:
    read = parent.nested(key)
    table = f"automations.{_table_key(key)}"
    _check_keys(read, AUTOMATION_KEYS, f"[{table}]")
    platform = Platform(read.choice("platform", tuple(Platform)))
    coercion = read.obj.get("coercion", str(DEFAULT_COERCION[platform]))
    if coercion not in tuple(Coercion):
        raise read.fail("coercion", f"expected one of {', '.join(Coercion)}, got {coercion!r}")
    decisions = read.nested("decisions", required=False)
    return AutomationEntry(
        name=key,
        platform=platform,
        coercion=Coercion(coercion),
        legacy_workflows=tuple(read.strings("legacy_workflows", required=False)),
        steps=_string_map(read, "steps"),
        decisions={node: _decision(decisions, node, f"[{table}.decisions.{_table_key(node)}]") for node in decisions.obj},
        providers=_string_map(read, "providers"),
        columns=_string_map(read, "columns"),
        delivery_id=read.string("delivery_id", required=False),
        definition=read.string("definition", required=False),
        items=_items(read, platform, f"[{table}.items]") if "items" in read.obj else None,
        exclude_outputs=_outputs(read, f"[{table}.outputs]") if "outputs" in read.obj else {},
    )


def _outputs(parent: FieldReader, table: str) -> dict[str, str]:
    """Read ``[automations.<name>.outputs]``: ``exclude``, node name -> the reason (not empty)."""
    read = parent.nested("outputs")
    _check_keys(read, OUTPUTS_KEYS, table)
    exclude = read.obj_field("exclude", required=False)
    for node in [n for n, why in exclude.items() if not isinstance(why, str) or not why.strip()][:1]:
        raise read.fail(f"exclude.{node}", "expected why the node's outputs are not compared (a non-empty string)")
    return dict(exclude)


def _table_key(key: str) -> str:
    """Spell ``key`` as a TOML table header does: bare when it can be, else quoted."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else '"' + key.replace('"', '\\"') + '"'


def _items(parent: FieldReader, platform: Platform, table: str) -> ItemSplit:
    """Read ``[automations.<name>.items]``: ``from`` (n8n only) and ``key``."""
    if not isinstance(parent.obj.get("items"), dict):
        raise parent.fail("items", "expected a table with 'from' and/or 'key'")
    read = parent.nested("items")
    _check_keys(read, ITEMS_KEYS, table)
    source = read.string("from", required=False)
    if source is not None and not source.strip():
        raise read.fail("from", "expected the name of the node whose output items fan out")
    if source is not None and platform is not Platform.N8N:
        raise read.fail("from", f"only n8n imports split a run at a node (platform is {platform})")
    key = read.string("key", required=False) or INDEX_KEY
    if key != INDEX_KEY and not key.startswith(JSON_KEY_PREFIX):
        raise read.fail("key", f"expected \"index\" or \"json:<dotted path>\", got {key!r}")
    if key.startswith(JSON_KEY_PREFIX) and not all(key[len(JSON_KEY_PREFIX):].split(".")):
        raise read.fail("key", f"expected a dotted path of field names after 'json:', got {key!r}")
    return ItemSplit(from_node=source, key=key)


def _decision(parent: FieldReader, node: str, table: str) -> DecisionMap:
    read = parent.nested(node)
    _check_keys(read, DECISION_KEYS, table)
    return DecisionMap(name=str(read.string("name")), values=_string_map(read, "values"))


def _redaction(read: FieldReader) -> Redaction:
    _check_keys(read, REDACTION_KEYS, "[redaction]")
    return Redaction(salt_env=read.string("salt_env", required=False) or DEFAULT_SALT_ENV,
                     headers=tuple(read.strings("headers", required=False)),
                     json_paths=tuple(read.strings("json_paths", required=False)))


def _drop_none(table: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in table.items() if value not in (None, {}, (), [])}


def manifest_to_dict(manifest: Manifest) -> dict[str, Any]:
    """Return the TOML table for a manifest (the inverse of :func:`manifest_from_dict`)."""
    data: dict[str, Any] = {"format": manifest.format, "name": manifest.name}
    if manifest.description:
        data["description"] = manifest.description
    if manifest.window:
        data["window"] = {"start": manifest.window.start, "end": manifest.window.end}
    data["redaction"] = _drop_none({
        "salt_env": manifest.redaction.salt_env,
        "headers": list(manifest.redaction.headers),
        "json_paths": list(manifest.redaction.json_paths),
    })
    data["sources"] = [_source_dict(source) for source in manifest.sources]
    data["automations"] = {name: _automation_dict(e) for name, e in sorted(manifest.automations.items())}
    return data


def _source_dict(source: ExportSource) -> dict[str, Any]:
    table = {**source.__dict__, "platform": str(source.platform), "files": list(source.files)}
    return _drop_none(table) | {"skipped_records": source.skipped_records}


def _automation_dict(entry: AutomationEntry) -> dict[str, Any]:
    table = {
        "platform": str(entry.platform),
        "coercion": str(entry.coercion),
        "legacy_workflows": list(entry.legacy_workflows),
        "delivery_id": entry.delivery_id,
        "definition": entry.definition,
        "steps": dict(entry.steps),
        "decisions": {node: _drop_none({"name": d.name, "values": d.values}) for node, d in entry.decisions.items()},
        "providers": dict(entry.providers),
        "columns": dict(entry.columns),
        "items": _drop_none({"from": entry.items.from_node, "key": entry.items.key}) if entry.items else None,
        "outputs": {"exclude": dict(entry.exclude_outputs)} if entry.exclude_outputs else None,
    }
    return _drop_none(table)


def write_manifest(path: Path, manifest: Manifest, *, proposal: MapProposal | None = None) -> None:
    """Write ``manifest.toml`` atomically: a temporary file renamed over the old one.

    An existing file is edited in place: its comments, key order and every key the manifest
    still holds are kept; a value that changed is replaced, a new automation or source added,
    a source no longer in the manifest removed (sources are the importer's own records).
    ``proposal`` (:func:`harness.mapping.propose_maps`) is added as commented lines on its
    automation's first import (no source of it in the file yet: its table may already hold other
    settings, such as ``items``): its steps and decisions when the entry has no such maps yet, its
    providers (hosts no provider is named for) always; never again after.
    """
    import tomlkit

    from harness.mapping import proposal_lines

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    document = tomlkit.parse(text)
    first = proposal is not None and not any(
        str(source.get("automation")) == proposal.automation for source in document.get("sources", []))
    data = manifest_to_dict(manifest)
    if "redaction" not in document and data["redaction"] == {"salt_env": DEFAULT_SALT_ENV}:
        del data["redaction"]  # the default, never written out
    _sync(document, data)
    out = tomlkit.dumps(document)
    entry = manifest.automations.get(proposal.automation) if proposal is not None else None
    if first and proposal is not None and entry is not None:
        if entry.steps or entry.decisions:  # maps written already (by hand or scaffold): only providers
            proposal = replace(proposal, steps={}, decisions={})
        lines = proposal_lines(proposal, providers_table=not entry.providers)
        out = out.rstrip("\n") + ("\n\n" + "\n".join(lines) + "\n" if lines else "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(out, encoding="utf-8")
    os.replace(temporary, path)


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _sync(table: Any, data: dict[str, Any], *, prune: bool = False) -> None:
    """Make the tomlkit ``table`` hold ``data``, editing only what differs (``prune``: also
    remove keys ``data`` lacks)."""
    import tomlkit

    for key, value in data.items():
        current = table.get(key)
        if key == "sources" and isinstance(value, list) and isinstance(current, tomlkit.items.AoT):
            _sync_sources(current, value)
        elif isinstance(value, dict) and isinstance(current, dict):
            _sync(current, value, prune=prune)
        elif current is None and value in ({}, []):
            continue  # an empty map or list is not written out
        elif current is None or _plain(current) != value:
            table[key] = tomlkit.item(value)
    if prune:
        for key in [k for k in table if k not in data]:
            del table[key]


def _sync_sources(tables: Any, sources: list[dict[str, Any]]) -> None:
    """Update each source table in place (matched by automation), drop stale ones, add new ones."""
    import tomlkit

    wanted = {str(s["automation"]): s for s in sources}
    for index in reversed(range(len(tables))):
        if str(tables[index].get("automation")) not in wanted:
            del tables[index]
    present = {str(t.get("automation")) for t in tables}
    for table in tables:
        _sync(table, wanted[str(table.get("automation"))], prune=True)
    for name, source in wanted.items():
        if name not in present:
            tables.append(tomlkit.item(source))


def with_source(manifest: Manifest, source: ExportSource, entry: AutomationEntry) -> Manifest:
    """Return the manifest with ``source`` replacing earlier sources of its automation, and ``entry`` set."""
    kept = tuple(s for s in manifest.sources if s.automation != source.automation)
    return replace(manifest, sources=(*kept, source), automations={**manifest.automations, entry.name: entry})

"""The manifest maps of a scaffold, written the same way for every tool: steps, providers, decisions.

A tool's translator says what its automation's entry holds beyond the names (its ``platform``,
``coercion``, ``definition``, ``legacy_workflows``), in an ``entry`` function of its own; this
module renders the maps as TOML to paste (:func:`maps_toml`), merges them into a set's
``manifest.toml`` keeping every entry a person wrote (:func:`write_maps`), and fills the names
(:func:`add_names`): an existing key is never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Table

from harness.errors import ScaffoldError

__all__ = ["Entry", "add_names", "maps_toml", "table", "write_maps"]

# (the automation's table, the scaffold, the set's directory or None) -> fills the tool's own keys
Entry = Callable[[Table, Any, "Path | None"], None]


def table(parent: Any, key: str) -> Table:
    """Return ``parent[key]``, a table made when missing; ScaffoldError when it is something else."""
    if key not in parent:
        parent[key] = tomlkit.table()
    value = parent[key]
    if not isinstance(value, Table):
        raise ScaffoldError(f"manifest: [{key}] is not a table")
    return value


def add_names(entry: Table, scaffold: Any) -> None:
    """Add the scaffold's step, provider and decision names to ``entry``, keeping those already there."""
    for key, values in (("steps", scaffold.steps), ("providers", getattr(scaffold, "providers", {}))):
        if values:
            names = table(entry, key)
            for name, value in values.items():
                names.setdefault(name, value)
    decisions = table(entry, "decisions") if scaffold.decisions else None
    for label, name in scaffold.decisions.items():
        if decisions is not None and label not in decisions:
            decision = tomlkit.table()
            decision["name"] = name
            decisions[label] = decision


def _add(document: Any, scaffold: Any, fill: Entry, manifest_dir: Path | None) -> None:
    entry = table(table(document, "automations"), scaffold.automation)
    fill(entry, scaffold, manifest_dir)
    add_names(entry, scaffold)


def maps_toml(scaffold: Any, fill: Entry) -> str:
    """Return the maps as the TOML a person would paste into the set's manifest."""
    document = tomlkit.document()
    _add(document, scaffold, fill, None)
    return tomlkit.dumps(document).strip()


def write_maps(manifest: Path, scaffold: Any, fill: Entry) -> None:
    """Add the maps to ``manifest`` (created when missing, named after its directory as ``cutover
    import`` names a new set), keeping everything already there."""
    document = tomlkit.parse(manifest.read_text(encoding="utf-8")) if manifest.exists() else tomlkit.document()
    if "format" not in document:
        document["format"] = 1
    if "name" not in document:
        document["name"] = manifest.parent.name
    _add(document, scaffold, fill, manifest.parent)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(tomlkit.dumps(document), encoding="utf-8")

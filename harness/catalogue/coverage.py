"""The app catalogue's coverage: every operation × every platform whose translator maps a step onto it.

``platform_tables()`` reads each platform translator's own table, defensively (a platform not
built yet, or a table it does not have, is an empty column):

- n8n: ``harness.platforms.n8n.translate.apps.N8N_APPS`` (node type, resource.operation), the
  mappings whose parameters are translated;
- Make: every app area's ``OPERATIONS`` (``harness.platforms.make.translate.apps._catalogue_map``) and
  the core ``APP_CALLS`` of ``modules.py``, matched to the operation whose URL they call;
- Zapier: ``harness.platforms.zapier.translate.apps.ZAPIER_APPS`` ((app, action) -> app, operation; a row counts
  when its params are mapped or a function of its own translates it);
- Power Automate: a ``CATALOGUE`` table ((connector, operation) -> (app, operation)) of
  ``harness.platforms.power_automate.translate.connectors``, when it has one.

``rows(tables)`` lays them out by operation (``strays(tables)``: what a translator names that the
catalogue lacks); ``markdown(rows, strays)`` is the table in docs/:

    python -m harness.catalogue.coverage --write docs/catalogue.md
"""

from __future__ import annotations

import argparse
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import catalogue

PLATFORMS = ("n8n", "Make", "Zapier", "Power Automate")
Key = tuple[str, str]  # (catalogue app, operation)
Table = dict[Key, list[str]]  # operation -> the platform's step types that call it

__all__ = ["PLATFORMS", "Row", "main", "markdown", "platform_tables", "rows", "strays"]


@dataclass(frozen=True)
class Row:
    """One catalogue operation and, per platform, the steps translated onto it."""

    app: str
    operation: str
    call: str
    steps: dict[str, list[str]] = field(default_factory=dict)


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _n8n() -> Table:
    found: Table = {}
    module = _module("harness.platforms.n8n.translate.apps")
    for node_type, entry in (getattr(module, "N8N_APPS", None) or {}).items():
        for (resource, op), mapping in entry.operations.items():
            if getattr(mapping, "request", None) is None and getattr(mapping, "whole", None) is None:
                continue
            found.setdefault((entry.app, mapping.operation), []).append(f"{node_type} {resource}.{op}")
    return found


def _url_operation(url: str) -> Key | None:
    """Return the catalogue operation whose base URL and path ``url`` (``{field}`` placeholders) calls."""
    shape = re.sub(r"\{\w+\}", "{}", url)
    for app in catalogue.apps().values():
        for op in app.operations.values():
            if re.sub(r"\{\w+\}", "{}", app.base_url + op.path) == shape:
                return app.name, op.name
    return None


def _make() -> Table:
    found: Table = {}
    mapping = _module("harness.platforms.make.translate.apps._catalogue_map")
    if mapping is not None:
        for module_type, key in mapping.make_operations().items():
            found.setdefault(key, []).append(module_type)
    core = _module("harness.platforms.make.translate.modules")
    for module_type, (_, url, _) in (getattr(core, "APP_CALLS", None) or {}).items():
        key = _url_operation(url)
        if key is not None and module_type not in found.get(key, []):  # an area's translator may have taken it over
            found.setdefault(key, []).append(module_type)
    return found


def _zapier() -> Table:
    found: Table = {}
    module = _module("harness.platforms.zapier.translate.apps")
    for (app, action), mapping in (getattr(module, "ZAPIER_APPS", None) or {}).items():
        if getattr(mapping, "body", None) is not None or getattr(mapping, "own", False):
            found.setdefault((mapping.app, mapping.operation), []).append(f"{app} {action}")
    return found


def _power_automate() -> Table:
    found: Table = {}
    module = _module("harness.platforms.power_automate.translate.connectors")
    for (connector, op), key in (getattr(module, "CATALOGUE", None) or {}).items():
        found.setdefault((str(key[0]), str(key[1])), []).append(f"{connector} {op}")
    return found


def platform_tables() -> dict[str, Table]:
    """Return each platform's table (operation -> its step types), empty for a platform without one."""
    return {"n8n": _n8n(), "Make": _make(), "Zapier": _zapier(), "Power Automate": _power_automate()}


def rows(tables: dict[str, Table]) -> list[Row]:
    """Return one row per catalogue operation, in the catalogue's order, with each platform's steps."""
    out = []
    for app in catalogue.apps().values():
        for op in app.operations.values():
            call = f"{op.method} {op.path}" if op.path else op.method
            out.append(Row(app.name, op.name, call,
                           {p: sorted(tables.get(p, {}).get((app.name, op.name), [])) for p in PLATFORMS}))
    return out


def strays(tables: dict[str, Table]) -> list[tuple[str, Key, list[str]]]:
    """Return (platform, operation, steps) of each operation a translator names that the catalogue does not have."""
    known = {(a.name, o.name) for a in catalogue.apps().values() for o in a.operations.values()}
    return [(platform, key, sorted(steps)) for platform, table in tables.items()
            for key, steps in sorted(table.items()) if key not in known]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(table: list[Row], stray: list[tuple[str, Key, list[str]]] | None = None) -> str:
    """Return the coverage as a Markdown document: operation × platform, each platform's count, and the
    operations a translator names that the catalogue lacks (a row to add)."""
    counts = {p: sum(1 for r in table if r.steps.get(p)) for p in PLATFORMS}
    lines = ["# The app catalogue: operation × platform", "",
             "Each row is one catalogue operation (`harness.catalogue`); a platform's cell names the steps its",
             "translator maps onto it (n8n node and resource.operation, Make module type, Zapier app and action,",
             "Power Automate connector and operation). Written by `python -m harness.catalogue.coverage --write "
             "docs/catalogue.md`.", "",
             f"{len(table)} operations; " + ", ".join(f"{p}: {counts[p]}" for p in PLATFORMS) + ".", "",
             "| app | operation | call | " + " | ".join(PLATFORMS) + " |",
             "|---|---|---|" + "---|" * len(PLATFORMS)]
    for row in table:
        cells = [", ".join(f"`{s}`" for s in row.steps.get(p, [])) for p in PLATFORMS]
        lines.append(f"| {row.app} | {row.operation} | `{_cell(row.call)}` | " + " | ".join(_cell(c) for c in cells) + " |")
    if stray:
        lines += ["", "## Named by a translator, not in the catalogue", "",
                  "| platform | app | operation | steps |", "|---|---|---|---|"]
        lines += [f"| {p} | {a} | {o} | " + _cell(", ".join(f"`{s}`" for s in steps)) + " |" for p, (a, o), steps in stray]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m harness.catalogue.coverage [--write PATH]``: print or write the Markdown table."""
    parser = argparse.ArgumentParser(prog="python -m harness.catalogue.coverage", description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path, help="the Markdown file to write (docs/catalogue.md)")
    args = parser.parse_args(argv)
    tables = platform_tables()
    text = markdown(rows(tables), strays(tables))
    if args.write is None:
        print(text, end="")
    else:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

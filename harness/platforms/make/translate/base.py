"""What every Make module translator shares: the scenario's ``Gen``, a module's ``ModuleCode``, its TODO.

``modules`` (the core module types) and ``apps/<area>.py`` (app modules, by area) import these;
neither imports the other's translators, so adding an area is adding a file.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field

from harness.platforms.make.definition import Module
from harness.scaffold import _code, _credential
from harness.scaffold._code import name, stmts
from harness.scaffold._credential import Credential

__all__ = ["Gen", "ModuleCode", "todo", "var"]


@dataclass
class Gen:
    """What translating one scenario shares: providers by host, and the names chosen so far."""

    providers: dict[str, str]  # host -> provider name
    steps: dict[int, str] = field(default_factory=dict)  # module id -> step name (call modules)
    proposals: dict[str, str] = field(default_factory=dict)  # provider -> base URL to configure
    hosts: dict[str, str] = field(default_factory=dict)  # host -> provider, for the manifest
    credentials: list[Credential] = field(default_factory=list)  # read from the environment instead


@dataclass
class ModuleCode:
    """The translation of one module."""

    lines: list[ast.stmt]
    bundle: ast.expr | None = None
    bundles: ast.expr | None = None
    todo: str | None = None  # why the module is left for a person
    note: str = ""


def var(module: Module) -> ast.Name:
    """Return the Python name of a module's current bundle."""
    return name(f"bundle_{module.id}")


def _empty() -> ast.expr:
    return ast.Dict([], [])


def todo(module: Module, why: str) -> ModuleCode:
    """Return a TODO module: its code fails any bundle that reaches it, naming the module."""
    lines = [_code.comment(f"TODO: {why}")]
    if module.mapper:
        mapper = json.dumps(_credential.redacted(module.mapper), indent=2, ensure_ascii=False)
        lines += [_code.comment(f"    {line}") for line in mapper.splitlines()[:30]]
    lines += stmts("raise make.TodoModule($label, $why)", label=module.label, why=why)
    return ModuleCode(lines, bundle=_empty(), todo=why)



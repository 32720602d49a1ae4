"""Read ``[tool.cutover]`` from the project's pyproject.toml and resolve the database URL."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError


@dataclass(frozen=True)
class Settings:
    """The project's cutover settings; ``raw`` keeps the whole table for other sections."""

    root: Path
    automations: str = "automations"
    raw: dict[str, Any] = field(default_factory=dict)


def find_pyproject(start: Path | None = None) -> Path | None:
    """Return the nearest pyproject.toml at or above ``start`` (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(path: Path | None = None) -> Settings:
    """Load settings from ``path`` or the nearest pyproject.toml; defaults when there is none.

    Raises ConfigError naming the file (and the line, for TOML syntax errors) or the field.
    """
    path = path or find_pyproject()
    if path is None:
        return Settings(root=Path.cwd())
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(exc), source=str(path)) from None
    table = data.get("tool", {}).get("cutover", {})
    if not isinstance(table, dict):
        raise ConfigError("must be a table", source=str(path), field="tool.cutover")
    automations = table.get("automations", "automations")
    if not isinstance(automations, str) or not automations:
        raise ConfigError("must be a module name such as \"automations\"", source=str(path), field="tool.cutover.automations")
    return Settings(root=path.parent, automations=automations, raw=table)


def database_url() -> str:
    """Return the URL the CLI should use: DATABASE_URL, else a ``cutover`` database on a
    provisioned server (testcontainers or embedded), created on first use."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    from . import provision

    srv = provision.server()
    return provision.ensure_database(srv, "cutover")

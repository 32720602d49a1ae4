"""The project a shadow run belongs to: its ``[tool.cutover]`` settings, gate and providers.

Found from a directory (the working directory, as pytest and ``cutover`` are started): the
nearest directory at or above it whose pyproject.toml has a ``[tool.cutover]`` table, wherever
the recording set lives. The whole table is checked before anything is replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.shadow.gate import GateConfig, parse_gate


@dataclass(frozen=True)
class Project:
    """A project's settings (``queue_core.config.Settings``), go-live gate and provider configs."""

    settings: Any
    gate: GateConfig
    providers: dict[str, Any]

    @property
    def root(self) -> Path:
        return Path(self.settings.root)


def load_project(start: Path, *, fallback_root: Path | None = None) -> Project:
    """Find the project from ``start`` and check its whole ``[tool.cutover]``.

    Without a pyproject.toml that has the table, the project is ``fallback_root`` (pytest's
    rootdir) or ``start``, with default settings. Raises ConfigError or HarnessError naming the
    file and the key of the first fault.
    """
    from queue_core import config as qc_config
    from queue_core.provider import parse_providers

    pyproject = qc_config.find_project(start)
    settings = qc_config.load(pyproject) if pyproject else qc_config.Settings(root=fallback_root or start)
    gate = parse_gate(settings.raw.get("gate", {}), qc_config.shown(pyproject) if pyproject else "pyproject.toml")
    providers = parse_providers(settings.raw.get("providers", {}), source=str(settings.pyproject or "pyproject.toml"))
    return Project(settings, gate, providers)

"""``cutover scaffold``: turn a no-code workflow definition into an automation to prove and finish.

``scaffold_n8n(path, …)`` reads an n8n workflow file (or a directory of them), writes one
``automations/<name>.py`` per workflow whose body follows the workflow's graph in n8n's run order
(``harness.platforms.n8n.translate.nodes`` says what each node type becomes), and returns the manifest maps
(``steps``, ``decisions``) that make the generated step and decision names line up with what
``cutover import n8n`` records for the same workflow. A file a person has edited since it was
generated is never overwritten without ``force``: the would-be change is returned as a diff.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ScaffoldError
from harness.scaffold._module import NodeRow, Scaffold, edited

__all__ = ["NodeRow", "Scaffold", "ScaffoldError", "Written", "automation_name", "checked_name", "project_providers"]


@dataclass(frozen=True)
class Written:
    """One scaffolded workflow: where it went, and the diff when an edited file was kept."""

    scaffold: Scaffold[Any]  # an n8n or a Make scaffold
    path: Path
    written: bool
    diff: str = ""


def project_providers(pyproject: Path | None) -> dict[str, str]:
    """Return {host: provider} from ``[tool.cutover.providers.*].base_url`` (empty when none).

    Read with queue_core's one ``[tool.cutover]`` reader: a malformed pyproject.toml is a
    ConfigError naming the file (and the TOML line), as for every other command.
    """
    from queue_core.config import read_table

    out = {}
    for name, table in read_table(pyproject, "providers").items():
        base = table.get("base_url") if isinstance(table, dict) else None
        host = re.sub(r"^[a-z]+://", "", str(base or "")).split("/")[0].split(":")[0]
        if host:
            out[host] = name
    return out


def automation_name(title: str, fallback: str = "workflow") -> str:
    """Return an automation name for a workflow's title: lower case, dashes, starting with a letter.

    A title with no letter or digit is ``fallback``; one that starts with a digit (``04 Trend
    poster``) gets ``fallback-`` in front (``workflow-04-trend-poster``), so it can name a module.
    """
    stem = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    if not stem:
        return fallback
    return stem if stem[0].isalpha() else f"{fallback}-{stem}"


def checked_name(name: str) -> str:
    """Return ``name`` when it can name an automation module; raise ScaffoldError otherwise."""
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise ScaffoldError(f"automation name {name!r}: use lower-case letters, digits and dashes")
    return name


def write(scaffold: Scaffold[Any], into: Path, force: bool) -> Written:
    target = into / (scaffold.automation.replace("-", "_") + ".py")
    if target.exists():
        current = target.read_text(encoding="utf-8")
        if current == scaffold.source:
            return Written(scaffold, target, written=False)
        if edited(current) and not force:
            diff = "".join(difflib.unified_diff(current.splitlines(True), scaffold.source.splitlines(True),
                                                f"{target} (yours)", f"{target} (scaffold)"))
            return Written(scaffold, target, written=False, diff=diff)
    into.mkdir(parents=True, exist_ok=True)
    target.write_text(scaffold.source, encoding="utf-8")
    return Written(scaffold, target, written=True)

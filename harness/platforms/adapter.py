"""What a legacy tool's folder gives the rest of the harness: one ``PlatformAdapter`` per tool.

The import pipeline, branch coverage and ``cutover scaffold`` used to ask "which tool is this?"
in if-chains of their own; now each asks the registry (``harness.platforms.adapter_for``) for
the tool's adapter and calls what it holds. A tool that cannot do something (Zapier has no
translator, CSV no definition format) leaves that field ``None``, and the caller says so.

Only values and callables live here, so a tool's folder, the pipeline and ``harness.coverage``
can all import this module without importing each other.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from harness.errors import BranchesUnreadable, ExportFormatError
from harness.importer._run import ImportedRun
from harness.manifest import AutomationEntry, Coercion
from harness.recording import Platform

if TYPE_CHECKING:
    from harness.scaffold import Written

__all__ = ["Branch", "BranchReader", "BranchesUnreadable", "HistoryParser", "PlatformAdapter", "Translator"]

# (export, manifest entry, the definition document or None) -> one item per record of the run history
HistoryParser = Callable[[Path, AutomationEntry, Any], Iterator[ImportedRun | ExportFormatError]]


@dataclass(frozen=True)
class Branch:
    """One output of a branch node of the definition."""

    node: str
    kind: str  # if | switch | filter | loop | error-output (n8n) | router | error-handler | if-else (Make) | path | filter (Zapier)
    output: str  # the output's name in the definition (true, false, a rule's key, the fallback)
    decision: str  # the decision name the importer records for the node
    value: str  # the decision value the importer records for this output
    # How a recorded trace shows the branch taken (``harness.coverage``): "decision" (the
    # importer records ``decision = value``), "ran" (``steps[0]`` is in the trace's path),
    # "stopped" (``steps[0]`` ran and none of ``steps[1:]`` did), or "unreadable" (the recording
    # cannot show it; ``note`` says why, and it is never counted as taken).
    read: str = "decision"
    steps: tuple[str, ...] = ()
    note: str = ""


# (definition file, manifest entry) -> every branch of the definition, named as the importer names decisions
BranchReader = Callable[[Path, AutomationEntry], list[Branch]]


@dataclass(frozen=True)
class Translator:
    """How ``cutover scaffold <tool>`` turns the tool's definitions into automations.

    The strings are the command's help and the estate table's hint; ``module`` names the
    translator's module, imported only when a scaffold runs (it pulls esprima and tomlkit, which
    ``cutover scaffold --help`` and the importers do not need). That module has
    ``scaffold(path, automation=, into=, force=, providers=)``, returning what it wrote and the
    files of a directory it skipped, and ``maps_toml``/``write_maps``, which render and merge the
    manifest maps of one scaffold.
    """

    argument: str  # the command's argument: workflow, blueprint
    help: str  # the command's help, as its docstring would be
    automation_help: str
    set_help: str
    import_hint: str  # formatted with the scaffold's id, name and definition path
    module: str  # dotted name of the translator's module

    @classmethod
    def of_tool(cls, tool: str, *, argument: str, named: str, maps: str, help: str, import_hint: str) -> Translator:
        """Return the row of ``cutover scaffold <tool>``, whose translator is ``harness.platforms.<tool>.translate``."""
        return cls(argument, help, f"Automation name (default: from the {named}'s name). With a directory: a prefix.",
                   f"Recording set whose manifest.toml gets the {maps} maps (kept: entries you wrote).", import_hint,
                   f"harness.platforms.{tool}.translate")

    def _impl(self) -> Any:
        return importlib.import_module(self.module)

    def scaffold(self, path: Path, **options: Any) -> tuple[list[Written], list[str]]:
        result: tuple[list[Written], list[str]] = self._impl().scaffold(path, **options)
        return result

    def maps_toml(self, scaffold: Any) -> str:
        return str(self._impl().maps_toml(scaffold))

    def write_maps(self, manifest: Path, scaffold: Any) -> None:
        self._impl().write_maps(manifest, scaffold)


@dataclass(frozen=True)
class PlatformAdapter:
    """One legacy tool, as the pipeline, coverage and the CLI use it.

    ``parse_history`` reads the run-history export (with the definition document beside it);
    ``coercion`` is the manifest's default coercion profile for the tool's values;
    ``reads_definition`` says whether ``--definition`` means anything; ``branches`` lists a
    definition's branches and ``covers_branches`` says whether a ``--definition`` file is one it
    reads (so the import names it in the manifest for branch coverage); ``translator`` is the
    scaffold command, for tools that have one.
    """

    platform: Platform
    parse_history: HistoryParser
    coercion: Coercion
    reads_definition: bool = True
    branches: BranchReader | None = None
    covers_branches: Callable[[Path], bool] | None = None
    translator: Translator | None = None

    @classmethod
    def of_folder(cls, platform: Platform, coercion: Coercion, history: ModuleType, branches: ModuleType,
                  translator: Translator) -> PlatformAdapter:
        """Return the adapter of a tool folder with ``history.parse``, ``branches`` and a translator."""
        return cls(platform, history.parse, coercion, branches=branches.definition_branches,
                   covers_branches=branches.covers_branches, translator=translator)

"""The registry of legacy tools: one folder per tool, one ``PlatformAdapter`` each.

``harness/platforms/<tool>/`` reads the tool's definitions into one typed model
(``definition``), imports its run history (``history``), lists a definition's branches
(``branches``) and, where there is one, translates definitions into automations
(``translate``); its ``ADAPTER`` says which of these it has. The import pipeline, branch
coverage and ``cutover scaffold`` look a tool up here instead of each keeping an if-chain.
Adding a tool is adding a folder and a row below. CSV and JSONL are the generic tabular importer
(``harness.importer.tabular``): no definition, no branches, no translator.

A tool's folder is imported the first time its adapter is asked for: reading an n8n workflow
loads n8n's folder, not Make's or Zapier's.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError
from harness.importer import tabular
from harness.importer._run import ImportedRun
from harness.manifest import AutomationEntry, Coercion
from harness.platforms.adapter import Branch, PlatformAdapter, Translator
from harness.recording import Platform

__all__ = ["ADAPTERS", "Branch", "PlatformAdapter", "Translator", "adapter_for", "translators"]


def _csv(path: Path, entry: AutomationEntry, definition: Any = None) -> Iterator[ImportedRun | ExportFormatError]:
    return tabular.parse(path, entry, Platform.CSV)


def _jsonl(path: Path, entry: AutomationEntry, definition: Any = None) -> Iterator[ImportedRun | ExportFormatError]:
    return tabular.parse(path, entry, Platform.JSONL)


# The tools, each the folder (harness/platforms/<folder>/) whose ADAPTER it is.
FOLDERS: dict[Platform, str] = {
    Platform.N8N: "n8n",
    Platform.ZAPIER: "zapier",
    Platform.MAKE: "make",
    Platform.POWER_AUTOMATE: "power_automate",
}
_TABULAR: dict[Platform, PlatformAdapter] = {
    Platform.CSV: PlatformAdapter(Platform.CSV, _csv, Coercion.STRICT, reads_definition=False),
    Platform.JSONL: PlatformAdapter(Platform.JSONL, _jsonl, Coercion.STRICT, reads_definition=False),
}


def adapter_for(platform: Platform) -> PlatformAdapter:
    """Return the adapter of ``platform`` (every ``Platform`` has one), importing its folder if needed."""
    folder = FOLDERS.get(platform)
    if folder is None:
        return _TABULAR[platform]
    adapter: PlatformAdapter = importlib.import_module(f"harness.platforms.{folder}").ADAPTER
    return adapter


def __getattr__(name: str) -> Any:
    """``ADAPTERS``: every platform's adapter, by platform (imports every tool's folder)."""
    if name == "ADAPTERS":
        return {platform: adapter_for(platform) for platform in Platform}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def translators() -> dict[str, Translator]:
    """Return ``cutover scaffold``'s commands: each tool with a translator, by its name."""
    found = (adapter_for(platform) for platform in FOLDERS)
    return {str(a.platform): a.translator for a in found if a.translator is not None}

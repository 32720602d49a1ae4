"""Values shared by the importers: an imported run, a skipped record, JSON documents, name maps."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from harness._field import parse_timestamp
from harness.errors import ExportFormatError
from harness.manifest import AutomationEntry
from harness.recording import LegacyTrace, RecordedTrigger


@dataclass(frozen=True)
class ImportedRun:
    """One record of an export: its trigger (when the export shows it) and its legacy trace.

    ``trace`` is ``None`` for a run that had not finished (waiting, running); ``delivery_id`` is the
    id the sender gave the delivery, used to pair the run with a trigger recorded elsewhere.
    """

    record: str
    trigger: RecordedTrigger | None
    trace: LegacyTrace | None
    delivery_id: str | None = None


@dataclass(frozen=True)
class BadRecord:
    """A record an import skipped (``--skip-bad``), with what was wrong with it."""

    record: str | None
    field: str | None
    reason: str

    @classmethod
    def from_error(cls, error: ExportFormatError) -> BadRecord:
        """Summarise an ExportFormatError."""
        return cls(error.record, error.field, error.reason)


def load_json_document(path: Path) -> Any:
    """Parse a whole JSON export; raise ExportFormatError naming the line of a syntax error."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ExportFormatError(str(path), None, None, "file does not exist") from None
    except UnicodeDecodeError:
        raise ExportFormatError(str(path), None, None, "not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(
            str(path), None, None, f"not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})"
        ) from None


def epoch_ms(value: Any) -> datetime | None:
    """Convert a millisecond epoch (n8n's ``startTime``) to an aware datetime."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    return None


def timestamp_or_none(value: Any) -> datetime | None:
    """Parse an RFC 3339 timestamp string; ``None`` when absent or unparseable."""
    if not isinstance(value, str):
        return None
    try:
        return parse_timestamp(value.replace(" ", "T", 1) if "T" not in value else value)
    except ValueError:
        return None


def step_name(entry: AutomationEntry, *legacy_names: str) -> str | None:
    """Map a legacy step to its new name via the manifest; ``None`` when mapped to ``""`` (dropped)."""
    for name in legacy_names:
        if name in entry.steps:
            return entry.steps[name] or None
    return legacy_names[0]


def decision(entry: AutomationEntry, node: str, value: Any) -> tuple[str, Any]:
    """Name a legacy branch decision and translate its raw value via the manifest."""
    mapped = entry.decisions.get(node)
    if mapped is None:
        return step_name(entry, node) or node, value
    if isinstance(value, list):
        return mapped.name, [mapped.values.get(str(v), v) for v in value]
    return mapped.name, mapped.values.get(str(value), value)


def split_url(entry: AutomationEntry, url: str) -> tuple[str | None, str]:
    """Split an absolute URL into (provider, path-and-query) when the manifest knows its host."""
    parts = urlsplit(url)
    provider = entry.providers.get(parts.hostname or "")
    if provider is None:
        return None, url
    path = parts.path or "/"
    return provider, f"{path}?{parts.query}" if parts.query else path


def unflatten(data: Any, separator: str = "__") -> Any:
    """Turn Zapier-style flattened keys (``data__object__id``) back into nested objects.

    A key whose prefix already holds a non-object value is kept flat rather than overwritten.
    """
    if not isinstance(data, dict):
        return data
    nested: dict[str, Any] = {}
    for key in sorted(data, key=lambda k: k.count(separator)):
        value = unflatten(data[key], separator)
        parts = key.split(separator) if separator in key.strip(separator) else [key]
        node = nested
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                node = {}
                nested[key] = value
                break
            node = child
        else:
            node[parts[-1]] = value
    return nested

"""Values shared by the importers: an imported run, a skipped record, JSON documents, name maps."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from harness._field import parse_timestamp
from harness.errors import ExportFormatError
from harness.manifest import AutomationEntry
from harness.recording import LegacyTrace, RecordedTrigger


@dataclass(frozen=True)
class ImportedRun:
    """One record of an export: its trigger (when the export shows it) and its legacy trace.

    ``trace`` is ``None`` for a run that had not finished (waiting, running); ``delivery_id`` is the
    id the sender gave the delivery, used to pair the run with a trigger recorded elsewhere;
    ``part_of`` is the export's record a run was split from (one polled item of an execution).
    """

    record: str
    trigger: RecordedTrigger | None
    trace: LegacyTrace | None
    delivery_id: str | None = None
    warnings: tuple[str, ...] = ()
    part_of: str | None = None

    @property
    def export_record(self) -> str:
        """Return the export's record this run came from (itself unless it was split from one)."""
        return self.part_of or self.record


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


MAX_DEPTH = 200
# Errors a record of unexpected shape can raise deep in an importer; each becomes an ExportFormatError
# naming the record, so a user never sees a traceback (the explicit checks give better messages).
SHAPE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError, OverflowError)
T = TypeVar("T")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json_document(path: Path) -> Any:
    """Parse a whole JSON export; raise ExportFormatError naming the line of a syntax error.

    Rejects what ``json`` would accept but no export holds: ``NaN``/``Infinity``, integers too
    long to convert, and nesting deeper than ``MAX_DEPTH``.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ExportFormatError(str(path), None, None, "file does not exist") from None
    except UnicodeDecodeError as exc:
        raise ExportFormatError(str(path), None, None, f"not UTF-8 text (byte {exc.start})") from None
    return parse_json_text(text, str(path))


def parse_json_text(text: str, path: str, record: str | None = None) -> Any:
    """Parse JSON text (a document or one JSONL line) with the limits of :func:`load_json_document`."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}" if record is None else f"column {exc.colno}"
        raise ExportFormatError(path, record, None, f"not valid JSON at {where} ({exc.msg})") from None
    except RecursionError:
        raise ExportFormatError(path, record, None, f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # NaN/Infinity, or an integer over Python's digit limit
        raise ExportFormatError(path, record, None, f"not a usable JSON value ({str(exc)[:120]})") from None
    if too_deep(value):
        raise ExportFormatError(path, record, None, f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Return whether a JSON value nests deeper than ``limit`` (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def guarded(items: Iterable[tuple[str, Any]], path: str, parse_one: Callable[[Any, str], T]) -> Iterator[T | ExportFormatError]:
    """Parse each ``(record, value)``; yield its ExportFormatError instead of raising it.

    An unexpected shape that escapes an importer's own checks still becomes an error naming
    the record, never a traceback.
    """
    for record, value in items:
        try:
            yield parse_one(value, record)
        except ExportFormatError as error:
            yield error
        except SHAPE_ERRORS as exc:
            yield ExportFormatError(path, record, None, f"unexpected value in this record ({type(exc).__name__}: {str(exc)[:120]})")


def flat(outcomes: Iterable[list[ImportedRun] | ExportFormatError]) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield each run of each record's list of runs (a record may give several: one per polled item)."""
    for outcome in outcomes:
        if isinstance(outcome, ExportFormatError):
            yield outcome
        else:
            yield from outcome


def epoch_ms(value: Any) -> datetime | None:
    """Convert a millisecond epoch (n8n's ``startTime``) to an aware datetime; ``None`` if unusable."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, ValueError, OSError):
        return None


def obj(value: Any) -> dict[str, Any]:
    """Return ``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def status_word(value: Any) -> str | None:
    """Return a status as a lower-case word; ``None`` when it is not a string or number."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return str(value).strip().lower()


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

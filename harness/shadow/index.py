"""The index of a recording set: where each trigger and its legacy trace live in the set's files.

Collection builds a :class:`SetIndex`: per automation, each trigger's id and the byte offsets
of its ``triggers.jsonl`` and ``legacy.jsonl`` lines, so items hold a few integers and a batch
re-reads only its own lines (a 100,000-trigger set is never in memory at once).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from harness.errors import RecordingError
from harness.manifest import MANIFEST_FILE, Manifest, load_manifest
from harness.recording import (LEGACY_FILE, TRIGGERS_FILE, LegacyTrace, RecordedTrigger, loads_json, trace_from_json,
                               trigger_from_json)


@dataclass(frozen=True, slots=True)
class TriggerRef:
    """Where one trigger and its legacy trace live in the set's files (``seq`` = line order)."""

    automation: str
    trigger_id: str
    seq: int
    offset: int
    line: int
    legacy_offset: int
    legacy_line: int

    @property
    def paired(self) -> bool:
        return self.legacy_offset >= 0


@dataclass
class AutomationIndex:
    """One automation directory of a set: its triggers in file order and their arrival span."""

    name: str
    directory: Path
    refs: list[TriggerRef] = field(default_factory=list)
    first_received: str | None = None
    last_received: str | None = None


@dataclass
class SetIndex:
    """A recording set, indexed for collection and batched loading."""

    directory: Path
    manifest: Manifest
    automations: dict[str, AutomationIndex]
    providers: set[str]

    @property
    def name(self) -> str:
        return self.manifest.name

    @classmethod
    def build(cls, directory: Path) -> SetIndex:
        """Index every automation directory of the set; raise RecordingError on malformed lines."""
        manifest = load_manifest(directory / MANIFEST_FILE)
        providers = {p for entry in manifest.automations.values() for p in entry.providers.values()}
        names = sorted(set(manifest.automations) | {p.name for p in directory.iterdir()
                                                    if (p / TRIGGERS_FILE).is_file()})
        autos = {}
        for name in names:
            if (directory / name / TRIGGERS_FILE).is_file():
                autos[name] = _index_automation(name, directory / name, providers)
        return cls(directory, manifest, autos, providers)

    def shell(self) -> SetIndex:
        """Return this index without its trigger references (what a replay process needs)."""
        autos = {name: AutomationIndex(name, a.directory, [], a.first_received, a.last_received)
                 for name, a in self.automations.items()}
        return SetIndex(self.directory, self.manifest, autos, set(self.providers))

    def load(self, refs: Sequence[TriggerRef]) -> list[tuple[TriggerRef, RecordedTrigger, LegacyTrace | None]]:
        """Read and validate the triggers and legacy traces of ``refs`` from their files."""
        out = []
        handles: dict[str, IO[bytes]] = {}
        files: dict[str, tuple[str, str]] = {}  # automation -> its triggers and legacy file names
        try:
            for ref in refs:
                names = files.get(ref.automation)
                if names is None:
                    directory = self.automations[ref.automation].directory
                    names = files[ref.automation] = (str(directory / TRIGGERS_FILE), str(directory / LEGACY_FILE))
                trigger = trigger_from_json(_read_at(handles, names[0], ref.offset), names[0], ref.line)
                legacy = None
                if ref.paired:
                    legacy = trace_from_json(_read_at(handles, names[1], ref.legacy_offset), names[1], ref.legacy_line)
                out.append((ref, trigger, legacy))
        finally:
            for handle in handles.values():
                handle.close()
        return out


def _read_at(handles: dict[str, IO[bytes]], path: str, offset: int) -> dict[str, Any]:
    handle = handles.get(path)
    if handle is None:
        handle = handles[path] = open(path, "rb")  # noqa: SIM115 - closed by the caller
    handle.seek(offset)
    value: dict[str, Any] = loads_json(handle.readline())
    return value


def _lines(path: Path) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Yield (offset, line number, object) for each non-blank JSONL line, with located errors."""
    if not path.exists():
        return
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            start, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                value = loads_json(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                raise RecordingError(str(path), number, None, f"not valid JSON ({exc})") from None
            if not isinstance(value, dict):
                raise RecordingError(str(path), number, None, "expected an object")
            yield start, number, value


def _call_providers(trace: dict[str, Any]) -> set[str]:
    """The providers a legacy trace's calls name, its items' calls included (unvalidated input)."""
    items = [i for i in trace.get("items") or [] if isinstance(i, dict)]
    calls = [c for t in (trace, *items) for c in t.get("calls") or [] if isinstance(c, dict)]
    return {c["provider"] for c in calls if isinstance(c.get("provider"), str)}


def _index_automation(name: str, directory: Path, providers: set[str]) -> AutomationIndex:
    index = AutomationIndex(name, directory)
    legacy = _lines(directory / LEGACY_FILE)
    pending = next(legacy, None)
    seen: set[str] = set()
    for seq, (offset, number, obj) in enumerate(_lines(directory / TRIGGERS_FILE)):
        trigger_id = obj.get("id")
        if not isinstance(trigger_id, str) or not trigger_id:
            raise RecordingError(str(directory / TRIGGERS_FILE), number, "id", "expected a non-empty string")
        if trigger_id in seen:
            raise RecordingError(str(directory / TRIGGERS_FILE), number, "id", f"duplicate trigger id {trigger_id!r}")
        seen.add(trigger_id)
        received = obj.get("received_at")
        index.first_received = index.first_received or (received if isinstance(received, str) else None)
        index.last_received = received if isinstance(received, str) else index.last_received
        l_offset = l_line = -1
        if pending is not None and pending[2].get("trigger_id") == trigger_id:
            l_offset, l_line = pending[0], pending[1]
            providers.update(_call_providers(pending[2]))
            pending = next(legacy, None)
        index.refs.append(TriggerRef(name, trigger_id, seq, offset, number, l_offset, l_line))
    if pending is not None:
        raise RecordingError(str(directory / LEGACY_FILE), pending[1], "trigger_id",
                             f"no trigger {pending[2].get('trigger_id')!r} at or after this position in "
                             f"{TRIGGERS_FILE} (legacy traces must follow the order of their triggers)")
    return index

"""Run an import end to end: parse, redact, pair, and install the automation's files atomically.

Nothing partial ever looks complete: the automation's new ``triggers.jsonl``/``legacy.jsonl`` are
written to a staging directory and renamed into place only after every record was read; a
malformed record stops the import (nothing is written) unless ``skip_bad`` is set, in which case
the manifest's source entry records how many records were skipped.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError, ManifestError, UnreplayableImportError
from harness.importer._run import BadRecord, ImportedRun
from harness.importer.definition import load_definition, refuse_definition
from harness.importer.foreign import refuse_foreign_runs
from harness.importer.pairing import Pairing, pair
from harness.importer.summary import DEFAULT_LIMITS, ImportSummary, coverage_sentence
from harness.manifest import (
    MANIFEST_FILE, AutomationEntry, ExportSource, Manifest, load_manifest, set_relative, with_source,
    write_manifest,
)
from harness.recording import (
    LEGACY_FILE, TRIGGERS_FILE, Evidence, LegacyTrace, Platform, RecordedTrigger, TraceStatus, iter_triggers,
    write_traces, write_triggers,
)
from harness.platforms import adapter_for
from harness.redact import RedactionPolicy, policy_from_settings, redact_trace, redact_trigger

DEFAULT_PAIR_WINDOW = timedelta(minutes=5)


@dataclass(frozen=True)
class ImportRequest:
    """Everything ``cutover import`` was asked to do."""

    platform: Platform
    export: Path
    into: Path
    automation: str
    skip_bad: bool = False
    columns: dict[str, str] = field(default_factory=dict)
    pair_window: timedelta = DEFAULT_PAIR_WINDOW
    definition: Path | None = None
    salt: bytes | None = None
    limits: dict[str, Any] = field(default_factory=dict)
    keep_unreplayable: bool = False


def _entry(manifest: Manifest, request: ImportRequest) -> AutomationEntry:
    entry = manifest.automations.get(request.automation) or AutomationEntry(
        request.automation, request.platform, adapter_for(request.platform).coercion
    )
    return replace(entry, platform=request.platform, columns={**entry.columns, **request.columns})


def parse_export(request: ImportRequest, entry: AutomationEntry) -> Iterator[ImportedRun | ExportFormatError]:
    """Hand the export to its tool's importer, with the definition file's document when one is given.

    Raises DefinitionGivenError when the export is itself a definition (a workflow, blueprint,
    Zapfile or flow), naming the export that holds the runs; ForeignExportError when it is another
    tool's runs, or records that hold no run (``harness.importer.foreign``), naming what it is.
    """
    refuse_definition(request.export, request.platform)
    refuse_foreign_runs(request.export, request.platform)
    adapter = adapter_for(request.platform)
    if request.definition is not None and not adapter.reads_definition:
        raise ExportFormatError(str(request.definition), None, None, f"--definition: {request.platform} has no definition format")
    definition = load_definition(request.definition, request.platform) if request.definition else None
    return adapter.parse_history(request.export, entry, definition)


def collect(items: Iterable[ImportedRun | ExportFormatError], skip_bad: bool) -> tuple[list[ImportedRun], list[BadRecord]]:
    """Split parsed items into runs and bad records; re-raise the first error unless ``skip_bad``."""
    runs: list[ImportedRun] = []
    bad: list[BadRecord] = []
    for item in items:
        if isinstance(item, ExportFormatError):
            if not skip_bad:
                raise item
            bad.append(BadRecord.from_error(item))
        else:
            runs.append(item)
    return runs, bad


def redact_run(run: ImportedRun, policy: RedactionPolicy) -> ImportedRun:
    """Redact a run's trigger, and hide the same values wherever its trace repeats them."""
    if run.trigger is None:
        return run
    trigger, replaced = redact_trigger(run.trigger, policy)
    trace = redact_trace(run.trace, replaced) if run.trace is not None else None
    if trigger.poll is not None and trigger.poll.item in replaced:  # an item keyed by a redacted field
        item = replaced[trigger.poll.item]
        trigger = replace(trigger, id=trigger.id.replace(trigger.poll.item, item), poll=replace(trigger.poll, item=item))
    return replace(run, trigger=trigger, trace=trace)


def import_export(request: ImportRequest, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> ImportSummary:
    """Import one export into ``request.into``; return the summary.

    Raises ExportFormatError (nothing written) for a malformed record unless ``skip_bad``;
    RedactionError when no salt is configured; RecordingError/ManifestError for a broken set.
    """
    manifest_path = request.into / MANIFEST_FILE
    manifest = load_manifest(manifest_path) if manifest_path.exists() else Manifest(name=request.into.name)
    entry = _entry(manifest, request)
    request, named = _manifest_definition(request, entry)
    policy = policy_from_settings(manifest.redaction, request.salt)
    runs, bad = collect(parse_export(request, entry), request.skip_bad)
    runs = [redact_run(run, policy) for run in runs]
    directory = request.into / request.automation
    existing = existing_triggers(directory)
    pairing = pair(existing, runs, window=request.pair_window, locator=entry.delivery_id)
    if not request.keep_unreplayable:
        refuse_unreplayable(request, runs, pairing)
    install(directory, pairing)
    source = _source(request, entry, runs, bad, clock())
    from harness.mapping import proposal_from_traces  # the maps, proposed commented on a first import

    proposal = proposal_from_traces(entry.name, _with_item_traces(runs))
    entry = _with_definition(entry, request)
    write_manifest(manifest_path, with_source(manifest, source, entry), proposal=proposal)
    return replace(_summary(request, runs, bad, pairing, source), definition_from_manifest=named)


def _manifest_definition(request: ImportRequest, entry: AutomationEntry) -> tuple[ImportRequest, str | None]:
    """Use the entry's ``definition`` (relative to the set) when ``--definition`` names none.

    Returns the request to run and the path used (``None`` when ``--definition`` was given, the
    entry names none, or the platform has no definition format). Raises ManifestError when the
    named file does not exist.
    """
    if request.definition is not None or not entry.definition or not adapter_for(request.platform).reads_definition:
        return request, None
    path = request.into / entry.definition
    if not path.is_file():
        raise ManifestError(str(request.into / MANIFEST_FILE), None, f"automations.{entry.name}.definition",
                            f"{path} does not exist (fix the path, or pass --definition FILE)")
    return replace(request, definition=path), str(path)


def _with_definition(entry: AutomationEntry, request: ImportRequest) -> AutomationEntry:
    """Name ``--definition`` as the entry's definition (relative to the set) when it names none.

    Only for the definitions branch coverage reads (an n8n file of one workflow, a Make
    blueprint): the report then lists every branch of the workflow and the triggers that took it.
    """
    covers = adapter_for(request.platform).covers_branches
    if request.definition is None or entry.definition or covers is None or not covers(request.definition):
        return entry
    return replace(entry, definition=set_relative(request.definition, request.into))


def _with_item_traces(runs: list[ImportedRun]) -> Iterator[LegacyTrace]:
    """Yield each trace, then each of its items as a trace, so maps are proposed for item-level nodes and calls too."""
    for run in runs:
        if run.trace is None:
            continue
        yield run.trace
        yield from (replace(run.trace, path=item.path, decisions=item.decisions, calls=item.calls, items=[])
                    for item in run.trace.items)


def refuse_unreplayable(request: ImportRequest, runs: list[ImportedRun], pairing: Pairing) -> None:
    """Raise UnreplayableImportError when no trigger with a body pairs with a legacy trace."""
    if any(trigger.body for trigger, _ in pairing.pairs):
        return
    if not runs:
        reason = "the export holds no runs"
    elif all(run.trace is None for run in runs):
        reason = f"none of its {len(runs)} runs has finished (running or waiting), so there is no legacy trace to compare"
    elif pairing.pairs:
        reason = f"{len(pairing.pairs)} runs paired, but every trigger body is empty: there is nothing to replay"
    else:
        reason = (f"{len(pairing.legacy_only)} legacy runs and no trigger to replay them with: this export holds no "
                  "trigger bodies. Record the triggers with `cutover record` (or `cutover serve --record`) while the "
                  "legacy tool runs, then import the runs again to pair them by delivery id or time")
    raise UnreplayableImportError(
        str(request.export), None, None, f"nothing replayable: {reason} (--keep-unreplayable imports it anyway)")


def install(directory: Path, pairing: Pairing) -> None:
    """Write the automation's files to a staging directory, then swap it into place."""
    staging = directory.with_name(f".{directory.name}.staging-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    traces = {t.id: trace for t, trace in pairing.pairs}
    triggers = sorted([t for t, _ in pairing.pairs] + pairing.trigger_only, key=lambda t: (t.received_at, t.id))
    write_triggers(staging / TRIGGERS_FILE, triggers)
    write_traces(staging / LEGACY_FILE, (traces[t.id] for t in triggers if t.id in traces))
    retired = directory.with_name(f".{directory.name}.retired-{os.getpid()}")
    if directory.exists():
        os.replace(directory, retired)
    os.replace(staging, directory)
    shutil.rmtree(retired, ignore_errors=True)


def _source(request: ImportRequest, entry: AutomationEntry, runs: list[ImportedRun], bad: list[BadRecord], now: datetime) -> ExportSource:
    limits = {**DEFAULT_LIMITS[request.platform], **request.limits}
    for said in _trigger_notes(runs):
        limits["note"] = f"{said}; {limits['note']}" if limits.get("note") else said
    return ExportSource(
        platform=request.platform, automation=entry.name, files=(str(request.export),),
        records=_records(runs) + len(bad), skipped_records=len(bad), imported_at=now.replace(microsecond=0),
        **limits,
    )


def _records(runs: list[ImportedRun]) -> int:
    """Count the export's records (a polled execution split into items is one)."""
    return len({run.export_record for run in runs})


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _trigger_notes(runs: list[ImportedRun]) -> list[str]:
    """Say what kind of runs the source holds when they are not plain deliveries (ticks, polled items, fan-outs)."""
    notes: list[str] = []
    polled = [r.trigger.poll for r in runs if r.trigger is not None and r.trigger.poll is not None]
    if polled:  # a polled automation: one trigger per item a poll found, received at the poll
        polls = len({(p.poller, p.at) for p in polled})
        notes.append(f"poll-triggered: {_plural(len(polled), 'item')} from {_plural(polls, 'poll')} (trigger source \"poll\", received at the "
                     "poll; the handler replays once per item)")
    fanned = [r.trace for r in runs if r.trace is not None and r.trace.items]
    if fanned:
        count = sum(len(t.items) for t in fanned)
        notes.append(f"item-by-item: {_plural(len(fanned), 'run')} over {_plural(count, 'item')} (legacy.jsonl items, compared "
                     "with the child jobs)")
    ticks = sum(1 for r in runs if r.trigger is not None and r.trigger.source == "schedule")
    if ticks:  # a scheduled automation: its triggers are ticks (received_at = the tick), not deliveries
        notes.append(f"schedule-triggered: {ticks} runs started by a schedule tick (trigger source \"schedule\", received at the tick)")
    return notes


def _summary(request: ImportRequest, runs: list[ImportedRun], bad: list[BadRecord], pairing: Pairing, source: ExportSource) -> ImportSummary:
    times = [t.received_at for t, _ in pairing.pairs] + [t.started_at for t in pairing.legacy_only if t.started_at]
    succeeded = sum(1 for r in runs if r.trace is not None and r.trace.status is TraceStatus.SUCCEEDED)
    first, last = (min(times), max(times)) if times else (None, None)
    return ImportSummary(
        automation=request.automation, platform=request.platform, export=str(request.export),
        records=_records(runs) + len(bad), paired=len(pairing.pairs), legacy_only=len(pairing.legacy_only),
        trigger_only=len(pairing.trigger_only), unfinished=pairing.unfinished, skipped=tuple(bad),
        first=first, last=last, coverage=coverage_sentence(source, first, last, succeeded),
        by_delivery=pairing.by_delivery, by_time=pairing.by_time, evidence=evidence_depths(pairing),
        warnings=tuple(w for r in runs for w in r.warnings),
    )


def evidence_depths(pairing: Pairing) -> tuple[tuple[str, int], ...]:
    """Count traces per evidence depth (``status+path``...), deepest first."""
    counts: dict[tuple[Evidence, ...], int] = {}
    for trace in [t for _, t in pairing.pairs] + pairing.legacy_only:
        counts[trace.evidence] = counts.get(trace.evidence, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-len(kv[0]), kv[0]))
    return tuple(("+".join(e.value for e in depth) or "nothing", count) for depth, count in ordered)


def existing_triggers(directory: Path) -> list[RecordedTrigger]:
    """Return the triggers already recorded for an automation (empty when there are none)."""
    path = directory / TRIGGERS_FILE
    return list(iter_triggers(path)) if path.exists() else []

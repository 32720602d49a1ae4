"""The import summary: what an import produced, what it skipped, and what the set can represent."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from harness.importer._run import BadRecord
from harness.manifest import ExportSource
from harness.recording import Platform

MAX_WARNINGS_SHOWN = 10

# What each tool keeps by default. n8n prunes executions older than EXECUTIONS_DATA_MAX_AGE
# (336 hours = 14 days) and may be set not to save successful runs (EXECUTIONS_DATA_SAVE_ON_SUCCESS).
DEFAULT_LIMITS: dict[Platform, dict[str, object]] = {
    Platform.N8N: {"retention_days": 14, "saves_failed_runs": True},
    Platform.ZAPIER: {"note": "Zap history is kept for a period that depends on the Zapier plan"},
    Platform.MAKE: {"note": "Make keeps execution logs for a number of days that depends on the plan"},
    Platform.POWER_AUTOMATE: {"retention_days": 28, "note": "action inputs and outputs sit behind links that expire"},
    Platform.CSV: {},
    Platform.JSONL: {},
}


@dataclass(frozen=True)
class ImportSummary:
    """What one ``cutover import`` did."""

    automation: str
    platform: Platform
    export: str
    records: int
    paired: int
    legacy_only: int
    trigger_only: int
    unfinished: int
    skipped: tuple[BadRecord, ...]
    first: datetime | None
    last: datetime | None
    coverage: str
    by_delivery: int = 0
    by_time: int = 0
    evidence: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()
    definition_from_manifest: str | None = None

    @property
    def from_export(self) -> int:
        """Return how many pairs use the trigger the export itself carries."""
        return self.paired - self.by_delivery - self.by_time

    def lines(self) -> list[str]:
        """Render the summary as lines for a terminal."""
        out = [
            f"imported {self.export} ({self.platform}) into {self.automation}: {self.records} records",
            f"  paired (trigger + legacy run): {self.paired}",
            f"  legacy-only (no trigger to replay): {self.legacy_only}",
            f"  trigger-only (no legacy run to compare): {self.trigger_only}",
        ]
        if self.definition_from_manifest:
            out.insert(1, f"  definition: {self.definition_from_manifest} (the manifest's definition; --definition overrides it)")
        if self.paired:
            out.append(f"    pairing: {self.from_export} with the export's own trigger, {self.by_delivery} by delivery id, "
                       f"{self.by_time} by time window (nearest recorded trigger; check the window)")
        if self.evidence:
            depth = "; ".join(f"{label}: {count}" for label, count in self.evidence)
            out.append(f"  evidence depth (what each trace can prove): {depth}")
        if self.unfinished:
            out.append(f"  unfinished legacy runs (waiting/running, no trace): {self.unfinished}")
        if self.skipped:
            out.append(f"  skipped malformed records: {len(self.skipped)} — the set is marked incomplete")
            out.extend(f"    - record {b.record}, field {b.field!r}: {b.reason}" for b in self.skipped)
        if self.warnings:
            out.append(f"  warnings: {len(self.warnings)}")
            out.extend(f"    - {w}" for w in self.warnings[:MAX_WARNINGS_SHOWN])
            if len(self.warnings) > MAX_WARNINGS_SHOWN:
                out.append(f"    - … and {len(self.warnings) - MAX_WARNINGS_SHOWN} more")
        out.append(f"  coverage: {self.coverage}")
        return out


def coverage_sentence(source: ExportSource, first: datetime | None, last: datetime | None, succeeded: int) -> str:
    """Say how the source's retention and sampling limit what the imported runs represent."""
    limits: list[str] = []
    if source.retention_days is not None:
        limits.append(f"{source.platform} keeps runs for {source.retention_days} days, so older runs were already gone")
    if source.saves_successful_runs is False:
        limits.append("it does not save successful runs, so the set holds failures only")
    elif source.saves_successful_runs is None and source.platform is Platform.N8N and succeeded == 0:
        limits.append("no successful run was exported: n8n may be set not to save them (EXECUTIONS_DATA_SAVE_ON_SUCCESS)")
    if source.saves_failed_runs is False:
        limits.append("it does not save failed runs, so failures are missing")
    if source.sampling < 1:
        limits.append(f"only {source.sampling:.0%} of runs were kept")
    if source.note:
        limits.append(source.note)
    if first is None or last is None:
        span = "The export held no runs"
    else:
        span = f"The set represents runs from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC"
    if not limits:
        return f"{span}; the source reports no retention or sampling limit."
    return f"{span}, not all traffic: " + "; ".join(limits) + "."

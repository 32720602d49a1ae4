"""The end of a shadow run: every process's rows into the summary, the reports and the gate verdicts.

:func:`summarise` aggregates the result rows (:mod:`harness.shadow.report`), :func:`conclude`
writes the reports and returns a :class:`Summary`; :func:`record` writes each automation's
verdict into the queue's database (``gate_verdicts``), where ``cutover worker`` looks before it
claims live jobs. The pytest plugin, :func:`harness.shadow.run` and ``cutover report merge``
all end here, so the three give the same reports and verdicts for the same rows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from harness.shadow.accepted import Entry
from harness.shadow.gate import GateConfig
from harness.shadow.index import SetIndex
from harness.shadow.shard import Shard


@dataclass(frozen=True)
class Summary:
    """What a shadow run concluded: the content of ``summary.json`` and what became of it.

    ``failed`` counts the triggers whose items fail (an unexplained disagreement, or an error);
    ``written`` is False when no trigger ran and the reports in ``report_dir`` were left as they
    were; ``recorded`` says where the gate verdicts were recorded, ``record_error`` why not. A
    shard's summary covers its own triggers only, and its gate verdicts are not the set's:
    ``cutover report merge`` gives those.
    """

    data: Mapping[str, Any]
    report_dir: Path
    written: bool = True
    failed: int = 0
    recorded: str | None = None
    record_error: str | None = None
    shard: Shard | None = None  # a shard's summary: its results are in report_dir, for the merge

    @property
    def ready(self) -> list[str]:
        """The automations the gate says may go live."""
        return list(self.data["gate"]["ready"])

    @property
    def not_ready(self) -> list[str]:
        """The automations the gate holds back."""
        return list(self.data["gate"]["not_ready"])

    @property
    def passed(self) -> bool:
        """Tell whether the gate passes: some automation ran, and every one is READY."""
        return bool(self.data["automations"]) and not self.not_ready

    def lines(self) -> list[str]:
        """Return the verdict lines pytest prints under ``cutover shadow verdict``."""
        from harness.shadow.report import terminal_lines

        if self.shard is not None:
            return [f"shard {self.shard}: {self.data['totals']['triggers']} trigger(s) replayed, {self.failed} failing; "
                    f"results in {self.report_dir} (the set's report and verdict: "
                    f"cutover report merge over every shard's results)"]
        lines = terminal_lines(self.data)
        if not self.written:
            lines.append(f"no recorded trigger was replayed (every one deselected, or the set is empty): "
                         f"the reports in {self.report_dir} were left as they were")
        else:
            lines.append(f"reports: {self.report_dir}/index.html (summary.json, disagreements.csv)")
        if self.recorded is not None:
            lines.append(f"gate verdicts recorded in {self.recorded}: "
                         f"READY {', '.join(self.ready) or 'none'}; NOT READY {', '.join(self.not_ready) or 'none'}")
        if self.record_error is not None:
            lines.append(f"cutover: the gate verdicts could not be recorded: {self.record_error}")
        return lines


def relative(path: Path, root: Path) -> str:
    """Return ``path`` relative to ``root`` when under it (as the summary names files)."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class SummaryContext:
    """What the summary needs besides the rows: the run's options, the set, the accepted differences."""

    set_path: str
    mode: str
    seed: int
    noise: bool
    accepted_file: str | None
    code_versions: Mapping[str, str]
    spans: Mapping[str, tuple[str | None, str | None]]  # every automation's arrival span


def context(index: SetIndex, root: Path, mode: str, seed: int, noise: bool, accepted_path: Path | None,
            registry: Any) -> SummaryContext:
    """Return the summary context of a run over ``index`` with the automations of ``registry``."""
    return SummaryContext(
        set_path=relative(index.directory, root), mode=mode, seed=seed, noise=noise,
        accepted_file=relative(accepted_path, root) if accepted_path else None,
        code_versions={n: registry.get(n).source_hash for n in index.automations if n in registry},
        spans={name: (a.first_received, a.last_received) for name, a in index.automations.items()},
    )


def summarise(ctx: SummaryContext, index: SetIndex, rows: Sequence[Mapping[str, Any]], dis: Sequence[Mapping[str, Any]],
              entries: Sequence[Entry], today: date, gate: GateConfig) -> dict[str, Any]:
    """Aggregate the result rows into the summary dict (``summary.json``; see docs/harness.md)."""
    from harness.shadow import report

    ran = {r["automation"] for r in rows}
    spans = {name: span for name, span in ctx.spans.items() if name in ran}
    info = report.RunInfo(
        set_path=ctx.set_path, mode=ctx.mode, seed=ctx.seed, noise=ctx.noise, accepted_file=ctx.accepted_file,
        code_versions={n: v for n, v in ctx.code_versions.items() if n in spans},
        platforms={n: str(e.platform) for n, e in index.manifest.automations.items()},
        coercions={n: str(e.coercion) for n, e in index.manifest.automations.items()},
    )
    expired = {e.index for e in entries if e.expired(today)}
    return report.build_summary(info, index.manifest, spans, rows, dis, entries, expired, gate)


def failed_triggers(rows: Sequence[Mapping[str, Any]]) -> int:
    """Count the rows whose items fail: an unexplained disagreement, an unfinished run, or an error."""
    return sum(r["verdict"] in ("disagreed", "unfinished", "error") for r in rows)


def conclude(ctx: SummaryContext, index: SetIndex, rows: Sequence[Mapping[str, Any]], dis: Sequence[Mapping[str, Any]],
             entries: Sequence[Entry], today: date, gate: GateConfig, report_dir: Path | None,
             root: Path) -> Summary:
    """Summarise the rows and write the reports (default ``<root>/reports/<set name>``).

    No report is written when no trigger ran (``written`` is then False). Raises HarnessError
    when the reports cannot be written.
    """
    from harness.shadow import report

    data = summarise(ctx, index, rows, dis, entries, today, gate)
    out = report_dir or root / "reports" / data["recording"]["name"]
    if data["automations"]:
        report.write_reports(out, data, dis, report.exemplar_traces(rows, data))
    return Summary(data, out, written=bool(data["automations"]), failed=failed_triggers(rows))


def record(summary: Summary) -> Summary:
    """Record every automation's verdict in the queue database; return the summary saying where.

    Never raises: a verdict that could not be recorded is the summary's ``record_error``.
    """
    try:
        return replace(summary, recorded=_record_verdicts(summary.data))
    except Exception as exc:  # the verdict must not silently go unrecorded
        return replace(summary, record_error=f"{type(exc).__name__}: {exc}")


def _record_verdicts(summary: Mapping[str, Any]) -> str:
    from psycopg.conninfo import conninfo_to_dict

    from harness.shadow.report import verdicts
    from queue_core import Queue, db
    from queue_core.config import database_url

    url = database_url()
    by_name = {a["name"]: a for a in summary["automations"]}

    async def write() -> None:
        async with db.pool(url, max_size=2) as pool:
            queue = Queue(pool)
            for v in verdicts(summary):
                await queue.record_verdict(v.automation, v.code_version, ready=v.ready, reasons=v.reasons,
                                           recording=summary["recording"]["name"], summary=by_name[v.automation])

    asyncio.run(write())
    params = conninfo_to_dict(url)
    return f"database {params.get('dbname')} on {params.get('host') or 'local socket'}"

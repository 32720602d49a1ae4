"""``harness.shadow.run``: the shadow run without pytest (a notebook, another CLI, CI).

It does what ``pytest --shadow SET`` does with the same pieces: index the set, replay every
trigger (or a shard's share) in batches on the same backends, judge each, write the reports and
the gate verdict, and with ``gate`` record the verdicts for ``cutover worker``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from harness.errors import HarnessError
from harness.shadow._session import ShadowRun
from harness.shadow.results import DISAGREEMENTS_PREFIX, RESULTS_PREFIX, read_rows
from harness.shadow.settings import RunSettings, ShadowSettings
from harness.shadow.project import Project, load_project
from harness.shadow.merge import conclude_shard
from harness.shadow.summary import Summary, conclude, context, record


def _shadow_settings(settings: RunSettings, results: Path) -> tuple[ShadowSettings, Project]:
    start = Path(settings.project_root) if settings.project_root is not None else Path.cwd()
    project = load_project(start.resolve())
    set_dir = Path(settings.set_dir).resolve()
    if not (set_dir / "manifest.toml").is_file():
        raise HarnessError(f"{settings.set_dir}: not a recording set (no manifest.toml in {set_dir})")
    if settings.replayers < 0:
        raise HarnessError(f"replayers {settings.replayers}: expected 0 or more")
    return ShadowSettings(
        set_dir=set_dir, project_root=project.root, automations_module=project.settings.automations,
        results_dir=results, process_id="main", mode=settings.mode, seed=settings.seed, noise=settings.noise,
        accepted_file=Path(settings.accepted_file).resolve() if settings.accepted_file else None,
        batch_size=max(1, settings.batch_size), providers=project.providers, replayers=settings.replayers,
        shard=settings.shard,
    ), project


def run(settings: RunSettings) -> Summary:
    """Replay, judge, gate and report a recording set as ``pytest --shadow`` does; return the summary.

    Writes the reports into ``settings.report_dir`` (default ``<project>/reports/<set name>``);
    with ``settings.shard``, that shard's results for ``cutover report merge`` instead
    (default ``reports/<set name>-shard-K-of-N``), and the summary covers only the shard's
    triggers. With ``settings.gate`` every verdict is recorded in the queue's database
    (``Summary.recorded``, or ``Summary.record_error`` saying why not). Raises HarnessError (or
    queue_core's ConfigError) for a set or a project that cannot be read.
    """
    results = Path(tempfile.mkdtemp(prefix="cutover-shadow-"))
    try:
        shadow_settings, project = _shadow_settings(settings, results)
        return _drive(ShadowRun(shadow_settings), project, settings)
    finally:
        shutil.rmtree(results, ignore_errors=True)


def _drive(shadow: ShadowRun, project: Project, settings: RunSettings) -> Summary:
    s = shadow.settings
    index = shadow.build_index()
    shadow.queue = [ref for auto in index.automations.values() for ref in auto.refs if shadow.selected(ref)]
    try:
        for position, ref in enumerate(shadow.queue):
            shadow.record(shadow.outcome(ref, position))
    finally:
        shadow.close()
    ctx = context(index, s.project_root, s.mode, s.seed, s.noise, shadow.accepted_path, shadow.registry)
    report_dir = Path(settings.report_dir) if settings.report_dir is not None else None
    rows = read_rows(s.results_dir, RESULTS_PREFIX)
    dis = read_rows(s.results_dir, DISAGREEMENTS_PREFIX)
    if s.shard is not None:
        out = report_dir or s.project_root / "reports" / s.shard.report_name(index.name)
        return conclude_shard(ctx, index, shadow.accepted_path, rows, dis, shadow.entries, s.today, project.gate,
                              s.shard, s.results_dir, out)
    summary = conclude(ctx, index, rows, dis, shadow.entries, s.today, project.gate, report_dir, s.project_root)
    return record(summary) if settings.gate else summary

"""Replay processes (harness.shadow._replay_processes) seen from the parent: start-up, shutdown, results."""

from __future__ import annotations

from pathlib import Path

from harness.shadow._replay_processes import ReplayProcesses
from harness.shadow._session import ShadowRun
from harness.shadow.settings import ShadowSettings
from tests.plugin.conftest import AUTOMATIONS, write_set


def _run(tmp_path: Path, replayers: int) -> ShadowRun:
    (tmp_path / "shadow_demo.py").write_text(AUTOMATIONS)
    set_dir = write_set(tmp_path)
    run = ShadowRun(ShadowSettings(set_dir=set_dir, project_root=tmp_path, automations_module="shadow_demo",
                             results_dir=tmp_path / "results", process_id="main", replayers=replayers))
    run.build_index()
    return run


def test_processes_started_ahead_and_never_needed_exit_cleanly(tmp_path: Path) -> None:
    run = _run(tmp_path, replayers=2)
    backend = ReplayProcesses(run.replayer)  # what collection does; then every item was deselected
    children = list(backend._children)
    backend.close()
    assert [c.process.returncode for c in children] == [0, 0]
    assert all(c.log_path.read_text() == "" for c in children)  # nothing went wrong in them


def test_results_come_back_in_the_order_the_batches_were_handed_out(tmp_path: Path, fresh_db_url: str,
                                                                    monkeypatch) -> None:
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    run = _run(tmp_path, replayers=2)
    assert run.index is not None
    refs = [r for auto in run.index.automations.values() for r in auto.refs]
    run.queue = refs
    try:
        got = [run.outcome(ref, position) for position, ref in enumerate(refs)]
    finally:
        run.close()
    assert [(r.automation, r.trigger_id) for r in got] == [(r.automation, r.trigger_id) for r in refs]
    assert [r.kind for r in got] == ["compared"] * len(refs)
    failing = {r.trigger_id for r in got if r.failure is not None}
    assert failing == {"r-2", "r-4"}  # the disagreeing trigger and the raising one of the demo set

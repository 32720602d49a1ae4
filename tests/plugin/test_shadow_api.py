"""``harness.shadow.run`` gives what ``pytest --shadow`` gives, without pytest; shards through the plugin."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas  # noqa: F401  (imported before pytester's per-test sys.modules snapshot: numpy cannot load twice)
import psycopg
import pytest

from harness.shadow import RunSettings, Shard, merge_shards, run


def test_run_writes_the_reports_and_verdict_the_plugin_writes(project: pytest.Pytester) -> None:
    plugin = project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-report", "by-plugin")
    assert plugin.ret == pytest.ExitCode.TESTS_FAILED
    summary = run(RunSettings(project.path / "recordings" / "demo", project_root=project.path,
                              report_dir=project.path / "by-api", replayers=0))
    assert summary.ready == ["notifier"] and summary.not_ready == ["router"]
    assert summary.failed == 2 and not summary.passed
    for name in ("summary.json", "disagreements.csv", "index.html"):
        assert (project.path / "by-api" / name).read_bytes() == (project.path / "by-plugin" / name).read_bytes(), name
    assert summary.lines()[-1] == f"reports: {project.path / 'by-api'}/index.html (summary.json, disagreements.csv)"


def test_run_with_gate_records_the_verdicts_where_cutover_worker_reads_them(project: pytest.Pytester,
                                                                            fresh_db_url: str) -> None:
    summary = run(RunSettings(project.path / "recordings" / "demo", project_root=project.path,
                              report_dir=project.path / "out", replayers=0, gate=True))
    assert summary.record_error is None and summary.recorded is not None
    with psycopg.connect(fresh_db_url) as conn:
        rows = conn.execute("SELECT automation, ready FROM gate_verdicts ORDER BY automation").fetchall()
    assert rows == [("notifier", True), ("router", False)]


def test_a_shard_through_the_plugin_runs_its_share_and_the_merge_gives_the_whole_runs_report(
        project: pytest.Pytester) -> None:
    whole = project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-report", "whole")
    outcomes = []
    for k in (1, 2):
        result = project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-shard", f"{k}/2",
                                              "--shadow-report", f"shard{k}")
        result.stdout.fnmatch_lines([f"*shard {k}/2*", f"shard {k}/2: * trigger(s) replayed, * failing; results in *"])
        outcomes.append(result.parseoutcomes())
    assert sum(o.get("passed", 0) + o.get("failed", 0) for o in outcomes) == 10
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    merged = merge_shards([project.path / "shard1", project.path / "shard2"], report_dir=project.path / "merged",
                          start=project.path)
    assert merged.failed == 2
    for name in ("summary.json", "disagreements.csv", "index.html"):
        assert (project.path / "merged" / name).read_bytes() == (project.path / "whole" / name).read_bytes(), name


def test_the_api_shard_writes_what_the_merge_reads(project: pytest.Pytester) -> None:
    for k in (1, 2):
        part = run(RunSettings(project.path / "recordings" / "demo", project_root=project.path,
                               report_dir=project.path / f"s{k}", replayers=0, shard=Shard(k, 2)))
        assert part.shard == Shard(k, 2) and (project.path / f"s{k}" / "shard.json").is_file()
    merged = merge_shards([project.path / "s2", project.path / "s1"], report_dir=project.path / "m", start=project.path)
    summary = json.loads((project.path / "m" / "summary.json").read_text())
    assert summary["totals"]["triggers"] == 10 and merged.not_ready == ["router"]


def test_gate_on_one_shard_is_refused_pointing_at_the_merge(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-shard", "1/2", "--gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--gate judges the whole set, not one shard*cutover report merge --gate*"])


def test_a_bad_shard_spec_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-shard", "3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shadow-shard: shard 3/2: expected K/N with 1 <= K <= N*"])


def test_cutover_report_merge_refuses_a_missing_shard_naming_the_directories(project: pytest.Pytester) -> None:
    project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-shard", "1/2", "--shadow-report", "only")
    done = subprocess.run([sys.executable, "-m", "harness", "report", "merge", "only"], cwd=project.path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "shard(s) 2/2 missing (given: 1/2 in only)" in done.stderr

"""A set replayed as two shards and merged gives the report and verdict of one run (the demo set).

The single run is :func:`harness.shadow.run` over the whole set; the shards are what a CI
matrix runs, ``pytest --shadow recordings/2024-06 --shadow-shard K/2``, and ``cutover report
merge`` combines them. summary.json (totals, verdicts, clusters, accepted usage) and
disagreements.csv must be equal byte for byte, and so must the exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.shadow import RunSettings, run

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "recordings" / "2024-06"


def _shard(k: int, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--shadow", str(DEMO), "--shadow-shard", f"{k}/2", "--shadow-report", str(out),
         "-q", "-p", "no:cacheprovider", "--tb=no"],
        cwd=ROOT, capture_output=True, text=True, env=os.environ, timeout=600)


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("single")
    summary = run(RunSettings(DEMO, project_root=ROOT, report_dir=out))
    assert summary.not_ready == ["github-triage", "lead-router"] and summary.failed == 70
    return out


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    dirs = [tmp_path_factory.mktemp(f"shard{k}") for k in (1, 2)]
    for k, out in enumerate(dirs, start=1):
        done = _shard(k, out)
        assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
        assert f"shard {k}/2: " in done.stdout
    return dirs


def test_two_merged_shards_give_the_summary_and_disagreements_of_one_run(single: Path, shards: list[Path],
                                                                         tmp_path: Path) -> None:
    merged = tmp_path / "merged"
    done = subprocess.run([sys.executable, "-m", "harness", "report", "merge", *map(str, shards), "--into", str(merged)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # as the single run: github-triage's items fail
    for name in ("summary.json", "disagreements.csv", "index.html"):
        assert (merged / name).read_bytes() == (single / name).read_bytes(), name
    assert "github-triage        NOT READY" in done.stdout
    assert f"reports: {merged}/index.html" in done.stdout


def test_each_trigger_is_replayed_by_exactly_one_shard(shards: list[Path]) -> None:
    ids = [[json.loads(line)["trigger_id"] for p in sorted(d.glob("results-*.jsonl"))
            for line in p.read_text("utf-8").splitlines()] for d in shards]
    assert not set(ids[0]) & set(ids[1])
    assert len(ids[0]) + len(ids[1]) == 2736
    assert min(map(len, ids)) > 2736 * 0.4  # a hash, not a split of the first half from the second

"""The Zapier user path from a Zapfile: scaffold → import → ``pytest --shadow`` READY.

In a fresh project, ``cutover scaffold zapier`` turns the lead-intake Zapfile (gdpr_v1, written
for this test: a Catch Hook, a Code by Zapier JavaScript step, a Filter, a Webhooks POST, a Paths
step whose two paths post to Slack or start a nurture sequence) into ``automations/lead_intake.py``
and writes the maps into a new recording set; ``cutover import zapier`` reads six Zap runs in the
Partner API's ``GET /v2/zap-runs`` shape (run status and step statuses; ``data_in`` holding the
trigger's data) with ``--definition`` the same Zapfile, so each run's step statuses say which
steps ran, what the filter decided and which path ran. ``pytest --shadow`` then runs the generated
code on every run's trigger: READY on status, path and decisions. A second set, in which one run's
recorded path is the other one, must disagree on exactly that decision.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from queue_core import provision
from tests.support.project import pyproject

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "zapier"
ZAPFILE = FIXTURES / "lead-intake.zapfile.json"
RUNS = FIXTURES / "lead-intake.zap-runs.json"
PYPROJECT = pyproject("automations", "[tool.cutover.gate]\nmin_triggers = 6",
                      '[tool.cutover.providers.crm]\nbase_url = "https://crm.example.test"',
                      '[tool.cutover.providers.slack]\nbase_url = "https://slack.com"')


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _cutover(project: Path, env: dict[str, str], *args: str) -> str:
    result = _run([sys.executable, "-m", "harness", *args], project, env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _shadow(project: Path, recording_set: str, env: dict[str, str]) -> dict[str, Any]:
    result = _run([sys.executable, "-m", "pytest", "--shadow", recording_set, "-q", "-p", "no:cacheprovider",
                   "-p", "no:benchmark"], project, env)
    assert "cutover shadow verdict" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((project / "reports" / recording_set / "summary.json").read_text())
    (automation,) = [a for a in summary["automations"] if a["name"] == "lead-intake"]
    return {**automation, "printed": result.stdout}


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    url = provision.fresh_database()
    yield {**os.environ, "DATABASE_URL": url, "CUTOVER_REDACTION_SALT": "zapier-e2e-salt-" + "z" * 32}
    provision.drop_database(url)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("zapier") / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    scaffold = _cutover(root, env, "scaffold", "zapier", str(ZAPFILE), "--set", "rec")
    imported = _cutover(root, env, "import", "zapier", str(RUNS), "--automation", "lead-intake",
                        "--definition", str(ZAPFILE), "--into", "rec")
    seeded = json.loads(RUNS.read_text())
    run = seeded["data"][0]  # Ana, an enterprise lead: Zapier recorded the "Everyone else" path instead
    run["steps"] = [{**s, "status": status} for s, status in zip(run["steps"], [
        "success", "success", "success", "success", "filtered", "skipped", "success", "success"], strict=True)]
    (root / "seeded-runs.json").write_text(json.dumps(seeded))
    _cutover(root, env, "scaffold", "zapier", str(ZAPFILE), "--set", "seeded")
    _cutover(root, env, "import", "zapier", "seeded-runs.json", "--automation", "lead-intake",
             "--definition", str(ZAPFILE), "--into", "seeded")
    return {"root": root, "scaffold": scaffold, "imported": imported, "agreeing": _shadow(root, "rec", env),
            "seeded": _shadow(root, "seeded", env)}


def test_every_step_of_the_zap_is_translated(project: dict[str, Any]) -> None:
    assert "(9 steps translated, 0 TODO)" in project["scaffold"]
    source = (project["root"] / "automations" / "lead_intake.py").read_text()
    assert "zapier.TodoStep" not in source and "run.path('route', 'Enterprise'" in source
    assert "zapier.run_javascript(ctx, 'Clean email'" in source
    assert "paired (trigger + legacy run): 6" in project["imported"]
    assert "status+path+decisions: 6" in project["imported"]


def test_the_scaffolded_zap_agrees_with_every_run_and_is_ready(project: dict[str, Any]) -> None:
    agreeing = project["agreeing"]
    assert agreeing["verdict"]["label"].startswith("READY"), agreeing["printed"][-3000:]
    assert (agreeing["compared"], agreeing["disagreed"]) == (6, 0)


def test_a_run_that_took_the_other_path_is_caught_on_that_decision(project: dict[str, Any]) -> None:
    seeded = project["seeded"]
    assert (seeded["compared"], seeded["disagreed"]) == (6, 1), seeded["printed"][-3000:]
    assert "decisions.route" in seeded["printed"]
    assert not seeded["verdict"]["label"].startswith("READY")


def test_the_set_names_the_zapfile_so_branch_coverage_counts_every_path(project: dict[str, Any]) -> None:
    manifest = (project["root"] / "rec" / "manifest.toml").read_text()
    assert 'definition = "../' in manifest and 'legacy_workflows = ["500"]' in manifest
    rows = project["agreeing"]["definition_branches"]
    assert {row["kind"] for row in rows} == {"filter", "path"}
    taken = {(row["node"], row["output"]): row["taken"] for row in rows}
    assert taken == {("Valid lead?", "passed"): 4, ("Valid lead?", "stopped"): 2, ("Route", "Enterprise"): 2,
                     ("Route", "Everyone else"): 2}, rows

"""The Make user path from a scenario blueprint: scaffold → import → ``pytest --shadow``.

In a fresh project, ``cutover scaffold make`` turns the lead-router blueprint into
``automations/lead_router.py`` and writes the maps (steps, the router's decision, the providers
by host) into a new recording set; ``cutover import make`` imports the scenario's run logs
(with module bundles, the form a custom exporter writes) with ``--definition`` the same
blueprint; ``pytest --shadow`` then compares the generated code with every run: it must agree
with all eight (routes taken one or two at a time, a run the router filtered), and a second set
whose one legacy run sent another body must be caught on exactly that field.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from queue_core import provision
from tests.support.project import pyproject

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "workflows" / "make"
BLUEPRINT = FIXTURES / "lead-router.blueprint.json"
LOGS = FIXTURES / "lead-router.logs.json"
PYPROJECT = pyproject("automations", '[tool.cutover.providers.enrich]\nbase_url = "https://enrich.example.test"',
                      '[tool.cutover.providers.crm]\nbase_url = "https://crm.example.test"')


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
    (automation,) = [a for a in summary["automations"] if a["name"] == "lead-router"]
    return {**automation, "printed": result.stdout}


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    url = provision.fresh_database()
    yield {**os.environ, "DATABASE_URL": url, "CUTOVER_REDACTION_SALT": "make-e2e-salt"}
    provision.drop_database(url)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("make") / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    scaffold = _cutover(root, env, "scaffold", "make", str(BLUEPRINT), "--automation", "lead-router", "--set", "rec")
    imported = _cutover(root, env, "import", "make", str(LOGS), "--automation", "lead-router",
                        "--definition", str(BLUEPRINT), "--into", "rec")
    seeded_logs = json.loads(LOGS.read_text())
    seeded_logs["scenarioLogs"][0]["modules"][3]["input"]["email"] = "Ana@Globex.example"  # Make sent it as typed
    (root / "seeded-logs.json").write_text(json.dumps(seeded_logs))
    _cutover(root, env, "scaffold", "make", str(BLUEPRINT), "--automation", "lead-router", "--set", "seeded")
    _cutover(root, env, "import", "make", "seeded-logs.json", "--automation", "lead-router",
             "--definition", str(BLUEPRINT), "--into", "seeded")
    return {"root": root, "scaffold": scaffold, "imported": imported, "agreeing": _shadow(root, "rec", env),
            "seeded": _shadow(root, "seeded", env)}


def test_the_scaffold_translates_every_module_and_needs_no_provider_the_project_has(project: dict[str, Any]) -> None:
    assert "(6 modules translated, 0 TODO)" in project["scaffold"]
    assert "proposed provider" not in project["scaffold"]  # both hosts are configured in pyproject.toml
    source = (project["root"] / "automations" / "lead_router.py").read_text()
    assert "make.TodoModule" not in source and "run.took(3, 2)" in source
    assert "paired (trigger + legacy run): 8" in project["imported"]


def test_the_scaffolded_scenario_agrees_with_every_recorded_run(project: dict[str, Any]) -> None:
    agreeing = project["agreeing"]
    assert (agreeing["compared"], agreeing["disagreed"]) == (8, 0), agreeing["printed"][-2000:]
    assert agreeing["agreement"] == 1.0


def test_a_seeded_difference_in_one_legacy_call_is_caught_on_that_field(project: dict[str, Any]) -> None:
    seeded = project["seeded"]
    assert (seeded["compared"], seeded["disagreed"]) == (8, 1)
    assert "calls[create-enterprise-contact].body.email" in seeded["printed"]


def test_the_set_names_the_blueprint_so_the_report_counts_every_route_of_its_router(project: dict[str, Any]) -> None:
    manifest = (project["root"] / "rec" / "manifest.toml").read_text()
    assert 'definition = "../' in manifest  # relative to the set, as a person would write it
    rows = project["agreeing"]["definition_branches"]
    assert rows and {row["kind"] for row in rows} == {"router"}
    taken = {row["branch"]: row["taken"] for row in rows}
    assert sum(taken.values()) >= 8, rows  # every recorded run took at least one route

"""The Power Automate user path from a flow definition: scaffold → import → ``pytest --shadow`` READY.

In a fresh project, ``cutover scaffold power-automate`` turns the expense-approval flow (an
export package's ``definition.json``: a Request trigger, Parse JSON, a variable summed in a
Foreach, an If on the designer's condition object with an HTTP call on one side, a notifying
HTTP call and a Response) into ``automations/expense_approval.py`` and writes the maps (steps,
the If's decision, the providers) into a new recording set; ``cutover import power-automate``
imports the flow's run history (Logic Apps runs with their action records inline) with
``--definition`` the same file; ``pytest --shadow`` then compares the generated code with every
run (both sides of the If, and a run whose Parse JSON failed the schema), the actions' outputs included
where the history holds them: READY. A second set whose one legacy run took the other branch and
another whose Parse JSON output differs is caught on exactly that decision and that field.
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

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "power_automate"
DEFINITION = FIXTURES / "expense-approval.definition.json"
RUNS = FIXTURES / "expense-approval.runs.json"
PYPROJECT = pyproject("automations", '[tool.cutover.providers.approvals]\nbase_url = "https://approvals.example.test"',
                      '[tool.cutover.providers.chat]\nbase_url = "https://chat.example.test"',
                      "[tool.cutover.gate]\nmin_triggers = 5")


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
    (automation,) = [a for a in summary["automations"] if a["name"] == "expense-approval"]
    return {**automation, "printed": result.stdout}


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    url = provision.fresh_database()
    yield {**os.environ, "DATABASE_URL": url, "CUTOVER_REDACTION_SALT": "power-automate-e2e-salt"}
    provision.drop_database(url)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("power-automate") / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    scaffold = _cutover(root, env, "scaffold", "power-automate", str(DEFINITION), "--automation", "expense-approval",
                        "--set", "rec")
    imported = _cutover(root, env, "import", "power-automate", str(RUNS), "--automation", "expense-approval",
                        "--definition", str(DEFINITION), "--into", "rec")
    seeded_runs = json.loads(RUNS.read_text())
    actions = seeded_runs["value"][1]["actions"]  # 50 spent: the flow auto-approved; say it asked for approval
    actions["Over_limit"]["outputs"] = {"expression": True}
    actions["Auto_approve"] = {"status": "Skipped"}
    actions["Request_approval"] = {"status": "Succeeded", "outputs": {"statusCode": 201, "body": {"id": "apr-x"}}}
    seeded_runs["value"][2]["actions"]["Parse_body"]["outputs"]["body"]["who"] = "Cy"  # Parse JSON never changes case
    (root / "seeded-runs.json").write_text(json.dumps(seeded_runs))
    _cutover(root, env, "scaffold", "power-automate", str(DEFINITION), "--automation", "expense-approval", "--set", "seeded")
    _cutover(root, env, "import", "power-automate", "seeded-runs.json", "--automation", "expense-approval",
             "--definition", str(DEFINITION), "--into", "seeded")
    return {"root": root, "scaffold": scaffold, "imported": imported, "agreeing": _shadow(root, "rec", env),
            "seeded": _shadow(root, "seeded", env)}


def test_the_scaffold_translates_every_action_and_needs_no_provider_the_project_has(project: dict[str, Any]) -> None:
    assert "(10 actions translated, 0 TODO)" in project["scaffold"]
    assert "proposed provider" not in project["scaffold"]
    source = (project["root"] / "automations" / "expense_approval.py").read_text()
    assert "power_automate.todo" not in source and "run.decide('over-limit', 'true')" in source
    assert "paired (trigger + legacy run): 5" in project["imported"]


def test_the_scaffolded_flow_agrees_with_every_recorded_run_and_is_ready(project: dict[str, Any]) -> None:
    agreeing = project["agreeing"]
    assert (agreeing["compared"], agreeing["disagreed"]) == (5, 0), agreeing["printed"][-2000:]
    # READY at the depth the run history holds: the importer records no call of a Power Automate run
    assert agreeing["verdict"]["label"] == "READY (status, path, decisions only)", agreeing["printed"][-2000:]


def test_seeded_differences_in_a_legacy_branch_and_an_action_output_are_caught_on_those_fields(
        project: dict[str, Any]) -> None:
    seeded = project["seeded"]
    assert (seeded["compared"], seeded["disagreed"]) == (5, 2), seeded["printed"][-2000:]
    assert "decisions.over-limit" in seeded["printed"] and "outputs.Parse_body.who" in seeded["printed"]


def test_the_set_names_the_definition_so_the_report_counts_both_branches_of_the_if(project: dict[str, Any]) -> None:
    rows = project["agreeing"]["definition_branches"]
    assert {(row["kind"], row["branch"]) for row in rows} == {("if", "over-limit=true"), ("if", "over-limit=false")}, rows
    assert all(row["taken"] for row in rows), rows

"""The demo's user path from a workflow definition: scaffold → import → ``pytest --shadow``.

In a fresh project, ``cutover scaffold n8n`` turns the demo set's shipped github-triage workflow
definition into ``automations/github_triage.py`` and writes the maps into a new recording set;
``cutover import n8n`` imports the shipped execution export with that definition into it; then
``pytest --shadow`` proves the generated code. It follows n8n's case-sensitive Switch, so it
agrees with every legacy run (the 17 runs n8n failed on a GitHub 502 are the set's accepted
differences). The hand-written ``automations/github_triage.py``, shadowed on the shipped set in a
second project, deliberately matches keywords case-insensitively and stays NOT READY.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.recording import iter_pairs
from harness.platforms.n8n.translate.prove import _OfflineContext
from queue_core import provision
from queue_core.context import Trigger
from tests.support.project import pyproject

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "recordings" / "2024-06"
DEFINITION = SHIPPED / "exports" / "definitions" / "github-triage.workflow.json"
EXECUTIONS = SHIPPED / "exports" / "n8n-github-triage-executions-2024-07-01.json"
PYPROJECT = pyproject("{package}", '[tool.cutover.providers.github]\nbase_url = "https://api.github.com"')


def _demo_salt() -> str:
    spec = importlib.util.spec_from_file_location("demo_generate", ROOT / "recordings" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.DEMO_SALT.decode())


def _project(root: Path, package: str) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT).format(package=package))
    return root


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _shadow(project: Path, recording_set: str, env: dict[str, str], *extra: str) -> dict[str, Any]:
    result = _run([sys.executable, "-m", "pytest", "--shadow", recording_set, "-q", "-p", "no:cacheprovider",
                   "-p", "no:benchmark", *extra], project, env)
    assert "cutover shadow verdict" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((project / "reports" / Path(recording_set).name / "summary.json").read_text())
    (automation,) = [a for a in summary["automations"] if a["name"] == "github-triage"]
    verdict = result.stdout.split("cutover shadow verdict", 1)[1].split("short test summary", 1)[0]
    return {**automation, "printed": verdict}


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    url = provision.fresh_database()
    yield {**os.environ, "DATABASE_URL": url, "CUTOVER_REDACTION_SALT": _demo_salt()}
    provision.drop_database(url)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    # its own package name: nothing on the path (the repository's automations/) can stand in for it
    project = _project(tmp_path_factory.mktemp("scaffolded") / "project", "migrated")
    cutover = [sys.executable, "-m", "harness"]
    scaffold = _run(cutover + ["scaffold", "n8n", str(DEFINITION), "--automation", "github-triage",
                               "--into", "migrated", "--set", "rec"], project, env)
    assert scaffold.returncode == 0, scaffold.stdout + scaffold.stderr
    imported = _run(cutover + ["import", "n8n", str(EXECUTIONS), "--automation", "github-triage",
                               "--definition", str(DEFINITION), "--into", "rec"], project, env)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    shutil.copy(SHIPPED / "accepted.toml", project / "rec" / "accepted.toml")  # the set's reviewed 502 runs
    return {**_shadow(project, "rec", env), "scaffold": scaffold.stdout, "imported": imported.stdout,
            "module": (project / "migrated" / "github_triage.py").read_text()}


@pytest.fixture(scope="module")
def hand_written(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> dict[str, Any]:
    project = _project(tmp_path_factory.mktemp("hand-written") / "project", "automations")
    shutil.copytree(ROOT / "automations", project / "automations", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SHIPPED, project / "2024-06")
    return _shadow(project, "2024-06", env, "-k", "github-triage")


def test_the_scaffold_translates_every_node_of_the_demo_workflow(scaffolded: dict[str, Any]) -> None:
    assert "(13 nodes translated, 0 TODO)" in scaffolded["scaffold"]
    assert "n8n.TodoNode" not in scaffolded["module"]
    assert "paired (trigger + legacy run): 960" in scaffolded["imported"]


def test_the_scaffolded_code_agrees_with_every_legacy_run_and_is_ready(scaffolded: dict[str, Any]) -> None:
    assert scaffolded["verdict"]["label"] == "READY", scaffolded["printed"]
    assert (scaffolded["compared"], scaffolded["disagreed"], scaffolded["accepted"]) == (960, 0, 17)
    assert scaffolded["agreement"] == 1.0
    assert scaffolded["coverage"]["missing"] == [] and scaffolded["coverage"]["exercised"] == 8
    # --set named the workflow as the definition: all 8 of its IF/Switch outputs were taken
    taken = {row["branch"]: row["taken"] for row in scaffolded["definition_branches"]}
    assert len(taken) == 8 and min(taken.values()) > 0 and taken["route=other"] == 273
    assert "github-triage        READY         960 compared  agreement 100.00%" in scaffolded["printed"]


def test_the_hand_written_code_stays_not_ready_on_the_case_insensitive_route(hand_written: dict[str, Any]) -> None:
    assert hand_written["verdict"]["label"] == "NOT READY", hand_written["printed"]
    assert (hand_written["compared"], hand_written["disagreed"], hand_written["accepted"]) == (960, 70, 17)
    assert round(hand_written["agreement"] * 100, 2) == 92.71
    assert "cluster decisions.route value_changed: 71×" in hand_written["printed"]


class _Calls(_OfflineContext):
    """Record each call as (step, path, body), the step named as the shipped manifest names it."""

    STEPS = {"post-comment": "comment"}

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str, Any]] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        step = self.STEPS.get(kwargs["step"], kwargs["step"])
        self.calls.append((step, f"{method} {url.removeprefix('https://api.github.com')}", kwargs.get("json")))
        return httpx.Response(200, json={})


def _function(source: str, decorator: str, name: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(source.replace(decorator, ""), name, "exec"), namespace)  # not registered: both are github-triage
    return namespace["github_triage"]


def test_where_the_two_codes_route_alike_they_make_the_same_calls_with_the_same_bodies(
        scaffolded: dict[str, Any]) -> None:
    """What an n8n export cannot show (its calls hold no URL or body): the translated URLs and bodies."""
    generated = _function(scaffolded["module"], "@automation('github-triage', version=1)", "scaffolded")
    hand = _function((ROOT / "automations" / "github_triage.py").read_text(), '@automation("github-triage", version=2)',
                     "hand-written")
    compared, steps = 0, []
    for recorded, legacy in iter_pairs(SHIPPED / "github-triage"):
        trigger = Trigger(recorded.id, None, recorded.headers, recorded.body, recorded.source)
        ours, theirs = _Calls(), _Calls()
        asyncio.run(generated(ours, trigger))
        asyncio.run(hand(theirs, trigger))
        if legacy is not None and theirs.decisions.get("route") == legacy.decisions.get("route"):
            assert ours.calls == theirs.calls, recorded.id
            compared += 1
            steps += [step for step, _, _ in ours.calls]
    assert compared == 960 - 71  # every trigger but those the hand-written code routes differently
    # the 688 opened issues less the 71 routed differently are labelled; the 194 bugs and 100
    # questions n8n found (the 71 were all "other" to n8n) get a comment
    assert steps.count("add-labels") == 688 - 71 and steps.count("comment") == 194 + 100

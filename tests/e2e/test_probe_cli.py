"""`cutover scaffold probe-triggers` as a user runs it: a project, its scaffolded code, a recording set.

The command is invoked as ``cutover scaffold probe-triggers`` through click's CliRunner on the
``cutover`` group itself, so its registration under ``scaffold`` is tested too. The last test runs ``pytest --shadow`` on the set before and after
the synthetic section is written: the verdict and the agreement are the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import cli
from harness.platforms.n8n.translate import scaffold_n8n
from queue_core import registry as registry_module
from queue_core.registry import Registry
from tests.support.project import pyproject

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "probe" / "set"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_db_url: str) -> Path:
    """A project whose automations package holds the set's definition as `cutover scaffold n8n` wrote it."""
    module = f"probe_shop_{uuid.uuid4().hex[:8]}"
    (tmp_path / "pyproject.toml").write_text(pyproject(
        module, "[tool.cutover.gate]\nmin_triggers = 1",
        '[tool.cutover.providers.example_shop]\nbase_url = "https://api.example-shop.test"'))
    shutil.copytree(FIXTURE, tmp_path / "recordings" / "probe-demo")
    definition = tmp_path / "recordings" / "probe-demo" / "definitions" / "order-flow.workflow.json"
    scaffold_n8n(definition, automation="order-flow", into=tmp_path / module,
                 providers={"api.example-shop.test": "example_shop"})
    (tmp_path / module / "__init__.py").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(registry_module, "default_registry", Registry())
    yield tmp_path
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]


def test_probe_triggers_writes_the_synthetic_section_runs_it_and_reports(project: Path) -> None:
    result = CliRunner().invoke(cli, ["scaffold", "probe-triggers", "recordings/probe-demo", "--automation", "order-flow", "-n", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == ("3 untaken branch(es) of the definition; 3 probe(s) written to "
                        "recordings/probe-demo/order-flow/synthetic (SYNTHETIC: never counted as agreement)")
    assert lines[1].split() == ["probe-1", "route=large", "from", "exec-1:", "body.total:", "120", "→", "1000",
                                "->", "took", "it"]
    assert any(line.startswith("  unreached  in-stock=false: not reachable by mutating the trigger") for line in lines)
    report = json.loads((project / "reports" / "probe-demo" / "order-flow-probes.json").read_text())
    assert report["synthetic"] is True
    assert [(p["id"], p["target"], p["dry_run"]["took_target"]) for p in report["probes"]] == [
        ("probe-1", "route=large", True), ("probe-2", "route=domestic", True), ("probe-3", "route=large", True)]
    assert (project / "reports" / "probe-demo" / "order-flow-probes.md").read_text().count("## probe-") == 3


def test_no_run_writes_the_probes_without_the_database(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    result = CliRunner().invoke(cli, ["scaffold", "probe-triggers", "recordings/probe-demo", "--automation", "order-flow", "--no-run"])
    assert result.exit_code == 0, result.output
    report = json.loads((project / "reports" / "probe-demo" / "order-flow-probes.json").read_text())
    assert report["probes"] and all(p["dry_run"] is None for p in report["probes"])


def test_an_unknown_automation_is_a_usage_error_naming_the_manifest(project: Path) -> None:
    result = CliRunner().invoke(cli, ["scaffold", "probe-triggers", "recordings/probe-demo", "--automation", "nope"])
    assert result.exit_code == 1
    assert "manifest.toml: no automation 'nope' (the set has: order-flow)" in result.output


def _shadow(project: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(project)}
    run = subprocess.run([sys.executable, "-m", "pytest", "--shadow", "recordings/probe-demo", "--shadow-replayers", "0",
                          "-p", "no:cacheprovider", "-q"], cwd=project, env=env, capture_output=True, text=True,
                         timeout=300)
    assert "order-flow" in run.stdout, run.stdout + run.stderr
    summary = json.loads((project / "reports" / "probe-demo" / "summary.json").read_text())
    (auto,) = [a for a in summary["automations"] if a["name"] == "order-flow"]
    return {key: auto[key] for key in ("triggers", "compared", "agreed", "agreement", "verdict", "definition_branches")}


def test_a_synthetic_section_changes_neither_the_verdict_nor_the_agreement(project: Path) -> None:
    before = _shadow(project)
    result = CliRunner().invoke(cli, ["scaffold", "probe-triggers", "recordings/probe-demo", "--automation", "order-flow", "-n", "4"])
    assert result.exit_code == 0, result.output
    assert len((project / "recordings/probe-demo/order-flow/synthetic/triggers.jsonl").read_text().splitlines()) == 4
    after = _shadow(project)
    assert after == before
    assert before["triggers"] == 6

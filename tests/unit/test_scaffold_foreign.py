"""Scaffold commands given another platform's definition, or an empty directory, say so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from harness._cli_scaffold import scaffold
from harness.errors import ExportFormatError, ProbeError
from harness.platforms.make.definition import load_blueprint
from harness.platforms.n8n.probe.search import load_inputs
from harness.platforms.n8n.definition import iter_workflow_files, load_workflows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "workflows"
BLUEPRINT = FIXTURES / "make" / "lead-router.blueprint.json"
WORKFLOW = FIXTURES / "n8n" / "order-router.workflow.json"


def test_a_make_blueprint_given_to_n8n_names_the_make_command() -> None:
    with pytest.raises(ExportFormatError) as caught:
        load_workflows(BLUEPRINT)
    assert "this is a Make scenario blueprint" in str(caught.value)
    assert f"use `cutover scaffold make {BLUEPRINT}`" in str(caught.value)


def test_an_n8n_workflow_given_to_make_names_the_n8n_command() -> None:
    with pytest.raises(ExportFormatError) as caught:
        load_blueprint(WORKFLOW)
    assert "this is an n8n workflow" in str(caught.value)
    assert f"use `cutover scaffold n8n {WORKFLOW}`" in str(caught.value)


@pytest.mark.parametrize(("document", "kind"), [
    ({"zaps": [{"nodes": {}}]}, "Zapier Zap export"),
    ({"properties": {"definition": {"triggers": {}, "actions": {}}}}, "Power Automate"),
])
def test_a_zapfile_or_flow_says_scaffold_does_not_read_it(tmp_path: Path, document: dict[str, Any], kind: str) -> None:
    file = tmp_path / "definition.json"
    file.write_text(json.dumps(document))
    for load in (load_workflows, load_blueprint):
        with pytest.raises(ExportFormatError) as caught:
            load(file)
        assert kind in str(caught.value)
        assert "scaffold reads n8n workflows" in str(caught.value)


def test_an_empty_directory_is_an_error_for_n8n_as_for_make(tmp_path: Path) -> None:
    empty = tmp_path / "emptyd"
    empty.mkdir()
    with pytest.raises(ExportFormatError, match="no n8n workflow found"):
        list(iter_workflow_files(empty))
    runner = CliRunner()
    for platform, message in (("n8n", "no n8n workflow found"), ("make", "no Make blueprint found")):
        result = runner.invoke(scaffold, [platform, str(empty), "--into", str(tmp_path / "out")])
        assert result.exit_code == 1, result.output
        assert message in result.output


def test_probe_triggers_on_a_make_definition_says_it_reads_n8n_only(tmp_path: Path) -> None:
    set_dir = tmp_path / "recordings" / "s"
    (set_dir / "definitions").mkdir(parents=True)
    shutil.copy(BLUEPRINT, set_dir / "definitions" / "lead-router.json")
    (set_dir / "manifest.toml").write_text(
        'format = 1\nname = "s"\n\n[automations.lead-router]\nplatform = "make"\n'
        'definition = "definitions/lead-router.json"\n')
    with pytest.raises(ProbeError) as caught:
        load_inputs(set_dir, "lead-router")
    message = str(caught.value)
    assert "definition = 'definitions/lead-router.json' is a Make scenario blueprint" in message
    assert "probe-triggers reads n8n definitions only" in message
    assert "expected an n8n workflow" not in message

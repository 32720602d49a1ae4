"""A definition given where runs belong is named for what it is, with where the runs are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DefinitionGivenError, ExportFormatError
from harness.importer.definition import DefinitionKind, load_definition, recognise, refuse_definition
from harness.recording import Platform

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports"
DEFINITIONS = [
    ("zapier/zapfile_gdpr_v1.json", DefinitionKind.ZAPFILE, Platform.ZAPIER),
    ("zapier/zapfile_v2.json", DefinitionKind.ZAPFILE, Platform.ZAPIER),
    ("make/blueprint.json", DefinitionKind.MAKE_BLUEPRINT, Platform.MAKE),
    ("make/blueprint_raw.json", DefinitionKind.MAKE_BLUEPRINT, Platform.MAKE),
    ("power-automate/flow_definition.json", DefinitionKind.POWER_AUTOMATE_FLOW, Platform.POWER_AUTOMATE),
    ("n8n/workflow_download.json", DefinitionKind.N8N_WORKFLOW, Platform.N8N),
    ("n8n/workflows_export_all.json", DefinitionKind.N8N_WORKFLOW, Platform.N8N),
]
RUNS = ["zapier/zap_runs_api.json", "zapier/zap_runs.json", "make/scenario_logs_api.json", "make/scenario_logs.json",
        "power-automate/runs_list.json", "n8n/executions_list.json", "n8n/execution_single.json"]


@pytest.mark.parametrize(("name", "kind", "platform"), DEFINITIONS)
def test_each_definition_format_is_recognised(name: str, kind: DefinitionKind, platform: Platform) -> None:
    assert recognise(json.loads((EXPORTS / name).read_text())) is kind


@pytest.mark.parametrize("name", RUNS)
def test_run_exports_are_not_taken_for_definitions(name: str) -> None:
    assert recognise(json.loads((EXPORTS / name).read_text())) is None


@pytest.mark.parametrize(("name", "kind", "platform"), DEFINITIONS)
def test_a_definition_given_as_the_export_names_where_the_runs_are_and_the_definition_option(
    name: str, kind: DefinitionKind, platform: Platform,
) -> None:
    with pytest.raises(DefinitionGivenError) as caught:
        refuse_definition(EXPORTS / name, platform)
    assert kind.value in str(caught.value) and "--definition" in str(caught.value)
    assert ("includeData=true" in str(caught.value)) is (platform is Platform.N8N)
    assert f"this is an {kind.value}" in str(caught.value) or f"this is a {kind.value}" in str(caught.value)
    assert "a n8n" not in str(caught.value)


def test_a_definition_given_to_the_wrong_platform_still_names_its_own_platform() -> None:
    with pytest.raises(DefinitionGivenError, match="cutover import make RUNS"):
        refuse_definition(EXPORTS / "make/blueprint.json", Platform.ZAPIER)


def test_a_definition_option_holding_runs_or_another_platforms_definition_is_refused() -> None:
    with pytest.raises(ExportFormatError, match="expected a zapier definition, got a Make scenario blueprint"):
        load_definition(EXPORTS / "make/blueprint.json", Platform.ZAPIER)
    with pytest.raises(ExportFormatError, match="not a definition"):
        load_definition(EXPORTS / "n8n/executions_list.json", Platform.N8N)

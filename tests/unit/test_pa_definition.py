"""Reading Power Automate flow definitions: runAfter order, branches, packages, and errors that name the field."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from harness.errors import ExportFormatError
from harness.manifest import AutomationEntry, Coercion
from harness.platforms.power_automate.branches import definition_branches
from harness.platforms.power_automate.definition import documents, load_flow, read_flow
from harness.recording import Platform

FLOW = {"properties": {"displayName": "Orders", "definition": {
    "triggers": {"manual": {"type": "Request", "kind": "Http"}},
    "actions": {
        "Last": {"type": "Compose", "runAfter": {"Check": ["Succeeded"]}, "inputs": 1},
        "First": {"type": "Compose", "runAfter": {}, "inputs": 0},
        "Check": {"type": "If", "runAfter": {"First": ["Succeeded", "Failed"]}, "expression": "@true",
                  "actions": {"Yes": {"type": "Compose", "runAfter": {}, "inputs": 2}},
                  "else": {"actions": {"No": {"type": "Compose", "runAfter": {}, "inputs": 3}}}},
        "Route": {"type": "Switch", "runAfter": {"Last": ["Succeeded"]}, "expression": "@1",
                  "cases": {"Case": {"case": 1, "actions": {}}, "Case_2": {"case": "b", "actions": {}}}}}}}}


def test_actions_are_in_run_after_order_depth_first_with_their_branches() -> None:
    flow = read_flow(FLOW)
    assert flow is not None and flow.name == "Orders"
    assert [(a.name, a.parent, a.branch) for a in flow.actions] == [
        ("First", None, None), ("Check", None, None), ("Yes", "Check", "true"), ("No", "Check", "false"),
        ("Last", None, None), ("Route", None, None)]
    assert flow.get("Check").run_after == {"First": ("Succeeded", "Failed")}  # type: ignore[union-attr]
    assert flow.get("Check").kind == "If"  # type: ignore[union-attr]


def test_a_run_after_naming_an_action_outside_the_scope_names_the_file_and_field(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(FLOW))
    bad["properties"]["definition"]["actions"]["Last"]["runAfter"] = {"Yes": ["Succeeded"]}
    with pytest.raises(ExportFormatError) as caught:
        load_flow("flows/orders.json", bad)
    assert "flows/orders.json" in str(caught.value) and "actions.Last.runAfter.Yes" in str(caught.value)


def test_a_status_that_is_not_one_of_the_four_is_refused() -> None:
    bad = json.loads(json.dumps(FLOW))
    bad["properties"]["definition"]["actions"]["Last"]["runAfter"] = {"Check": ["Done"]}
    with pytest.raises(ExportFormatError, match="Succeeded, Failed, Skipped, TimedOut"):
        load_flow("x.json", bad)


def test_a_document_without_a_definition_is_refused_naming_what_is_expected() -> None:
    with pytest.raises(ExportFormatError, match="triggers' and 'actions'"):
        load_flow("runs.json", {"value": []})


def test_an_export_package_zip_is_read_for_its_definitions(tmp_path: Path) -> None:
    package = tmp_path / "orders.zip"
    with zipfile.ZipFile(package, "w") as out:
        out.writestr("Microsoft.Flow/flows/abc/definition.json", json.dumps(FLOW))
        out.writestr("manifest.json", "{}")
    (where, document), = documents(package)
    assert where.endswith("!Microsoft.Flow/flows/abc/definition.json")
    assert load_flow(where, document).name == "Orders"


def test_branches_are_the_ifs_two_and_the_switch_cases_and_default(tmp_path: Path) -> None:
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(FLOW))
    entry = AutomationEntry(name="orders", platform=Platform.POWER_AUTOMATE, coercion=Coercion.STRICT)
    rows = definition_branches(path, entry)
    assert [(b.node, b.output, b.value) for b in rows] == [
        ("Check", "true", "true"), ("Check", "false", "false"),
        ("Route", "Case", "1"), ("Route", "Case_2", "b"), ("Route", "default", "default")]

"""An export given to the wrong ``cutover import``, or a record that holds no run, is named for what it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError, ForeignExportError
from harness.importer import ImportedRun
from harness.importer.foreign import recognise_runs
from harness.importer.pipeline import ImportRequest, parse_export
from harness.manifest import DEFAULT_COERCION, AutomationEntry
from harness.platforms.power_automate.history import parse as parse_power_automate
from harness.recording import Evidence, Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports"
RUNS = {
    Platform.N8N: "n8n/executions_list.json", Platform.ZAPIER: "zapier/zap_runs_api.json",
    Platform.MAKE: "make/scenario_logs_api.json", Platform.POWER_AUTOMATE: "power-automate/runs_list.json",
}
COMMAND = {Platform.N8N: "cutover import n8n", Platform.ZAPIER: "cutover import zapier",
           Platform.MAKE: "cutover import make", Platform.POWER_AUTOMATE: "cutover import power-automate"}
PA = AutomationEntry("flow", Platform.POWER_AUTOMATE, DEFAULT_COERCION[Platform.POWER_AUTOMATE])


def _parse(platform: Platform, path: Path) -> list[Any]:
    request = ImportRequest(platform, path, path.parent / "set", "a")
    return list(parse_export(request, AutomationEntry("a", platform, DEFAULT_COERCION[platform])))


def _write(tmp_path: Path, document: Any, name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("owner", list(RUNS))
@pytest.mark.parametrize("given_to", list(RUNS))
def test_another_tools_runs_name_the_tool_and_the_command_that_reads_them(owner: Platform, given_to: Platform) -> None:
    path = EXPORTS / RUNS[owner]
    if owner is given_to:
        assert any(isinstance(i, ImportedRun) for i in _parse(given_to, path))  # its own importer reads it
        return
    with pytest.raises(ForeignExportError) as caught:
        _parse(given_to, path)
    assert caught.value.platform == owner
    assert f"{COMMAND[owner]} {path.name}" in str(caught.value)
    assert "expected an" not in str(caught.value)  # not the first field the wrong importer missed


def test_make_incomplete_executions_are_named_and_point_at_the_scenario_logs(tmp_path: Path) -> None:
    dlq = {"dlqs": [{"id": "5e2a0c8f41d04b4f9a9b1f3e2d7c6a10", "reason": "Connection refused", "created":
                     "2024-06-03T09:12:44.100Z", "size": 3, "resolved": False, "retry": True, "attempts": 1}]}
    one = {"dlq": {"id": "5e2a0c8f41d04b4f9a9b1f3e2d7c6a10", "scenarioId": 41, "scenarioName": "Orders",
                   "resolved": False, "executionId": "0b8e0b5e-7f47-4c3e-9d0a-6a1f4f0b2c11", "attempts": 1}}
    for document in (dlq, one):
        with pytest.raises(ForeignExportError, match=r"Make incomplete executions .*scenario logs.*cutover import make"):
            _parse(Platform.MAKE, _write(tmp_path, document))


def _repetition(index: int, status: str, body: Any = None) -> dict[str, Any]:
    props: dict[str, Any] = {"repetitionIndexes": [{"scopeName": "For_each_order", "itemIndex": index}],
                             "startTime": f"2024-06-03T09:00:0{index}Z", "endTime": f"2024-06-03T09:00:0{index}Z",
                             "status": status, "code": "OK" if status == "Succeeded" else "BadRequest"}
    if body is not None:
        props["outputs"] = {"statusCode": 200, "body": body}
    return {"properties": props, "name": f"00000{index}", "type": "Microsoft.Logic/workflows/runs/actions/repetitions"}


def test_an_actions_repetitions_are_not_read_as_runs(tmp_path: Path) -> None:
    """The bug: a repetitions list given as run history became two runs of the flow."""
    path = _write(tmp_path, {"value": [_repetition(0, "Succeeded"), _repetition(1, "Failed")]})
    assert recognise_runs(json.loads(path.read_text())).not_runs
    with pytest.raises(ForeignExportError, match="repetitions.*iterations of one action in one run, not runs"):
        _parse(Platform.POWER_AUTOMATE, path)
    with pytest.raises(ExportFormatError, match="repetitions"):  # the importer alone says the same
        list(parse_power_automate(path, PA))


def test_request_histories_are_named_not_a_missing_status(tmp_path: Path) -> None:
    history = {"value": [{"properties": {"startTime": "2024-06-03T09:00:00Z", "endTime": "2024-06-03T09:00:01Z",
                                         "request": {"uri": "https://api.example.com/orders", "method": "POST",
                                                     "headers": {}},
                                         "response": {"statusCode": 201, "headers": {}}},
                          "name": "08585000000000000001",
                          "type": "Microsoft.Logic/workflows/runs/actions/requestHistories"}]}
    path = _write(tmp_path, history)
    with pytest.raises(ForeignExportError) as caught:
        _parse(Platform.POWER_AUTOMATE, path)
    assert "request histories" in str(caught.value) and "properties.status" not in str(caught.value)


def _run(actions: Any) -> dict[str, Any]:
    return {"name": "08585000000000000009CU01", "type": "Microsoft.Logic/workflows/runs",
            "properties": {"status": "Succeeded", "startTime": "2024-06-03T09:00:00Z", "endTime": "2024-06-03T09:00:05Z",
                           "correlation": {"clientTrackingId": "08585000000000000009CU01"},
                           "trigger": {"name": "manual", "status": "Succeeded",
                                       "outputs": {"headers": {}, "body": {"orders": [1, 2]}}}},
            "actions": actions}


def test_the_pnp_cli_inline_output_is_read_as_the_actions_outputs(tmp_path: Path) -> None:
    """``m365 flow run get --withActions`` writes each action's content as ``input``/``output``."""
    actions = {"Compose_total": {"status": "Succeeded", "startTime": "2024-06-03T09:00:01Z",
                                 "input": {"a": 1}, "output": {"body": 3}},
               "Post_to_Teams": {"status": "Succeeded", "startTime": "2024-06-03T09:00:02Z",
                                 "output": {"statusCode": 200, "body": {"id": "m-1"}}}}
    (run,) = [i for i in parse_power_automate(_write(tmp_path, [_run(actions)]), PA) if isinstance(i, ImportedRun)]
    assert run.trace is not None and run.trace.outputs == {"Compose_total": 3, "Post_to_Teams": {"id": "m-1"}}
    assert Evidence.OUTPUTS in run.trace.evidence


def test_repetitions_inside_an_action_record_give_its_outputs_per_iteration_and_its_status(tmp_path: Path) -> None:
    ok = {"For_each_order": {"startTime": "2024-06-03T09:00:01Z",
                             "repetitions": {"value": [_repetition(1, "Succeeded", {"n": 2}),
                                                       _repetition(0, "Succeeded", {"n": 1})]}}}
    (run,) = [i for i in parse_power_automate(_write(tmp_path, [_run(ok)]), PA) if isinstance(i, ImportedRun)]
    assert run.trace is not None and run.trace.outputs == {"For_each_order": [{"n": 1}, {"n": 2}]}
    assert run.trace.path == ["For_each_order"]
    failed = {"For_each_order": {"startTime": "2024-06-03T09:00:01Z",
                                 "repetitions": [_repetition(0, "Succeeded"), _repetition(1, "Failed")]}}
    document = _run(failed)
    document["properties"]["status"] = "Failed"
    (run,) = [i for i in parse_power_automate(_write(tmp_path, [document], "f.json"), PA) if isinstance(i, ImportedRun)]
    assert run.trace is not None and run.trace.status is TraceStatus.FAILED
    assert run.trace.failed_step == "For_each_order"


def test_a_document_no_rule_knows_is_left_to_the_importer(tmp_path: Path) -> None:
    path = _write(tmp_path, {"something": "else"})
    assert recognise_runs(json.loads(path.read_text())) is None
    (item,) = _parse(Platform.N8N, path)  # the importer's own error, naming the record and field
    assert isinstance(item, ExportFormatError) and not isinstance(item, ForeignExportError)

"""``cutover scaffold power-automate``: schedules, TODOs that name the call, maps, secrets kept out, estates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.platforms.power_automate.definition import read_flow
from harness.platforms.power_automate.translate import build, maps_toml, scaffold
from harness.platforms.power_automate.translate.trigger import schedule_of


def _flow(actions: dict[str, object], trigger: dict[str, object] | None = None) -> object:
    flow = read_flow({"definition": {"triggers": {"manual": trigger or {"type": "Request", "kind": "Http"}},
                                     "actions": actions}}, name="Case")
    assert flow is not None
    return flow


@pytest.mark.parametrize(("recurrence", "cron"), [
    ({"frequency": "Minute", "interval": 15}, "*/15 * * * *"),
    ({"frequency": "Hour", "interval": 2, "startTime": "2024-01-01T00:30:00Z"}, "30 */2 * * *"),
    ({"frequency": "Day", "interval": 1, "schedule": {"hours": ["6"], "minutes": [5]}}, "5 6 * * *"),
    ({"frequency": "Week", "interval": 1, "schedule": {"weekDays": ["Monday", "Friday"], "hours": [9]}}, "0 9 * * 1,5"),
    ({"frequency": "Month", "interval": 1, "startTime": "2024-01-15T08:00:00Z"}, "0 8 15 * *"),
])
def test_a_recurrence_becomes_its_cron(recurrence: dict[str, object], cron: str) -> None:
    schedule, _ = schedule_of(recurrence)
    assert schedule == {"cron": cron}


def test_a_recurrence_with_no_cron_equivalent_says_so() -> None:
    schedule, why = schedule_of({"frequency": "Day", "interval": 3})
    assert schedule is None and "set schedule= by hand" in why


def test_a_windows_time_zone_becomes_the_schedule_s_iana_zone() -> None:
    schedule, why = schedule_of({"frequency": "Day", "interval": 1, "timeZone": "W. Europe Standard Time",
                                 "schedule": {"hours": ["6"]}})
    assert schedule == {"cron": "0 6 * * *", "timezone": "Europe/Berlin"} and "W. Europe Standard Time" in why


def test_an_unknown_time_zone_is_named_for_the_person_to_map() -> None:
    schedule, why = schedule_of({"frequency": "Day", "interval": 1, "timeZone": "Mars Standard Time"})
    assert schedule == {"cron": "0 0 * * *"} and "Mars Standard Time" in why and "IANA" in why


def test_a_connector_operation_outside_the_catalogue_is_a_todo_naming_it_and_keeps_its_step() -> None:
    s = build(_flow({"Get_items": {"type": "OpenApiConnection", "runAfter": {}, "inputs": {
        "host": {"apiId": "/providers/Microsoft.PowerApps/apis/shared_sharepointonline", "operationId": "GetItems"},
        "parameters": {"dataset": "https://contoso.sharepoint.com/sites/a", "table": "t"}}}}), "case", {})
    (row,) = [r for r in s.rows if r.node == "Get_items"]
    assert (row.status, row.type) == ("todo", "OpenApiConnection:sharepointonline/GetItems")
    assert "SharePoint GetItems" in row.why and "{Link}" in row.why
    assert s.steps["Get_items"] == "get-items" and "power_automate.todo('Get_items'" in s.source


def test_an_unknown_action_type_is_a_todo_not_a_traceback() -> None:
    s = build(_flow({"Odd": {"type": "Workflow", "runAfter": {}, "inputs": {"host": {}}}}), "case", {})
    assert [r.status for r in s.rows if r.node == "Odd"] == ["todo"]
    compile(s.source, "<case>", "exec")


def test_an_http_secret_is_never_copied_into_the_module() -> None:
    s = build(_flow({"Call": {"type": "Http", "runAfter": {}, "inputs": {
        "method": "GET", "uri": "https://api.example.test/x", "headers": {"Authorization": "Bearer s3cr3t-value"},
        "authentication": {"type": "ActiveDirectoryOAuth", "clientId": "c", "secret": "hA1jR4an-very-secret"}}}}),
        "case", {})
    assert "s3cr3t-value" not in s.source and "hA1jR4an-very-secret" not in s.source
    (row,) = [r for r in s.rows if r.node == "Call"]
    assert row.status == "translated" and "configure it on the provider" in row.why


def test_a_key_in_the_uri_is_a_todo_never_copied() -> None:
    s = build(_flow({"Fn": {"type": "Http", "runAfter": {}, "inputs": {
        "method": "POST", "uri": "https://fn.example.test/api/run?code=AbCdEf123456==&x=1"}}}), "case", {})
    (row,) = [r for r in s.rows if r.node == "Fn"]
    assert row.status == "todo" and "code=" in row.why and "AbCdEf123456" not in s.source


def test_a_secure_parameter_default_is_not_copied() -> None:
    flow = read_flow({"definition": {"parameters": {"apiKey": {"type": "SecureString", "defaultValue": "k-123-secret"},
                                                    "region": {"type": "String", "defaultValue": "eu"}},
                                     "triggers": {"manual": {"type": "Request"}}, "actions": {}}})
    s = build(flow, "case", {})  # type: ignore[arg-type]
    assert "k-123-secret" not in s.source and "'region': 'eu'" in s.source


def test_a_concurrent_foreach_says_it_runs_in_item_order() -> None:
    s = build(_flow({"Each": {"type": "Foreach", "runAfter": {}, "foreach": "@triggerBody()", "actions": {}}}), "case", {})
    (row,) = [r for r in s.rows if r.node == "Each"]
    assert "up to 20 at once" in row.why


def test_the_maps_name_call_steps_and_decisions_as_the_importer_records_them() -> None:
    s = build(_flow({
        "Check": {"type": "If", "runAfter": {}, "expression": "@triggerBody()?['ok']",
                  "actions": {"Post": {"type": "Http", "runAfter": {}, "inputs": {"method": "POST", "uri": "https://api.example.test/p"}}}},
        "Note": {"type": "Compose", "runAfter": {"Check": ["Succeeded"]}, "inputs": 1}}), "case", {"api.example.test": "api"})
    text = maps_toml(s)
    assert 'Post = "post"' in text and 'Note = ""' in text and 'Check = ""' in text
    assert '[automations.case.decisions.Check]\nname = "check"' in text
    assert '"api.example.test" = "api"' in text


def test_a_directory_skips_files_that_are_not_flows_and_scaffolds_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.definition.json").write_text(json.dumps({"properties": {"displayName": "A", "definition": {
        "triggers": {"manual": {"type": "Request"}}, "actions": {"C": {"type": "Compose", "runAfter": {}, "inputs": 1}}}}}))
    (tmp_path / "runs.json").write_text(json.dumps({"value": []}))
    written, skipped = scaffold(tmp_path, automation=None, into=tmp_path / "out", providers={})
    assert [w.scaffold.automation for w in written] == ["a"] and skipped == [str(tmp_path / "runs.json")]
    assert written[0].scaffold.whole


ODD_INPUTS: list[object] = [None, 3, "x", [], {"x": None}, {"variables": "no"}, {"name": 5}, {"from": {"a": 1}},
                            {"host": None}, {"host": {"apiId": 7}, "parameters": [1]}, {"interval": {"count": "@"}}]
ODD_SPECS: list[dict[str, object]] = [{"expression": None}, {"expression": {"nope": 1}}, {"cases": []},
                                      {"cases": {"c": None}}, {"foreach": {"a": 1}}, {"limit": {"count": "x"}},
                                      {"actions": []}, {"else": 5}]


@pytest.mark.parametrize("kind", ["Compose", "InitializeVariable", "SetVariable", "IncrementVariable", "ParseJson",
                                  "Query", "Select", "Join", "Table", "Response", "Wait", "Terminate", "Expression",
                                  "Http", "OpenApiConnection", "ApiConnection", "If", "Switch", "Foreach", "Until", "Scope"])
def test_an_action_of_an_unexpected_shape_is_a_todo_or_a_translation_never_a_traceback(kind: str) -> None:
    for inputs in ODD_INPUTS:
        for extra in ODD_SPECS:
            s = build(_flow({"A": {"type": kind, "runAfter": {}, "inputs": inputs, **extra}}), "case", {})
            assert {r.status for r in s.rows if r.node == "A"} <= {"translated", "todo"}
            compile(s.source, "<case>", "exec")


@pytest.mark.parametrize(("spec", "named"), [
    ({"type": "OpenApiConnectionWebhook", "inputs": {"host": {
        "apiId": "/providers/Microsoft.PowerApps/apis/shared_microsoftforms", "operationId": "CreateFormWebhook"},
        "parameters": {"form_id": "f-1"}}}, "subscription (the connector's webhook) of microsoftforms CreateFormWebhook"),
    ({"type": "ApiConnection", "recurrence": {"frequency": "Minute", "interval": 5}, "splitOn": "@triggerBody()?['value']",
      "inputs": {"host": {"connection": {"name": "@parameters('$connections')['shared_sharepointonline']['connectionId']"}},
                 "method": "get", "path": "/datasets/x/tables/y/onnewitems"}},
     "polling of sharepointonline GET /datasets/x/tables/y/onnewitems"),
])
def test_a_connector_trigger_replays_its_recorded_body_and_names_the_live_subscription(spec: dict[str, object],
                                                                                        named: str) -> None:
    s = build(_flow({"Read": {"type": "Compose", "runAfter": {}, "inputs": "@triggerBody()?['id']"}}, spec), "case", {})
    (row,) = [r for r in s.rows if r.node == "manual"]
    assert row.status == "trigger" and "replays" in row.why and f"TODO live: the {named} is not created" in row.why
    assert "TODO live" in s.source and "power_automate.todo('manual'" not in s.source


def test_the_catalogue_table_names_translated_operations_and_rows_the_catalogue_has() -> None:
    from harness.catalogue import coverage
    from harness.platforms.power_automate.translate.connectors import CATALOGUE, OPERATIONS

    assert set(CATALOGUE) <= set(OPERATIONS)
    tables = coverage.platform_tables()
    assert not [s for s in coverage.strays(tables) if s[0] == "Power Automate"]
    assert tables["Power Automate"][("microsoft-graph", "user.manager")] == ["office365users Manager_V2"]


@pytest.mark.parametrize(("text", "seconds"), [
    ("PT1H", 3600.0), ("P1DT30M", 88200.0), ("PT0.5S", 0.5), ("P2W", 1209600.0), ("pt5m", 300.0),
    ("P", None), ("PT", None), ("1H", None), ("@parameters('t')", None),
])
def test_an_until_timeout_is_read_as_an_iso_8601_duration(text: str, seconds: float | None) -> None:
    from harness.platforms.power_automate.translate.flow import duration

    assert duration(text) == seconds


def test_an_until_timeout_that_is_an_expression_is_said_to_be_unenforced() -> None:
    s = build(_flow({"Loop": {"type": "Until", "runAfter": {}, "expression": "@equals(1, 1)",
                              "limit": {"count": 3, "timeout": "@parameters('t')"}, "actions": {}}}), "case", {})
    (row,) = [r for r in s.rows if r.node == "Loop"]
    assert row.status == "translated" and "not enforced" in row.why and "timeout=None" in s.source

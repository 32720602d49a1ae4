"""``cutover scaffold zapier``: what each Zap step becomes, the maps, and the TODOs it must leave."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.manifest import AutomationEntry
from harness.platforms.zapier import ADAPTER
from harness.platforms.zapier.branches import zap_branches
from harness.platforms.zapier.definition import read_zaps
from harness.platforms.zapier.translate import ZapFile, build, load_all, maps_toml, scaffold, schedule_of
from harness.scaffold._module import pinned_types
from queue_core import Trigger
from tests.conformance.zapier.runner import FakeContext, function_of, scaffold_of, zapfile

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "zapier"


def _rows(scaffold_: Any) -> dict[str, tuple[str, str]]:
    return {r.node: (r.status, r.why) for r in scaffold_.rows}


def test_the_definition_keeps_each_steps_app_action_params_and_parent() -> None:
    (zap,) = read_zaps(json.loads((FIXTURES / "lead-intake.zapfile.json").read_text()))
    code = next(s for s in zap.steps if s.label == "Clean email")
    assert (code.app, code.type_of, code.parent) == ("CodeCLIAPI", "write", "500")
    assert code.params["input"] == {"email": "{{500__email}}"}
    assert [s.kind for s in zap.steps] == ["trigger", "action", "filter", "action", "branch", "path", "action",
                                           "path", "action"]


def test_the_zapier_adapter_has_a_translator_that_the_cli_lists() -> None:
    from harness.platforms import translators

    assert ADAPTER.translator is not None and "zapier" in translators()
    assert ADAPTER.translator.argument == "zapfile"


def test_decisions_are_named_as_branch_coverage_names_them() -> None:
    (zap,) = read_zaps(json.loads((FIXTURES / "lead-intake.zapfile.json").read_text()))
    made = build(ZapFile(zap, ""), "lead-intake", {}, {})
    entry = AutomationEntry(name="lead-intake", platform=ADAPTER.platform, coercion=ADAPTER.coercion, steps=made.steps,
                            decisions={k: _decision(v) for k, v in made.decisions.items()})
    names = {(b.decision, b.value) for b in zap_branches(zap, entry)}
    assert names == {("valid-lead", "passed"), ("valid-lead", "stopped"), ("route", "Enterprise"),
                     ("route", "Everyone else")}


def _decision(name: str) -> Any:
    from harness.manifest import DecisionMap

    return DecisionMap(name=name)


@pytest.mark.parametrize(("action", "params", "cron"), [
    ("every_week", {"dow": "Friday", "hod": "8am"}, "0 8 * * 5"),
    ("every_week", {"dow": "Thursday", "hod": "3pm"}, "0 15 * * 4"),
    ("every_day", {"hod": "12am", "trigger_on_weekends": "no"}, "0 0 * * 1-5"),
    ("every_hour", {}, "0 * * * *"),
    ("every_month", {"dom": "15", "hod": "9am"}, "0 9 15 * *"),
])
def test_schedule_by_zapier_becomes_a_cron(action: str, params: dict[str, str], cron: str) -> None:
    from harness.platforms.zapier.definition import ZapStep

    schedule, why = schedule_of(ZapStep("1", "Every", "trigger", app="ScheduleAPI", action=action, params=params))
    assert schedule == {"cron": cron} and "time zone" in why


def test_a_reference_to_a_step_not_in_the_zap_is_a_todo_naming_it() -> None:
    made = scaffold_of(zapfile({"type_of": "filter", "selected_api": "FilterAPI", "action": "filter",
                                "params": {"filter_criteria": [{"key": "75467864__t", "match": "igreater",
                                                                "value": "45", "group": 1, "action": "continue"}]}}))
    status, why = _rows(made)["FilterAPI:filter"]
    assert status == "todo" and "step 75467864" in why and not made.whole


def test_an_unknown_filter_rule_and_a_code_step_that_fetches_are_todos() -> None:
    rule = scaffold_of(zapfile({"type_of": "filter", "selected_api": "FilterAPI", "action": "filter", "params": {
        "filter_criteria": [{"key": "1__a", "match": "regex_like", "value": "x", "group": 1, "action": "continue"}]}}))
    assert "'regex_like'" in _rows(rule)["FilterAPI:filter"][1]
    fetch = scaffold_of(zapfile({"type_of": "write", "selected_api": "CodeCLIAPI", "action": "run_javascript",
                                 "params": {"code": "const r = await fetch('https://x.test', {headers: "
                                                    "{Authorization: 'Api-Key abc123'}}); return r.json();"}}))
    status, why = _rows(fetch)["CodeCLIAPI:run_javascript"]
    assert status == "todo" and "fetch" in why
    assert "abc123" not in fetch.source  # the code is never copied into the TODO's comment


def test_a_literal_credential_header_of_a_webhook_is_read_from_the_environment() -> None:
    made = scaffold_of(zapfile({"type_of": "write", "selected_api": "WebHookAPI", "action": "post", "params": {
        "url": "https://api.example.test/leads", "payload_type": "json", "data": {"a": "1"},
        "headers": {"X-Api-Key": "sk-live-123456"}}}))
    assert _rows(made)["WebHookAPI:post"][0] == "translated"
    assert "sk-live-123456" not in made.source and made.credentials
    assert "credential(ctx, 'CUTOVER_EXAMPLE_X_API_KEY')" in made.source


def test_an_app_step_whose_output_a_later_step_reads_is_a_todo_with_the_call() -> None:
    document = zapfile({"type_of": "write", "selected_api": "SlackAPI", "action": "channel_message",
                        "params": {"channel": "C1", "text": "hi"}},
                       ({"id": 3, "parent_id": 2, "type_of": "write", "selected_api": "SlackAPI",
                         "action": "channel_message", "params": {"channel": "C1", "text": "ts {{2__ts}}"}},))
    rows = _rows(scaffold_of(document))
    first, second = rows["SlackAPI:channel_message"], rows["SlackAPI:channel_message #2"]
    assert first[0] == "todo" and "later step reads its output" in first[1] and "chat.postMessage" in first[1]
    assert second[0] == "translated"


def test_a_formatter_step_translates_in_the_zapfiles_spelling_and_is_pinned_by_its_transform(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.platforms.zapier.translate as translate

    node = {"type_of": "write", "selected_api": "ZapierFormatterCLIAPI@1.0.8", "action": "string",
            "params": {"transform": "string.capitalize", "inputs": "{{1__name}}"}}
    made = scaffold_of(zapfile(node, ({"id": 3, "parent_id": 2, "type_of": "write", "selected_api": "WebHookAPI",
                                       "action": "get", "params": {"url": "https://api.example.test/{{2__output}}"}},)))
    row = next(r for r in made.rows if r.node == "ZapierFormatterCLIAPI:string")
    assert (row.type, row.status) == ("ZapierFormatterCLIAPI:string:string.capitalize", "translated")
    assert "text:capitalize" in row.why and made.proof(row) == "pinned"
    ctx = FakeContext(({"ok": True},))
    asyncio.run(function_of(made)(ctx, Trigger("t", None, {}, {"name": "ada lovelace"}, "test")))
    assert ctx.sent[0]["url"] == "https://api.example.test/Ada Lovelace"  # the runtime's output, mapped on
    monkeypatch.setattr(translate, "formatter_proved", lambda: frozenset({"text:replace"}))
    assert made.proof(row) == "none"  # pinned only by its own transform's cases
    unknown = scaffold_of(zapfile({**node, "params": {"transform": "string.superhero", "inputs": "x"}}))
    (todo_row,) = [r for r in unknown.rows if r.node == "ZapierFormatterCLIAPI:string"]
    assert todo_row.status == "todo" and "text:superhero" in todo_row.why


def test_python_code_is_inlined_and_runs_the_rest_once_per_returned_dictionary() -> None:
    document = zapfile({"type_of": "write", "selected_api": "CodeAPI", "action": "run_python", "params": {
        "code": "output = [{'n': int(x)} for x in input_data['xs'].split(',')]", "input_data": {"xs": "{{1__xs}}"}}},
        ({"id": 3, "parent_id": 2, "type_of": "write", "selected_api": "WebHookAPI", "action": "get",
          "params": {"url": "https://api.example.test/n/{{2__n}}"}},))
    made = scaffold_of(document)
    assert "def code_2(input_data: dict[str, str]) -> Any:" in made.source
    ctx = FakeContext(({"ok": 1}, {"ok": 2}))
    asyncio.run(function_of(made)(ctx, Trigger("t", None, {}, {"xs": "4,5"}, "test")))
    assert [r["url"] for r in ctx.sent] == ["https://api.example.test/n/4", "https://api.example.test/n/5"]


def test_the_maps_line_steps_and_decisions_up_with_the_importer() -> None:
    (zap,) = read_zaps(json.loads((FIXTURES / "lead-intake.zapfile.json").read_text()))
    text = maps_toml(build(ZapFile(zap, ""), "lead-intake", {"crm.example.test": "crm"}, {}))
    assert '"Create contact" = "create-contact"' in text and '"Clean email" = ""' in text
    assert '[automations.lead-intake.decisions.Route]\nname = "route"' in text
    assert '"crm.example.test" = "crm"' in text and 'legacy_workflows = ["500"]' in text


def test_a_directory_skips_what_is_not_a_zapfile_and_a_zaps_page_is_named(tmp_path: Path) -> None:
    (tmp_path / "zaps").mkdir()
    (tmp_path / "zaps" / "lead.json").write_text((FIXTURES / "lead-intake.zapfile.json").read_text())
    page = tmp_path / "zaps" / "page.json"
    page.write_text(json.dumps({"data": [{"id": "z", "type": "zap", "steps": []}]}))
    written, skipped = scaffold(tmp_path / "zaps", automation=None, into=tmp_path / "out")
    assert [w.scaffold.automation for w in written] == ["lead-intake"] and skipped == [str(page)]
    with pytest.raises(ExportFormatError, match="page.json.*/v2/zaps page"):
        load_all(page)
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps([{"data": [{"id": "r", "zap_id": 1, "status": "success", "steps": []}]}]))
    with pytest.raises(ExportFormatError, match="Zap runs .*cutover import zapier runs.json --definition"):
        load_all(runs)


def test_the_proved_table_lists_the_pinned_types() -> None:
    pinned = pinned_types("zapier")
    assert {"FilterAPI:filter", "BranchingAPI:branch", "BranchingAPI:filter", "WebHookCLIAPI:post"} <= pinned


def test_a_sub_zap_call_is_a_child_job_of_the_called_zaps_automation(tmp_path: Path) -> None:
    def node(i: int, parent: int | None, api: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"id": i, "parent_id": parent, "type_of": "read" if parent is None else "write", "selected_api": api,
                "action": action, "params": params, "title": None}

    caller = {"id": 10, "title": "Caller", "nodes": {"10": node(10, None, "WebHookAPI", "hook", {}),
                                                     "11": node(11, 10, "SubZapCLIAPI", "call",
                                                                {"zap_id": "20", "data": {"who": "{{10__name}}"}})}}
    callee = {"id": 20, "title": "Greeter", "nodes": {"20": node(20, None, "SubZapCLIAPI", "start", {}),
                                                      "21": node(21, 20, "SubZapCLIAPI", "return",
                                                                 {"data": {"hello": "{{20__who}}"}})}}
    (tmp_path / "Zapfile.json").write_text(json.dumps({"metadata": {"version": "gdpr_v1"}, "zaps": [caller, callee]}))
    written, _ = scaffold(tmp_path / "Zapfile.json", automation=None, into=tmp_path / "out")
    by_name = {w.scaffold.automation: w.scaffold for w in written}
    assert "await zapier.sub_call(ctx, 'greeter', {'who': zapier.field(run.out, '10', 'name')}" in by_name["caller"].source
    assert "await zapier.sub_return(ctx, {'hello': zapier.field(run.out, '20', 'who')})" in by_name["greeter"].source
    assert all(s.whole for s in by_name.values())


def test_a_filter_inside_a_path_ends_that_path_only() -> None:
    document = zapfile({"type_of": "write", "selected_api": "BranchingAPI", "action": "branch", "params": {}}, (
        {"id": 3, "parent_id": 2, "type_of": "filter", "selected_api": "BranchingAPI", "action": "filter",
         "title": "All", "params": {}},
        {"id": 4, "parent_id": 3, "type_of": "filter", "selected_api": "FilterAPI", "action": "filter",
         "title": "Big?", "params": {"filter_criteria": [{"key": "1__n", "match": "igreater", "value": "10",
                                                          "group": 1, "action": "continue"}]}},
        {"id": 5, "parent_id": 4, "type_of": "write", "selected_api": "WebHookAPI", "action": "get",
         "params": {"url": "https://api.example.test/big"}},
        {"id": 6, "parent_id": 2, "type_of": "filter", "selected_api": "BranchingAPI", "action": "filter",
         "title": "Also", "params": {}},
        {"id": 7, "parent_id": 6, "type_of": "write", "selected_api": "WebHookAPI", "action": "get",
         "params": {"url": "https://api.example.test/always"}}))
    made = scaffold_of(document)
    assert "if run.gate('big', " in made.source
    ctx = FakeContext(({"ok": 1},))
    asyncio.run(function_of(made)(ctx, Trigger("t", None, {}, {"n": 3}, "test")))
    assert [r["url"] for r in ctx.sent] == ["https://api.example.test/always"]
    assert ctx.decisions == {"branchingapi-branch": ["All", "Also"], "big": "stopped"}

"""`cutover scaffold n8n`: workflow files in, automations that run with n8n's semantics out."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from harness.cli import cli
from harness.platforms.n8n.translate import scaffold_n8n
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import _OfflineContext, prove, run
from harness.platforms.n8n.definition import load_workflows
from harness.errors import ExportFormatError
from queue_core.context import Trigger

FIXTURES = Path(__file__).parent.parent / "fixtures" / "workflows" / "n8n"
ROUTER = FIXTURES / "order-router.workflow.json"


def _workflow(body: dict[str, Any] | None = None) -> Any:
    (wf,) = load_workflows(ROUTER)
    if body is None:
        return wf
    pins = dict(wf.pin_data)
    pins["Order webhook"] = [{"json": {"headers": {}, "params": {}, "query": {}, "body": body}}]
    from dataclasses import replace

    return replace(wf, pin_data={k: v for k, v in pins.items() if k == "Order webhook"})


def test_nodes_run_in_n8n_order_and_a_merge_waits_for_both_of_its_inputs() -> None:
    order, looped = _workflow().order()
    assert order.index("Together") > max(order.index("Mark large"), order.index("Mark domestic"))
    assert order.index("Route") < order.index("Not paid")  # output 0's branch runs before output 1's
    assert not looped


def test_the_pinned_output_of_a_translated_node_is_reproduced() -> None:
    proofs = {p.node: p.outcome for p in prove(_workflow())}
    assert proofs == {"Mark large": "proved"}


def test_decisions_are_named_and_valued_as_the_n8n_importer_names_them() -> None:
    flow, error, _ = run(_workflow({"id": 7, "status": "paid", "total": 80, "country": "FR"}))
    assert error is not None and "a proof does not call" not in error or error is None
    assert flow is not None
    assert flow.outputs["Route"][2] and not flow.outputs["Route"][0]  # the fallback output
    ctx = _OfflineContext()
    scaffold = build(_workflow(), "order-router", {"api.example-shop.test": "shop"})
    assert scaffold.decisions == {"Is paid?": "is-paid", "Route": "route"}
    assert scaffold.steps["Enqueue order"] == "enqueue-order" and scaffold.steps["Route"] == ""
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('order-router', version=1)", ""), "gen", "exec"), namespace)
    trigger = Trigger("t", None, {}, {"id": 7, "status": "paid", "total": 80, "country": "FR"}, "test")
    asyncio.run(namespace["order_router"](ctx, trigger))
    assert ctx.decisions == {"is-paid": "true", "route": "other"}


def test_a_call_node_calls_its_provider_once_per_item_with_the_translated_body() -> None:
    calls: list[tuple[Any, ...]] = []

    class Calling(_OfflineContext):
        async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
            calls.append((provider, method, url, kwargs))
            import httpx

            return httpx.Response(201, json={"queued": True})

    scaffold = build(_workflow(), "order-router", {"api.example-shop.test": "shop"})
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('order-router', version=1)", ""), "gen", "exec"), namespace)
    body = {"id": 42, "status": "paid", "total": 1500, "country": "DE"}
    asyncio.run(namespace["order_router"](Calling(), Trigger("t", None, {}, body, "test")))
    # 1500 >= 1000 matches "large" first (not all matching outputs): one item reaches the merge;
    # "order.id" is a string field in Edit Fields, so n8n (and the code) send "42", not 42
    assert calls == [("shop", "POST", "https://api.example-shop.test/v1/queues/priority-de/items",
                      {"json": {"order": "42", "rush": True}, "step": "enqueue-order"})]


def test_an_untranslated_node_fails_the_run_naming_it_when_items_reach_it() -> None:
    from dataclasses import replace

    workflow = _workflow({"id": 1, "status": "refunded", "total": 5, "country": "DE"})
    audit = workflow.nodes["Audit"]  # a Code node needing a Node.js module stays a TODO
    workflow.nodes["Audit"] = replace(audit, parameters={"jsCode": "const c = require('fs');\n" + audit.parameters["jsCode"]})
    flow, error, statuses = run(workflow)
    assert statuses["Audit"] == "todo"
    assert error is not None and "'Audit' is not translated yet" in error


def test_a_strict_type_error_fails_the_node_as_n8n_does() -> None:
    flow, error, _ = run(_workflow({"id": 1, "status": 3, "total": 5, "country": "DE"}))
    assert error is not None and "Is paid?: Wrong type: '3' is a number but was expecting a string" in error


def test_an_edited_file_is_never_overwritten_without_force(tmp_path: Path) -> None:
    (first,) = scaffold_n8n(ROUTER, automation="order-router", into=tmp_path)
    assert first.written
    target = tmp_path / "order_router.py"
    target.write_text(target.read_text() + "\n# my change\n")
    (again,) = scaffold_n8n(ROUTER, automation="order-router", into=tmp_path)
    assert not again.written and "-# my change" in again.diff
    assert target.read_text().endswith("# my change\n")
    (forced,) = scaffold_n8n(ROUTER, automation="order-router", into=tmp_path, force=True)
    assert forced.written and "# my change" not in target.read_text()


def test_an_unedited_generated_file_is_regenerated_in_place(tmp_path: Path) -> None:
    scaffold_n8n(ROUTER, automation="order-router", into=tmp_path)
    (again,) = scaffold_n8n(ROUTER, automation="order-router", into=tmp_path)
    assert not again.diff


def test_an_execution_export_is_not_a_workflow_and_the_message_says_which_file_to_use(tmp_path: Path) -> None:
    export = tmp_path / "executions.json"
    export.write_text(json.dumps({"id": "1", "finished": True, "data": {"resultData": {"runData": {}}}}))
    with pytest.raises(ExportFormatError, match="execution export: scaffold reads the workflow file"):
        load_workflows(export)


def test_the_estate_command_scaffolds_every_workflow_and_prints_one_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["scaffold", "n8n", str(FIXTURES / "estate"), "--into", str(tmp_path / "a"),
                                      "--set", str(tmp_path / "set")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a" / "nightly_report.py").exists() and (tmp_path / "a" / "sheet_sync.py").exists()
    assert "estate:" in result.output
    table = result.output.split("estate:")[1].splitlines()[2:]
    lines = {line.split()[0]: line for line in table if line.strip()}
    assert "schedule" in lines["nightly-report"] and "webhook" in lines["sheet-sync"]
    # a Sheets append is translated when its column schema is saved; this one has none
    assert "the node's column schema is empty: n8n reads the header row at run time" in result.output
    manifest = (tmp_path / "set" / "manifest.toml").read_text()
    assert '[automations.nightly-report.steps]' in manifest and '"Open issue" = "open-issue"' in manifest
    from harness.manifest import load_manifest

    loaded = load_manifest(tmp_path / "set" / "manifest.toml")  # a manifest cutover import can extend
    assert loaded.name == "set" and loaded.automations["nightly-report"].steps["Open issue"] == "open-issue"


def test_a_schedule_trigger_becomes_the_automations_cron() -> None:
    (wf,) = load_workflows(FIXTURES / "estate" / "nightly-report.json")
    scaffold = build(wf, "nightly-report", {})
    assert scaffold.schedule == {"cron": "30 2 * * *"}
    assert scaffold.trigger_kind == "schedule"
    assert "github" in scaffold.proposals and scaffold.steps["Open issue"] == "open-issue"


def test_workflows_of_an_estate_that_share_a_name_get_distinct_automations(tmp_path: Path) -> None:
    estate = tmp_path / "estate"
    estate.mkdir()
    for n in (1, 2):
        (estate / f"copy{n}.json").write_text(ROUTER.read_text())
    written = scaffold_n8n(estate, automation=None, into=tmp_path / "out")
    assert [w.scaffold.automation for w in written] == ["order-router", "order-router-2"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["order_router.py", "order_router_2.py"]


def test_a_switch_rule_of_several_conditions_routes_as_its_combinator_says() -> None:
    from harness.platforms.n8n.definition import parse_workflow

    rule = {"conditions": {"options": {"caseSensitive": True, "typeValidation": "loose"}, "combinator": "or",
                           "conditions": [{"leftValue": "={{ $json.title }}", "rightValue": "crash",
                                           "operator": {"type": "string", "operation": "contains"}},
                                          {"leftValue": "={{ $json.title }}", "rightValue": "bug",
                                           "operator": {"type": "string", "operation": "contains"}}]},
            "renameOutput": True, "outputKey": "bug"}
    wf = parse_workflow({"name": "t", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "parameters": {}},
        {"name": "Route", "type": "n8n-nodes-base.switch", "typeVersion": 3.2,
         "parameters": {"rules": {"values": [rule]}, "options": {"fallbackOutput": "extra", "renameFallbackOutput": "other"}}}],
        "connections": {"Start": {"main": [[{"node": "Route", "type": "main", "index": 0}]]}}}, "t.json")
    namespace: dict[str, Any] = {}
    source = build(wf, "t", {}).source.replace("@automation('t', version=1)", "")
    exec(compile(source, "gen", "exec"), namespace)
    decided = []
    for title in ("App crash", "A bug", "Crash"):
        ctx = _OfflineContext()
        asyncio.run(namespace["t"](ctx, Trigger("x", None, {}, {"title": title}, "test")))
        decided.append(ctx.decisions["route"])
    assert decided == ["bug", "bug", "other"]  # case-sensitive: "Crash" matches neither


def test_a_node_of_another_package_is_not_taken_for_the_n8n_node_of_the_same_name() -> None:
    from harness.platforms.n8n.definition import parse_workflow

    wf = parse_workflow({"name": "t", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "parameters": {}},
        {"name": "Custom", "type": "acme-nodes.set", "parameters": {"values": {"string": [{"name": "a", "value": "b"}]}}}],
        "connections": {"Start": {"main": [[{"node": "Custom", "type": "main", "index": 0}]]}}}, "t.json")
    rows = {r.node: (r.status, r.why) for r in build(wf, "t", {}).rows}
    assert rows["Custom"] == ("todo", "no translation for node type acme-nodes.set")

"""Execute Workflow callees: found in the estate by id or by cached name, scaffolded from inline JSON, or
translated as a call to a named automation that is not in the estate (which keeps the caller from being whole)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from harness.cli import cli
from harness.platforms.n8n.translate import scaffold_n8n


def _node(name: str, kind: str, x: float = 0, version: float = 1, **parameters: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [x, 0],
            "parameters": parameters}


def _chain(*names: str) -> dict[str, Any]:
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:], strict=False)}


def _caller(call: dict[str, Any], name: str = "Caller") -> dict[str, Any]:
    return {"id": "wf-caller", "name": name, "nodes": [_node("Start", "manualTrigger"), call],
            "connections": _chain("Start", call["name"])}


def _callee(wf_id: str, name: str) -> dict[str, Any]:
    return {"id": wf_id, "name": name, "nodes": [
        _node("Called", "executeWorkflowTrigger", 0, 1.1, inputSource="passthrough"), _node("Pass", "noOp", 200)],
        "connections": _chain("Called", "Pass")}


def _call(value: str, cached: str | None = None, version: float = 1.2, **extra: Any) -> dict[str, Any]:
    locator: dict[str, Any] = {"__rl": True, "value": value, "mode": "list" if cached else "id"}
    if cached:
        locator["cachedResultName"] = cached
    return _node("Call it", "executeWorkflow", 200, version, workflowId=locator, **extra)


def _scaffold(tmp_path: Path, *documents: dict[str, Any]) -> dict[str, Any]:
    estate = tmp_path / "estate"
    estate.mkdir()
    for i, document in enumerate(documents):
        (estate / f"{i}.json").write_text(json.dumps(document), encoding="utf-8")
    return {w.scaffold.automation: w.scaffold for w in scaffold_n8n(estate, automation=None, into=tmp_path / "out")}


def _row(scaffold: Any, node: str = "Call it") -> Any:
    return next(r for r in scaffold.rows if r.node == node)


def test_a_callee_exported_under_another_id_is_found_by_its_cached_name(tmp_path: Path) -> None:
    found = _scaffold(tmp_path, _caller(_call("old-id", "Lookup Customer")), _callee("new-id", "Lookup Customer"))
    caller = found["caller"]
    assert _row(caller).status == "translated" and _row(caller).why == "a child job of lookup-customer"
    assert "n8n.execute_workflow(flow, 'Call it', 'lookup-customer'" in caller.source
    assert "absent=" not in caller.source and caller.whole and not caller.missing


def test_an_absent_callee_is_a_call_of_the_automation_named_after_it_and_the_caller_is_not_whole(
        tmp_path: Path) -> None:
    caller = _scaffold(tmp_path, _caller(_call("Zx9", "Global Vars")), _callee("other", "Other"))["caller"]
    row = _row(caller)
    assert row.status == "translated" and caller.todo == 0
    assert row.why.startswith("calls automation global-vars, not in this estate (n8n workflow Zx9 (Global Vars))")
    assert "absent='Zx9 (Global Vars)'" in caller.source and "key='call-it'" in caller.source
    assert caller.missing == {"global-vars": "Zx9"} and not caller.whole
    assert caller.steps["Call it"] == "call-it"  # the node's recorded output lands under the step it reads
    refusal = caller.source.index("await n8n.require_automations(flow, ['global-vars'])")
    assert refusal < caller.source.index("# manualTrigger 'Start'")  # live: before any node runs


def test_an_absent_callee_without_a_cached_name_is_named_after_its_id(tmp_path: Path) -> None:
    caller = _scaffold(tmp_path, _caller(_call("4Ygfh", version=1.1, source="database")),
                       _callee("x", "X"))["caller"]
    assert caller.missing == {"sub-workflow-4ygfh": "4Ygfh"}


def test_a_v1_call_with_a_plain_string_id_reads_its_source_default(tmp_path: Path) -> None:
    call = _node("Call it", "executeWorkflow", 200, 1, workflowId="wf-b")  # v1: no source key: 'database'
    found = _scaffold(tmp_path, _caller(call), _callee("wf-b", "B"))
    assert _row(found["caller"]).why == "a child job of b"


def test_an_inline_workflow_is_scaffolded_as_an_automation_of_its_own(tmp_path: Path) -> None:
    inline = _callee("ignored", "Inline helper")
    call = _node("Call it", "executeWorkflow", 200, 1.2, source="parameter", workflowJson=json.dumps(inline))
    found = _scaffold(tmp_path, _caller(call))
    assert set(found) == {"caller", "inline-helper"}
    assert _row(found["caller"]).why == "a child job of inline-helper" and found["caller"].whole
    assert "await n8n.sub_return(flow)" in found["inline-helper"].source


def test_inline_json_that_is_no_workflow_is_a_todo_saying_so(tmp_path: Path) -> None:
    call = _node("Call it", "executeWorkflow", 200, 1.2, source="parameter", workflowJson='{"nodes": 3}')
    caller = _scaffold(tmp_path, _caller(call), _callee("x", "X"))["caller"]
    assert _row(caller).status == "todo" and "not an n8n workflow's JSON" in _row(caller).why


def test_continue_on_error_is_translated_and_error_output_is_a_todo(tmp_path: Path) -> None:
    regular = {**_call("wf-b"), "onError": "continueRegularOutput"}
    found = _scaffold(tmp_path, _caller(regular), _callee("wf-b", "B"))
    assert "on_error='continue'" in found["caller"].source and "version=1.2" in found["caller"].source
    erroring = {**_call("wf-b"), "onError": "continueErrorOutput"}
    (tmp_path / "estate").rename(tmp_path / "first")
    found = _scaffold(tmp_path, _caller(erroring), _callee("wf-b", "B"))
    assert _row(found["caller"]).status == "todo" and "error output" in _row(found["caller"]).why


def test_the_estate_table_and_json_list_the_missing_sub_workflows_with_the_export_command(tmp_path: Path) -> None:
    estate = tmp_path / "estate"
    estate.mkdir()
    (estate / "a.json").write_text(json.dumps(_caller(_call("Zx9", "Global Vars"))), encoding="utf-8")
    (estate / "b.json").write_text(json.dumps(_callee("wf-b", "B")), encoding="utf-8")
    out = CliRunner().invoke(cli, ["scaffold", "n8n", str(estate), "--into", str(tmp_path / "auto"), "--json",
                                   str(tmp_path / "estate.json")])
    assert out.exit_code == 0, out.output
    assert "missing sub-workflows (1)" in out.output
    assert "global-vars (n8n workflow Zx9), called by caller: n8n export:workflow --id=Zx9" in out.output
    assert "0 of 2 workflows whole" not in out.output and "1 of 2 workflows whole" in out.output
    table = json.loads((tmp_path / "estate.json").read_text())
    assert table["missing_callees"] == [{"automation": "global-vars", "workflow": "Zx9", "callers": ["caller"]}]
    assert table["totals"]["missing_callees"] == 1
    caller = next(w for w in table["workflows"] if w["automation"] == "caller")
    assert caller["whole"] is False and caller["missing"] == {"global-vars": "Zx9"}


def test_a_callee_read_from_a_file_or_url_is_named_after_it_and_the_table_says_where_to_get_it(
        tmp_path: Path) -> None:
    from harness.scaffold._estate import missing_lines

    by_file = _node("Call it", "executeWorkflow", 200, 1, source="localFile", workflowPath="/flows/Enrich Lead.json")
    by_url = _node("Call it", "executeWorkflow", 200, 1.1, source="url", workflowUrl="https://x.test/wf/notify.json")
    estate = tmp_path / "estate"
    estate.mkdir()
    (estate / "a.json").write_text(json.dumps(_caller(by_file, "A")), encoding="utf-8")
    (estate / "b.json").write_text(json.dumps({**_caller(by_url, "B"), "id": "wf-b"}), encoding="utf-8")
    written = scaffold_n8n(estate, automation=None, into=tmp_path / "out")
    missing = {n: k for w in written for n, k in w.scaffold.missing.items()}
    assert missing == {"enrich-lead": "/flows/Enrich Lead.json", "notify": "https://x.test/wf/notify.json"}
    lines = "\n".join(missing_lines(written))
    assert "copy /flows/Enrich Lead.json into the estate directory" in lines
    assert "download https://x.test/wf/notify.json into the estate directory" in lines

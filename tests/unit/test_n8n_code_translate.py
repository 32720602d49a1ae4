"""The translator keeps a Code node's JavaScript and calls the runtime; what it cannot run stays a TODO."""

from __future__ import annotations

import ast
import hashlib
from typing import Any

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import prove, run


def _workflow(code: dict[str, Any], pinned: list[dict[str, Any]] | None = None) -> Any:
    document = {
        "name": "Code flow", "nodes": [
            {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
            {"name": "Code", "typeVersion": 2, "type": "n8n-nodes-base.code", **code},
        ],
        "connections": {"Start": {"main": [[{"node": "Code", "type": "main", "index": 0}]]}},
        "pinData": {"Start": [{"json": {"name": "ada", "n": 2}}, {"json": {"name": "bob", "n": 3}}],
                    **({"Code": pinned} if pinned is not None else {})},
    }
    return parse_workflow(document, "code.json")


def _row(workflow: Any) -> tuple[str, str]:
    row = next(r for r in build(workflow, "code-flow", {}).rows if r.node == "Code")
    return row.status, row.why


def test_a_javascript_code_node_is_translated_with_its_source_kept_exactly() -> None:
    source = "// sum\nconst total = $input.all().reduce((s, i) => s + i.json.n, 0);\nreturn [{json: {total, q: \"'\\\\\"}}];"
    workflow = _workflow({"parameters": {"jsCode": source}})
    assert _row(workflow) == ("translated", "JavaScript kept")
    tree = ast.parse(build(workflow, "code-flow", {}).source)
    kept = [n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str) and getattr(n.targets[0], "id", "").endswith("_js")]
    assert kept == [source]
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "n8n.code"]
    assert [{k.arg: ast.literal_eval(k.value) for k in c.keywords} for c in calls] == [
        {"mode": "runOnceForAllItems", "kind": "code"}]


def test_the_kept_javascript_reproduces_what_n8n_pinned() -> None:
    workflow = _workflow({"parameters": {"mode": "runOnceForEachItem",
                                         "jsCode": "return {json: {greeting: `hi ${$json.name}`, twice: $json.n * 2}};"}},
                         pinned=[{"json": {"greeting": "hi ada", "twice": 4}}, {"json": {"greeting": "hi bob", "twice": 6}}])
    assert {p.node: p.outcome for p in prove(workflow)} == {"Code": "proved"}


def test_a_failing_code_node_fails_the_run_naming_the_node() -> None:
    flow, error, _ = run(_workflow({"parameters": {"jsCode": "return 5;"}}))
    assert error is not None and "Code: Code doesn't return items properly" in error


def test_code_the_sandbox_cannot_run_stays_a_todo_naming_why() -> None:
    status, why = _row(_workflow({"parameters": {"jsCode": "const fs = require('fs');\nconst c = require('crypto');\nreturn [];"}}))
    assert (status, why) == ("todo", "Code node requires 'fs': the sandbox has no Node.js module but crypto "
                                     "(no file system, no network), write this part in Python: files on the n8n host "
                                     "(fs) are read or written where the worker can reach them, with pathlib")
    status, why = _row(_workflow({"parameters": {"jsCode": "const b = await this.helpers.getBinaryDataBuffer(0, 'data');\nreturn [];"}}))
    assert (status, why) == ("todo", "Code node calls this.helpers.getBinaryDataBuffer: the sandbox gives only the HTTP "
                                     "helpers (httpRequest, request), write this part in Python")
    status, why = _row(_workflow({"parameters": {"language": "python", "pythonCode": "return _jmespath(_json, 'a')"}}))
    assert status == "todo" and "Python" in why and "_jmespath" in why


def test_crypto_buffer_and_static_data_nodes_are_translated_and_static_data_is_awaited() -> None:
    source = ("const c = require('crypto');\nconst d = $getWorkflowStaticData('global');\n"
              "d.n = (d.n || 0) + 1;\nreturn [{json: {h: c.createHash('md5').update(Buffer.from('x')).digest('hex'), n: d.n}}];")
    workflow = _workflow({"parameters": {"jsCode": source}})
    assert _row(workflow) == ("translated", "JavaScript kept")
    tree = ast.parse(build(workflow, "code-flow", {}).source)
    awaited = [ast.unparse(n.value.func) for n in ast.walk(tree) if isinstance(n, ast.Await)]
    assert awaited == ["n8n.code_static"]
    flow, error, _ = run(workflow)  # a proof's context: the static data lives for the run only
    assert error is None and flow is not None
    assert flow.outputs["Code"][0] == [{"json": {"h": hashlib.md5(b"x").hexdigest(), "n": 1}}]


def test_a_literal_return_n8n_would_refuse_is_run_not_taken_as_items() -> None:
    assert _row(_workflow({"parameters": {"jsCode": "return [{json: 1}];"}})) == ("translated", "JavaScript kept")
    assert _row(_workflow({"parameters": {"jsCode": "return [{json: {a: 1}}];"}})) == ("translated", "")


def test_legacy_function_and_function_item_nodes_are_translated() -> None:
    for node_type, source in (("function", "return items;"), ("functionItem", "item.x = 1;\nreturn item;")):
        workflow = _workflow({"type": f"n8n-nodes-base.{node_type}", "typeVersion": 1,
                              "parameters": {"functionCode": source}})
        assert _row(workflow) == ("translated", "JavaScript kept"), node_type
        flow, error, _ = run(workflow)
        assert error is None and flow is not None and len(flow.outputs["Code"][0]) == 2, node_type


def test_a_code_node_making_http_calls_is_kept_and_awaits_code_http_at_its_step() -> None:
    source = "const r = await this.helpers.httpRequest({url: 'https://api.example.com/x'});\nreturn [{json: r}];"
    workflow = _workflow({"parameters": {"jsCode": source}})
    assert _row(workflow) == ("translated", "JavaScript kept")
    tree = ast.parse(build(workflow, "code-flow", {}).source)
    calls = [n.value for n in ast.walk(tree) if isinstance(n, ast.Await)]
    assert [ast.unparse(c.func) for c in calls] == ["n8n.code_http"]
    assert {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords} == {
        "step": "code", "mode": "runOnceForAllItems", "kind": "code"}


def test_code_using_dollar_http_runs_and_meets_the_reference_error_n8n_gave() -> None:
    source = "try { await $http.request({url: 'x'}); } catch (e) { return [{json: {m: e.message, n: e.name}}]; }"
    workflow = _workflow({"parameters": {"jsCode": source}})
    assert _row(workflow) == ("translated", "JavaScript kept")
    flow, error, _ = run(workflow)
    assert error is None and flow is not None
    assert flow.outputs["Code"][0] == [{"json": {"m": "$http is not defined", "n": "ReferenceError"}}]

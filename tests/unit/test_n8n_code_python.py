"""Python Code nodes (language python): the code kept as written and run as n8n's Pyodide runs it,
with _input, _json, _('Node'), items/item, attribute and key access, and Pyodide's toJs conversion."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.translate.prove import run
from queue_core.compat._n8n_python import python_code
from queue_core.errors import NodeFailed

ITEMS = [{"json": {"a": 1, "b": "x"}}, {"json": {"a": 2}}]


class _Flow:
    def __init__(self) -> None:
        self.ctx = None
        self.outputs: dict[str, list[list[dict[str, Any]]]] = {"Fetch": [[{"json": {"id": 7}}]]}

    def emit(self, node: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.outputs[node] = [items]
        return items


def py(source: str, mode: str = "runOnceForAllItems", items: list[dict[str, Any]] | None = None) -> Any:
    return python_code(_Flow(), "Py", source, ITEMS if items is None else items, mode=mode)


def test_all_items_reads_input_by_attribute_and_by_key_and_leaves_the_input_alone() -> None:
    source = "for item in _input.all():\n  item.json.twice = item['json']['a'] * 2\nreturn _input.all()"
    assert py(source) == [{"json": {"a": 1, "b": "x", "twice": 2}}, {"json": {"a": 2, "twice": 4}}]
    assert ITEMS == [{"json": {"a": 1, "b": "x"}}, {"json": {"a": 2}}], "the upstream items are not mutated"
    assert py("return [{'json': {'n': len(items), 'first': _input.first().json.to_py(), 'other': _('Fetch').first().json.id}}]") == [
        {"json": {"n": 2, "first": {"a": 1, "b": "x"}, "other": 7}}]


def test_each_item_runs_once_per_item_with_json_index_and_item() -> None:
    got = py("return {'a': _json.a, 'i': _itemIndex, 'same': item.json == _input.item.json}", mode="runOnceForEachItem")
    assert got == [{"json": {"a": 1, "i": 0, "same": True}}, {"json": {"a": 2, "i": 1, "same": True}}]


def test_returns_convert_as_pyodide_to_js_does_none_is_undefined() -> None:
    assert py("return [{'json': {'keep': 0, 'gone': None, 'list': [None, 1]}}]") == [{"json": {"keep": 0, "list": [None, 1]}}]
    assert py("return {'x': 1}") == [{"json": {"x": 1}}]
    assert py("return [{'x': 1}, {'y': (1, 2)}]") == [{"json": {"x": 1}}, {"json": {"y": [1, 2]}}]
    with pytest.raises(NodeFailed, match=r"Py: Code doesn't return a dictionary \[item 0\].*'undefined' was returned"):
        py("return None", mode="runOnceForEachItem")


@pytest.mark.parametrize(("source", "mode", "message"), [
    ("return 5", "runOnceForAllItems", "Code doesn't return items properly: Please return an array of dictionaries"),
    ("return [1, 2]", "runOnceForAllItems", "Code doesn't return items properly"),
    ("return [{'json': 1}]", "runOnceForAllItems", "A 'json' property isn't a dictionary"),
    ("return [{'json': {}, 'extra': 1}]", "runOnceForAllItems", "Unknown top-level item key: extra"),
    ("return [1]", "runOnceForEachItem", "Code doesn't return a single dictionary .*An array of numbers"),
    ("return items", "runOnceForEachItem", "NameError: name 'items' is not defined"),
    ("return _input.all()", "runOnceForEachItem", "This is only available in 'Run Once for All Items' mode"),
    ("return _env", "runOnceForAllItems", "NameError: name '_env' is not defined"),
    ("return _('Nope').all()", "runOnceForAllItems", "Node 'Nope' hasn't been executed"),
    ("raise ValueError('stop')", "runOnceForAllItems", "Py: ValueError: stop"),
    ("x = (", "runOnceForAllItems", "SyntaxError"),
])
def test_what_n8n_refuses_fails_the_node_naming_it(source: str, mode: str, message: str) -> None:
    with pytest.raises(NodeFailed, match=message):
        py(source, mode=mode)


def test_a_python_code_node_is_translated_with_its_code_kept_and_runs_in_the_flow() -> None:
    source = "# keep my comment\nout = []\nfor item in _input.all():\n  out.append({'json': {'name': item.json.name.upper()}})\nreturn out"
    document = {
        "name": "Py flow", "nodes": [
            {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
            {"name": "Code", "type": "n8n-nodes-base.code", "typeVersion": 2,
             "parameters": {"language": "python", "pythonCode": source}}],
        "connections": {"Start": {"main": [[{"node": "Code", "type": "main", "index": 0}]]}},
        "pinData": {"Start": [{"json": {"name": "ada"}}, {"json": {"name": "bob"}}]},
    }
    workflow = parse_workflow(document, "py.json")
    scaffold = build(workflow, "py-flow", {})
    assert [(r.status, r.why) for r in scaffold.rows if r.node == "Code"] == [("translated", "Python kept")]
    kept = [n.value.value for n in ast.walk(ast.parse(scaffold.source)) if isinstance(n, ast.Assign)
            and getattr(n.targets[0], "id", "").endswith("_py")]
    assert kept == [source]
    flow, error, _ = run(workflow)
    assert error is None and flow is not None
    assert flow.outputs["Code"][0] == [{"json": {"name": "ADA"}}, {"json": {"name": "BOB"}}]
    native = dict(document, nodes=[document["nodes"][0], {**document["nodes"][1], "parameters": {
        "language": "pythonNative", "pythonCode": "return _items"}}])
    rows = build(parse_workflow(native, "native.json"), "native", {}).rows
    assert [r.status for r in rows if r.node == "Code"] == ["todo"]

"""One reading of a branching node's output names, shared by the importer, branch coverage and the scaffold.

n8n 1.123 names a Switch v3 rule's output by its ``outputKey`` only when ``renameOutput`` is on
(its Workflow drops the hidden ``outputKey``; ``NodeHelpers.getNodeOutputs`` then names the
output by its index), and reads every parameter an export leaves out at its default.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.platforms.n8n import branches
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.runs import NodeRun, branch_of, output_names
from harness.platforms.n8n.translate.nodes import Slot, switch_node

SWITCH = "n8n-nodes-base.switch"


def _rule(value: str, **extra: Any) -> dict[str, Any]:
    condition = {"leftValue": "={{ $json.a }}", "rightValue": value, "operator": {"type": "string", "operation": "equals"}}
    return {"conditions": {"conditions": [condition], "combinator": "and",
                           "options": {"caseSensitive": True, "typeValidation": "strict"}}, **extra}


KEYED = Node("Route", SWITCH, 3.2, {"rules": {"values": [
    _rule("x", outputKey="keyed"), _rule("y", renameOutput=True, outputKey="renamed"), _rule("z")]},
    "options": {"fallbackOutput": "extra"}})


def _recorded(node: Node, index: int) -> Any:
    outputs: list[list[dict[str, Any]]] = [[] for _ in output_names(node)]
    outputs[index] = [{"json": {}}]
    return branch_of(NodeRun(node.name, {"data": {"main": outputs}}, node))


def _scaffold_names(node: Node) -> list[str]:
    code = switch_node(node, Slot("route", (ast.Name("items_in", ast.Load()),), "route", "route", {}))
    source = "\n".join(ast.unparse(s) for s in code.lines if isinstance(s, ast.stmt))
    call = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "route")
    return list(ast.literal_eval(call.args[4]))


def test_a_rule_with_an_output_key_but_no_rename_is_named_by_its_index() -> None:
    assert output_names(KEYED) == ["0", "renamed", "2", "Fallback"]


def test_importer_branch_coverage_and_scaffold_name_switch_outputs_alike() -> None:
    expected = output_names(KEYED)
    assert [_recorded(KEYED, i) for i in range(len(expected))] == expected
    assert [name for _, name in branches._switch(KEYED)] == expected
    assert _scaffold_names(KEYED) == expected


def test_switch_v1_rules_omitting_their_output_use_n8ns_default_output_0() -> None:
    node = Node("Route", SWITCH, 1, {"rules": {"rules": [{"value2": 1}, {"value2": 2, "output": 2}]}})
    assert branches._switch(node) == [(0, "0"), (2, "2")]  # fallbackOutput omitted: n8n's -1, no output


def test_switch_v3_expression_mode_omitting_the_number_of_outputs_has_n8ns_four() -> None:
    node = Node("Route", SWITCH, 3, {"mode": "expression", "output": "={{ 1 }}"})
    assert output_names(node) == ["0", "1", "2", "3"]
    assert [name for _, name in branches._switch(node)] == ["0", "1", "2", "3"]
    assert _scaffold_names(node) == ["0", "1", "2", "3"]

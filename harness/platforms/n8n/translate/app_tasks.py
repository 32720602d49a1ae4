"""Asana v1 (tasks and subtasks) as n8n's Asana node calls Asana's REST API.

n8n sends every write's fields wrapped in ``{"data": …}`` (``asanaApiRequest``), and outputs the
answer's ``data`` as one item. *Task create* is ``POST /tasks`` with the name, the workspace and
the other properties as they are (``Object.assign``); *subtask create* is
``POST /tasks/<task>/subtasks`` with the name and the other properties.
"""

from __future__ import annotations

import ast

from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request
from harness.scaffold import _code

_ITEMS = _code.expr("n8n.data_items(response)")


def _settings(node: Node) -> dict[str, object]:
    return node.settings if node.described else node.parameters


def _fields(node: Node, first: list[tuple[str, object]]) -> ast.expr:
    other = _settings(node).get("otherProperties") or {}
    return _code.expr("{'data': $first | $other}", first=ast.Dict([ast.Constant(k) for k, _ in first],
                                                                       [expr.value(v) for _, v in first]),
                      other=expr.value(other))


def asana_task(node: Node) -> Request:
    """task.create: ``{data: {name, workspace, ...otherProperties}}``."""
    params = _settings(node)
    return Request(body=_fields(node, [("name", params.get("name", "")), ("workspace", params.get("workspace", ""))]),
                   items=_ITEMS)


def asana_subtask(node: Node) -> Request:
    """subtask.create: ``{data: {name, ...otherProperties}}`` to the parent task's subtasks."""
    return Request(body=_fields(node, [("name", _settings(node).get("name", ""))]), items=_ITEMS)

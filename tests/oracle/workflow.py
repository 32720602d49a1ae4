"""One conformance case, and the n8n workflow that runs it.

A case is one node under test (its type, typeVersion and parameters, exactly as an export holds
them: a parameter left out means n8n's default) and the items each of its inputs receives. n8n's
Manual Trigger cannot carry items, so every input is fed by a Code node whose JavaScript is a
literal ``return [...]`` of the items (the way the issue's measurement replaced n8n's test-only
data node); the scaffold translates such a Code node into the same literal items, so both sides
run the very same workflow file. An input given no items is a Code node returning ``[]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

START = "Start"
UNDER_TEST = "Node under test"


def input_name(index: int) -> str:
    """Return the name of the Code node feeding input ``index`` of the node under test."""
    return f"Input {index + 1}"


@dataclass(frozen=True)
class Case:
    """One generated case: a node (type, version, parameters) and the items of each of its inputs."""

    id: str  # "<short type> v<version> #<n>", unique in a session
    node_type: str  # e.g. "n8n-nodes-base.if"
    version: float
    parameters: dict[str, Any]
    inputs: list[list[dict[str, Any]]]  # one list of items' json per input index
    settings: dict[str, Any] = field(default_factory=dict)  # node settings: onError, alwaysOutputData…
    n8n: str | None = None  # the n8n version that runs it (None: runner.VERSION; runner.NEWER for newer nodes)

    @property
    def key(self) -> str:
        """Return the (node type, version) this case proves, as the conformance table names it."""
        return f"{self.node_type.rsplit('.', 1)[-1]} v{self.version:g}"

    def describe(self) -> dict[str, Any]:
        """Return the case as plain data (what the conformance table shows of a difference)."""
        return {"node": self.node_type, "typeVersion": self.version, "parameters": self.parameters,
                **({"settings": self.settings} if self.settings else {}), "inputs": self.inputs,
                **({"n8n": self.n8n} if self.n8n else {})}


def _code_node(name: str, items: list[dict[str, Any]], position: list[int]) -> dict[str, Any]:
    # JSON is a JavaScript literal; wrapping each item in {"json": …} keeps n8n from reading an
    # item's own keys (an item could hold a "json" field) as the item's envelope.
    source = "return " + json.dumps([{"json": item} for item in items], ensure_ascii=False) + ";"
    return {"name": name, "type": "n8n-nodes-base.code", "typeVersion": 2, "position": position,
            "parameters": {"jsCode": source}}


def workflow(case: Case, workflow_id: str) -> dict[str, Any]:
    """Return the n8n workflow (export format) that runs ``case``, with id ``workflow_id``."""
    if case.node_type == "n8n-nodes-base.splitInBatches":  # a loop: a workflow of its own shape
        from tests.oracle.loops import loop_workflow

        return loop_workflow(case, workflow_id)
    nodes: list[dict[str, Any]] = [{"name": START, "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1,
                                    "position": [0, 0], "parameters": {}}]
    connections: dict[str, Any] = {START: {"main": [[]]}}
    for index, items in enumerate(case.inputs):
        name = input_name(index)
        nodes.append(_code_node(name, items, [200, 200 * index]))
        connections[START]["main"][0].append({"node": name, "type": "main", "index": 0})
        connections[name] = {"main": [[{"node": UNDER_TEST, "type": "main", "index": index}]]}
    version = int(case.version) if case.version == int(case.version) else case.version
    nodes.append({"name": UNDER_TEST, "type": case.node_type, "typeVersion": version, "position": [400, 0],
                  "parameters": case.parameters, **case.settings})
    return {"id": workflow_id, "name": f"oracle {case.id}", "active": False, "nodes": nodes,
            "connections": connections, "settings": {"executionOrder": "v1"}, "pinData": {}}

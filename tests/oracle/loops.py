"""The loop cases: SplitInBatches ("Loop Over Items") v1–v3 run in a loop, drawn apart from the node cases.

A loop needs a workflow of its own shape, so these cases are enumerated here (not drawn with
Hypothesis, nothing to pin) and :func:`loop_workflow` builds their workflow: the items of input 1
reach the SplitInBatches node under test; its loop output feeds an IF that passes on the items not
yet ``visited`` (an IF's true output) and an Edit Fields node that marks them, which connects back to the node under
test; its done output (v2, v3) feeds a NoOp. Every batch size (1, 2, more than the items, left
to n8n's default), empty input, and the Reset option (with it the marked items come back as new
ones, and the IF ends the loop) for each version.
"""

from __future__ import annotations

import json
from typing import Any

from tests.oracle.workflow import START, UNDER_TEST, Case, input_name

SPLIT_IN_BATCHES = "n8n-nodes-base.splitInBatches"
VERSIONS = (1, 2, 3)
BATCH_SIZES = (1, 2, 10, None)  # None: left out (n8n's default: 10 for v1/v2, 1 for v3)
ITEM_COUNTS = (0, 1, 3, 5)
FILTER, MARK, AFTER = "Not visited", "Mark visited", "After loop"


def split_in_batches_cases() -> list[Case]:
    """Return every SplitInBatches case, in a fixed order."""
    cases = []
    for version in VERSIONS:
        number = 0
        for size in BATCH_SIZES:
            for count in ITEM_COUNTS:
                for reset in (None, True):
                    number += 1
                    params: dict[str, Any] = {"options": {"reset": True} if reset else {}}
                    if size is not None:
                        params["batchSize"] = size
                    items = [{"a": index, "b": f"item {index}"} for index in range(count)]
                    cases.append(Case(f"splitInBatches v{version} #{number}", SPLIT_IN_BATCHES, float(version),
                                      params, [items]))
    return cases


def _node(name: str, kind: str, version: float, position: list[int], parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": position,
            "parameters": parameters}


def _to(node: str) -> list[dict[str, Any]]:
    return [{"node": node, "type": "main", "index": 0}]


def loop_workflow(case: Case, workflow_id: str) -> dict[str, Any]:
    """Return the n8n workflow (export format) that runs the loop ``case``, with id ``workflow_id``."""
    (items,) = case.inputs
    code = "return " + json.dumps([{"json": item} for item in items]) + ";"
    not_visited = {"conditions": {
        "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2},
        "conditions": [{"id": "c1", "leftValue": "={{ $json.visited }}", "rightValue": "",
                        "operator": {"type": "boolean", "operation": "notExists", "singleValue": True}}],
        "combinator": "and"}, "options": {}}
    mark = {"assignments": {"assignments": [{"id": "s1", "name": "visited", "value": True, "type": "boolean"}]},
            "includeOtherFields": True, "options": {}}
    version = int(case.version)
    nodes = [_node(START, "manualTrigger", 1, [0, 0], {}),
             _node(input_name(0), "code", 2, [200, 0], {"jsCode": code}),
             _node(UNDER_TEST, "splitInBatches", version, [400, 0], case.parameters),
             _node(FILTER, "if", 2.2, [600, 200], not_visited),
             _node(MARK, "set", 3.4, [800, 200], mark)]
    # v3: output 0 is "done", output 1 "loop"; v2 the other way round; v1 has the loop output only
    outputs: list[list[dict[str, Any]]] = [[], []] if version >= 2 else [[]]
    outputs[1 if version >= 3 else 0] = _to(FILTER)
    if version >= 2:
        nodes.append(_node(AFTER, "noOp", 1, [600, -200], {}))
        outputs[0 if version >= 3 else 1] = _to(AFTER)
    connections = {START: {"main": [_to(input_name(0))]}, input_name(0): {"main": [_to(UNDER_TEST)]},
                   UNDER_TEST: {"main": outputs}, FILTER: {"main": [_to(MARK)]}, MARK: {"main": [_to(UNDER_TEST)]}}
    return {"id": workflow_id, "name": f"oracle {case.id}", "active": False, "nodes": nodes,
            "connections": connections, "settings": {"executionOrder": "v1"}, "pinData": {}}

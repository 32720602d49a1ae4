"""Loops of n8n workflows: the plan that finds them, the runtime that runs them, the code that is generated."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.definition import Loop, parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core import registry as registry_module
from queue_core.compat import n8n
from queue_core.context import Trigger
from queue_core.errors import NodeFailed
from queue_core.registry import Registry


def _node(name: str, kind: str, x: float = 0, y: float = 0, version: float = 1, **params: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [x, y],
            "parameters": params}


def _to(*targets: str) -> list[dict[str, Any]]:
    return [{"node": t, "type": "main", "index": 0} for t in targets]


def _items_code(name: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return _node(name, "code", 200, version=2, jsCode="return " + json.dumps([{"json": i} for i in items]) + ";")


def loop_over_items(version: int, batch: int, count: int, *, reset: bool = False) -> dict[str, Any]:
    """Start → Items → Loop (SplitInBatches) ⇄ Mark (Set, back to Loop); Loop's done → After."""
    mark = _node("Mark", "set", 600, 200, 3.4, includeOtherFields=True, assignments={"assignments": [
        {"id": "1", "name": "seen", "value": True, "type": "boolean"}]})
    nodes = [_node("Start", "manualTrigger"), _items_code("Items", [{"n": i} for i in range(count)]),
             _node("Loop", "splitInBatches", 400, 0, version, batchSize=batch, options={"reset": reset}), mark,
             _node("After", "noOp", 600, -200)]
    outputs: list[list[dict[str, Any]]] = [[], []] if version >= 2 else [[]]
    outputs[1 if version >= 3 else 0] = _to("Mark")
    if version >= 2:
        outputs[0 if version >= 3 else 1] = _to("After")
    return {"name": "Loop test", "nodes": nodes, "connections": {
        "Start": {"main": [_to("Items")]}, "Items": {"main": [_to("Loop")]}, "Loop": {"main": outputs},
        "Mark": {"main": [_to("Loop")]}}}


class _Offline:
    def __init__(self) -> None:
        self.n8n_flows: list[Any] = []
        self.decisions: dict[str, Any] = {}
        self.sleeps: list[float] = []

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def run(document: dict[str, Any], name: str = "loop-test") -> tuple[Any, _Offline, Any]:
    scaffold = build(parse_workflow(document, "loop.json"), name, {})
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        namespace: dict[str, Any] = {}
        exec(compile(scaffold.source, "loop.py", "exec"), namespace)
        function = registry_module.default_registry.get(name).fn
    finally:
        registry_module.default_registry = saved
    ctx = _Offline()
    asyncio.run(function(ctx, Trigger("t", None, {}, {}, "test")))
    return scaffold, ctx, ctx.n8n_flows[0]


def test_a_loop_over_items_is_planned_as_a_loop_headed_by_the_split_in_batches_node() -> None:
    plan = parse_workflow(loop_over_items(3, 2, 3), "loop.json").plan()
    assert plan[:2] == ["Start", "Items"]
    loop = plan[2]
    assert isinstance(loop, Loop) and loop.header == "Loop" and loop.body == ("Mark",)
    assert [e.source for e in loop.back] == ["Mark"] and plan[3:] == ["After"]


def test_a_cycle_inside_a_cycle_is_a_nested_loop() -> None:
    # A → B → C → B (inner) and C → A (outer); the trigger enters at A
    document = {"name": "Nested", "nodes": [_node("Start", "manualTrigger"), _node("A", "noOp", 200),
                                            _node("B", "noOp", 400), _node("C", "noOp", 600)],
                "connections": {"Start": {"main": [_to("A")]}, "A": {"main": [_to("B")]}, "B": {"main": [_to("C")]},
                                "C": {"main": [_to("B", "A")]}}}
    (start, outer) = parse_workflow(document, "nested.json").plan()
    assert start == "Start" and isinstance(outer, Loop) and outer.header == "A"
    (inner,) = outer.body
    assert isinstance(inner, Loop) and inner.header == "B" and inner.body == ("C",)


@pytest.mark.parametrize(("batch", "count", "runs"), [(1, 3, 4), (2, 3, 3), (10, 3, 2), (2, 0, 0)])
def test_split_in_batches_v3_outputs_every_processed_item_on_done_once_the_input_is_exhausted(
        batch: int, count: int, runs: int) -> None:
    scaffold, _, flow = run(loop_over_items(3, batch, count))
    assert scaffold.todo == 0
    assert len(flow.runs.get("Loop", [])) == runs  # one run per batch, then the run that outputs done
    if count:
        assert flow.outputs["After"] == [[{"json": {"n": i, "seen": True}} for i in range(count)]]
        assert [len(r[1]) for r in flow.runs["Loop"]] == [min(batch, count - i) for i in range(0, count, batch)] + [0]
        assert len(flow.runs["Mark"]) == runs - 1
    else:  # nothing reached the loop: n8n does not run it, nor what follows it
        assert "After" not in flow.outputs


def test_split_in_batches_v2_has_the_loop_output_first_and_v1_no_done_output() -> None:
    _, _, flow = run(loop_over_items(2, 2, 3))
    assert flow.outputs["Loop"] == [[], [{"json": {"n": i, "seen": True}} for i in range(3)]]
    assert flow.outputs["After"][0][2] == {"json": {"n": 2, "seen": True}}
    _, _, flow = run(loop_over_items(1, 2, 3))
    # v1 with nothing left outputs no data: its last recorded run is the last batch
    assert flow.runs["Loop"] == [[[{"json": {"n": 0}}, {"json": {"n": 1}}]], [[{"json": {"n": 2}}]]]


def test_reset_takes_the_items_that_come_back_as_new_items() -> None:
    state = n8n.loop(_Recorder(), "Loop", batch_size=2, reset=True, version=3)
    assert state.batches([{"json": {"n": 1}}, {"json": {"n": 2}}, {"json": {"n": 3}}])[1] == [{"json": {"n": 1}},
                                                                                           {"json": {"n": 2}}]
    # with Reset every run starts anew: what came back is the input, the processed ones are forgotten
    assert state.batches([{"json": {"n": 9}}]) == [[], [{"json": {"n": 9}}]]
    assert state.batches([]) == [[], []]


def test_without_reset_later_runs_ignore_their_input_for_the_batch_and_collect_it_as_processed() -> None:
    state = n8n.loop(_Recorder(), "Loop", batch_size=2, version=3)
    assert state.batches([{"json": {"n": 1}}, {"json": {"n": 2}}, {"json": {"n": 3}}])[1] == [{"json": {"n": 1}},
                                                                                           {"json": {"n": 2}}]
    assert state.batches([{"json": {"x": 1}}]) == [[], [{"json": {"n": 3}}]]
    assert state.no_items_left
    assert state.batches([{"json": {"x": 2}}]) == [[{"json": {"x": 1}}, {"json": {"x": 2}}], []]


class _Recorder:
    def __init__(self) -> None:
        self.recorded: list[tuple[str, Any]] = []

    def record(self, node: str, outputs: Any, kind: str = "node") -> None:
        self.recorded.append((node, outputs))


def test_the_loop_guard_fails_naming_the_node_past_its_iterations() -> None:
    guard = n8n.loop(_Recorder(), "Poll status", max_iterations=3)
    assert [guard.again([{"json": {}}]) for _ in range(3)] == [True, True, True]
    assert guard.again([]) is False
    with pytest.raises(NodeFailed, match="Poll status: the loop ran 3 times"):
        guard.again([{"json": {}}])


def test_a_batch_size_that_is_not_a_number_fails_naming_the_node() -> None:
    with pytest.raises(NodeFailed, match="Loop: Batch Size must be a number"):
        n8n.loop(_Recorder(), "Loop", batch_size="={{ $json.size }}").batches([{"json": {}}])  # type: ignore[arg-type]


def poll_loop() -> dict[str, Any]:
    """Start → Count (n: 0) → Wait → Bump (n + 1) → Done? (n >= 2): true → Finished, false → back to Wait."""
    bump = _node("Bump", "set", 600, 0, 3.4, includeOtherFields=True, assignments={"assignments": [
        {"id": "1", "name": "n", "value": "={{ $json.n + 1 }}", "type": "number"}]})
    done = _node("Done?", "if", 800, 0, 2.2, conditions={
        "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2},
        "conditions": [{"id": "c", "leftValue": "={{ $json.n }}", "rightValue": 2,
                        "operator": {"type": "number", "operation": "gte"}}], "combinator": "and"}, options={})
    nodes = [_node("Start", "manualTrigger"), _items_code("Count", [{"n": 0}]),
             _node("Wait", "wait", 400, 0, 1.1, amount=5, unit="seconds"), bump, done, _node("Finished", "noOp", 1000)]
    return {"name": "Poll", "nodes": nodes, "connections": {
        "Start": {"main": [_to("Count")]}, "Count": {"main": [_to("Wait")]}, "Wait": {"main": [_to("Bump")]},
        "Bump": {"main": [_to("Done?")]}, "Done?": {"main": [_to("Finished"), _to("Wait")]}}}


def test_a_connection_back_to_an_earlier_node_runs_the_cycle_until_no_item_comes_back() -> None:
    scaffold, ctx, flow = run(poll_loop(), "poll")
    assert scaffold.todo == 0, [r for r in scaffold.rows if r.status == "todo"]
    assert "while wait_loop.again(wait_in):" in scaffold.source
    assert ctx.sleeps == [5, 5]  # the Wait ran in each of the two iterations
    assert [run[0] for run in flow.runs["Bump"]] == [[{"json": {"n": 1}}], [{"json": {"n": 2}}]]
    assert flow.outputs["Finished"] == [[{"json": {"n": 2}}]] and len(flow.runs["Finished"]) == 1


def test_a_merge_that_heads_a_loop_from_two_inputs_is_a_todo_not_a_guess() -> None:
    document = {"name": "Merge loop", "nodes": [
        _node("Start", "manualTrigger"), _items_code("Items", [{"n": 0}]),
        _node("Join", "merge", 400, 0, 3), _node("Again", "noOp", 600)],
        "connections": {"Start": {"main": [_to("Items")]}, "Items": {"main": [_to("Join")]},
                        "Join": {"main": [_to("Again")]},
                        "Again": {"main": [[{"node": "Join", "type": "main", "index": 1}]]}}}
    scaffold = build(parse_workflow(document, "merge-loop.json"), "merge-loop", {})
    row = next(r for r in scaffold.rows if r.node == "Join")
    assert row.status == "todo" and "several inputs" in row.why

"""An n8n Execute Workflow node, scaffolded with its callee, runs the callee as a child job on the real
queue: items in (with the node's field mapping) and the callee's last node's items out, once or per item,
waited for or not."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core import JobSpec, Queue, db
from queue_core.registry import Registry
from tests.support.scaffolded import registry_of, worker_running


def _node(name: str, kind: str, version: float, parameters: dict[str, Any], x: int) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [x, 0],
            "parameters": parameters}


def _chain(*names: str) -> dict[str, Any]:
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:])}


def _set(name: str, field: str, value: str, x: int) -> dict[str, Any]:
    return _node(name, "set", 3.4, {"assignments": {"assignments": [
        {"id": field, "name": field, "value": value, "type": "string"}]}, "includeOtherFields": True}, x)


def _estate(tmp_path: Path, names: list[dict[str, Any]], *, mode: str = "once", wait: bool = True) -> Path:
    estate = tmp_path / "estate"
    estate.mkdir()
    call = _node("Ask callee", "executeWorkflow", 1.3, {
        "workflowId": {"__rl": True, "value": "wf-callee", "mode": "list", "cachedResultName": "Callee"},
        "workflowInputs": {"mappingMode": "defineBelow", "value": {"greeting": "={{ 'hi ' + $json.name }}"}},
        "mode": mode, **({} if wait else {"options": {"waitForSubWorkflow": False}})}, 200)
    data = {"name": "Data", "type": "n8n-nodes-testing.testData", "typeVersion": 1, "position": [100, 0],
            "parameters": {"data": names}}
    caller = {"id": "wf-caller", "name": "Caller", "nodes": [
        _node("Start", "manualTrigger", 1, {}, 0), data, call, _set("After", "after", "yes", 400)],
        "connections": _chain("Start", "Data", "Ask callee", "After")}
    callee = {"id": "wf-callee", "name": "Callee", "nodes": [
        _node("Called", "executeWorkflowTrigger", 1.1, {"inputSource": "passthrough"}, 0),
        _set("Shout", "shout", "={{ $json.greeting.toUpperCase() }}", 200)],
        "connections": _chain("Called", "Shout")}
    (estate / "caller.json").write_text(json.dumps(caller))
    (estate / "callee.json").write_text(json.dumps(callee))
    return estate


def _registry(into: Path) -> Registry:
    return registry_of(sorted(into.glob("*.py")), "sub")


async def _run(url: str, registry: Registry, payload: dict[str, Any], mode: str = "dry_run") -> tuple[Any, list[tuple]]:
    async with db.pool(url, max_size=6) as pool:
        job = await Queue(pool, registry=registry).enqueue(JobSpec("caller", payload, mode=mode))
        async with worker_running(pool, registry, concurrency=4):
            deadline = time.monotonic() + 30
            while True:
                async with pool.connection() as conn:
                    children = await (await conn.execute(
                        "SELECT status::text, payload FROM jobs WHERE parent_id = %s ORDER BY created_at", (job,))).fetchall()
                    (state,) = await (await conn.execute("SELECT status::text FROM jobs WHERE id = %s", (job,))).fetchone()
                if state in ("succeeded", "failed", "dead") and all(c[0] == "succeeded" for c in children):
                    break
                assert time.monotonic() < deadline, f"timed out: caller {state}, children {children}"
                await asyncio.sleep(0.05)
        async with pool.connection() as conn:
            if mode == "live":  # a live job keeps no trace: what its children returned is in its wait's step
                (state,) = await (await conn.execute("SELECT status::text FROM jobs WHERE id = %s", (job,))).fetchone()
                (waited,) = await (await conn.execute("SELECT output FROM steps WHERE job_id = %s AND step_name = "
                                                      "'children:0'", (job,))).fetchone()
                return {"status": state, "children": waited["children"]}, children
            (trace,) = await (await conn.execute("SELECT trace FROM decisions WHERE job_id = %s", (job,))).fetchone()
        return trace, children


def test_a_sub_workflow_call_is_a_child_job_whose_last_node_gives_the_items(tmp_path: Path, fresh_db_url: str) -> None:
    into = tmp_path / "automations"
    scaffold_n8n(_estate(tmp_path, [{"name": "ada"}, {"name": "bob"}]), automation=None, into=into)
    source = (into / "caller.py").read_text()
    assert "n8n.execute_workflow(flow, 'Ask callee', 'callee'" in source
    assert "await n8n.sub_return(flow)" in (into / "callee.py").read_text()
    trace, children = asyncio.run(_run(fresh_db_url, _registry(into), {}))
    assert trace["status"] == "succeeded"
    assert [c[1] for c in children] == [
        {"n8n_items": [{"name": "ada", "greeting": "hi ada"}, {"name": "bob", "greeting": "hi bob"}]}]
    assert trace["nodes"]["Ask callee"] == [[{"name": "ada", "greeting": "hi ada", "shout": "HI ADA"},
                                             {"name": "bob", "greeting": "hi bob", "shout": "HI BOB"}]]
    assert [i["after"] for i in trace["nodes"]["After"][0]] == ["yes", "yes"]


def test_a_live_child_returns_its_items_through_its_returned_step(tmp_path: Path, fresh_db_url: str) -> None:
    into = tmp_path / "automations"
    scaffold_n8n(_estate(tmp_path, [{"name": "ada"}]), automation=None, into=into)
    state, children = asyncio.run(_run(fresh_db_url, _registry(into), {}, mode="live"))
    assert state["status"] == "succeeded" and [c[0] for c in children] == ["succeeded"]
    (child,) = state["children"]
    assert child["returned"] == [{"json": {"name": "ada", "greeting": "hi ada", "shout": "HI ADA"}}]


def test_mode_each_runs_one_child_per_item_and_keeps_item_order(tmp_path: Path, fresh_db_url: str) -> None:
    into = tmp_path / "automations"
    scaffold_n8n(_estate(tmp_path, [{"name": "ada"}, {"name": "bob"}, {"name": "cy"}], mode="each"),
                 automation=None, into=into)
    trace, children = asyncio.run(_run(fresh_db_url, _registry(into), {}))
    assert len(children) == 3 and all(len(c[1]["n8n_items"]) == 1 for c in children)
    assert [i["shout"] for i in trace["nodes"]["Ask callee"][0]] == ["HI ADA", "HI BOB", "HI CY"]


def test_without_waiting_the_node_outputs_its_input_and_the_child_still_runs(tmp_path: Path, fresh_db_url: str) -> None:
    into = tmp_path / "automations"
    scaffold_n8n(_estate(tmp_path, [{"name": "ada"}], wait=False), automation=None, into=into)
    trace, children = asyncio.run(_run(fresh_db_url, _registry(into), {}))
    assert trace["nodes"]["Ask callee"] == [[{"name": "ada"}]]
    assert [c[0] for c in children] == ["succeeded"]


@pytest.mark.parametrize(("workflow_id", "reason"), [
    ({"__rl": True, "value": "={{ $json.wf }}", "mode": "id"}, "the sub-workflow is chosen at run time"),
    ("={{ $json.id }}", "the sub-workflow is chosen at run time"),
])
def test_a_callee_that_cannot_be_named_is_a_todo_with_the_reason(tmp_path: Path, workflow_id: Any, reason: str) -> None:
    from harness.platforms.n8n.definition import parse_workflow
    from harness.platforms.n8n.translate.module import build

    wf = parse_workflow({"name": "C", "nodes": [
        _node("Start", "manualTrigger", 1, {}, 0), _node("Call", "executeWorkflow", 1, {"workflowId": workflow_id}, 200)],
        "connections": _chain("Start", "Call")}, "c.json")
    scaffold = build(wf, "c", {}, {"wf-callee": "callee"})
    (row,) = [r for r in scaffold.rows if r.node == "Call"]
    assert row.status == "todo" and reason in row.why


def test_a_trigger_with_declared_fields_keeps_those_a_missing_one_null() -> None:
    from queue_core.compat.n8n import sub_inputs
    from queue_core.context import Trigger

    trigger = Trigger(None, None, {}, {"n8n_items": [{"a": 1, "b": 2}, {"b": 3}]}, "child")
    assert sub_inputs(trigger, ["a"]) == [{"json": {"a": 1}}, {"json": {"a": None}}]
    assert sub_inputs(trigger) == [{"json": {"a": 1, "b": 2}}, {"json": {"b": 3}}]

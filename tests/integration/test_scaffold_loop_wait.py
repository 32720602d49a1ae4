"""A Wait inside a scaffolded n8n loop is a durable wait: each iteration's sleep is its own step, on real Postgres."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core import JobSpec, Queue, Worker, WorkerConfig, db
from queue_core import registry as registry_module
from queue_core.registry import Registry
from tests.support.polling import sql


def _node(name: str, kind: str, x: float, version: float = 1, **params: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [x, 0],
            "parameters": params}


def _to(node: str) -> list[dict[str, Any]]:
    return [{"node": node, "type": "main", "index": 0}]


# Start → Items (3) → Loop Over Items (batch 1) ⇄ Pause (Wait 0.2 s); done → Finished
WORKFLOW = {"name": "Paced loop", "nodes": [
    _node("Start", "manualTrigger", 0),
    _node("Items", "code", 200, 2, jsCode="return " + json.dumps([{"json": {"n": i}} for i in range(3)]) + ";"),
    _node("Loop Over Items", "splitInBatches", 400, 3, batchSize=1, options={}),
    _node("Pause", "wait", 600, 1.1, amount=0.2, unit="seconds"),
    _node("Finished", "noOp", 600)],
    "connections": {"Start": {"main": [_to("Items")]}, "Items": {"main": [_to("Loop Over Items")]},
                    "Loop Over Items": {"main": [_to("Finished"), _to("Pause")]},
                    "Pause": {"main": [_to("Loop Over Items")]}}}


def _registry() -> Registry:
    scaffold = build(parse_workflow(WORKFLOW, "paced.json"), "paced-loop", {})
    assert scaffold.todo == 0, scaffold.rows
    saved = registry_module.default_registry
    registry_module.default_registry = registry = Registry()
    try:
        exec(compile(scaffold.source, "paced_loop.py", "exec"), {})
    finally:
        registry_module.default_registry = saved
    return registry


async def _run_to_the_end(pool: Any, registry: Registry, queue: Queue, job_id: Any) -> dict[str, Any]:
    for _ in range(3):  # one wait per item: the job releases its worker each time
        await asyncio.wait_for(Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05))
                               .run(drain=True), 30)
        assert (await queue.get(job_id))["status"] == "waiting"
        await asyncio.sleep(0.3)
    await asyncio.wait_for(Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05))
                           .run(drain=True), 30)
    return await queue.get(job_id)


async def test_each_iterations_wait_is_a_durable_step_of_its_own_and_the_loop_resumes_after_it(fresh_db_url: str) -> None:
    registry = _registry()
    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("paced-loop", {}))
        job = await _run_to_the_end(pool, registry, queue, job_id)
        assert job["status"] == "succeeded", job["last_error"]
        steps = sql(fresh_db_url, "SELECT step_name, occurrence, status::text FROM steps WHERE job_id = %s "
                                  "ORDER BY occurrence", (job_id,))
        assert steps == [("sleep", 0, "done"), ("sleep", 1, "done"), ("sleep", 2, "done")]


async def test_a_shadow_run_of_the_loop_traces_each_nodes_latest_run(fresh_db_url: str) -> None:
    registry = _registry()
    async with db.pool(fresh_db_url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("paced-loop", {}, mode="shadow"))
        # a replay does not pace: its clock stands at the trigger's time, so each Wait is a sleep of no time
        await asyncio.wait_for(Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05))
                               .run(drain=True), 30)
        job = await queue.get(job_id)
        assert job["status"] == "succeeded", job["last_error"]
        trace = await queue.trace(job_id)
        assert trace is not None
        # the trace keeps each node's latest run, as cutover import n8n keeps n8n's last runData entry
        assert trace["nodes"]["Finished"] == [[{"n": 0}, {"n": 1}, {"n": 2}]]
        assert trace["nodes"]["Loop Over Items"] == [[{"n": 0}, {"n": 1}, {"n": 2}], []]

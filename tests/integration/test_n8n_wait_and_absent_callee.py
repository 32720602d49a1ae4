"""On the real queue: a Wait resumed by a call waits durably for its token and outputs the call's body; an
Execute Workflow whose callee is not in the estate is answered from the recording in shadow and refused live;
an Execution Data node's custom data lands in the job's ledger."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core import JobSpec, Queue, db
from queue_core._waits import make_token
from queue_core.gateway import Gateway, RecordedResponse
from queue_core.registry import Registry
from queue_core.store import waits
from tests.support.scaffolded import registry_of, worker_running


def _node(name: str, kind: str, version: float, parameters: dict[str, Any], x: int) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [x, 0],
            "parameters": parameters}


def _chain(*names: str) -> dict[str, Any]:
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:])}


def _scaffold(tmp_path: Path, name: str, *middle: dict[str, Any]) -> Registry:
    estate = tmp_path / "estate"
    estate.mkdir()
    data = _node("Data", "set", 3.4, {"assignments": {"assignments": [
        {"id": "n", "name": "n", "value": "ada", "type": "string"}]}}, 100)
    nodes = [_node("Start", "manualTrigger", 1, {}, 0), data, *middle]
    workflow = {"id": f"wf-{name}", "name": name, "nodes": nodes,
                "connections": _chain(*[n["name"] for n in nodes])}
    (estate / f"{name}.json").write_text(json.dumps(workflow))
    other = {"id": "wf-other", "name": "Other", "nodes": [_node("Go", "manualTrigger", 1, {}, 0)], "connections": {}}
    (estate / "other.json").write_text(json.dumps(other))  # an estate of two: the callee is in neither
    into = tmp_path / "automations"
    scaffold_n8n(estate, automation=None, into=into)
    return registry_of(sorted(into.glob("*.py")), f"wait_{name}_{tmp_path.name}")


async def _final(pool: Any, job: Any, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while True:
        async with pool.connection() as conn:
            (state,) = await (await conn.execute("SELECT status::text FROM jobs WHERE id = %s", (job,))).fetchone()
        if state in ("succeeded", "failed", "dead"):
            return str(state)
        assert time.monotonic() < deadline, f"job still {state}"
        await asyncio.sleep(0.05)


async def _one(pool: Any, sql: str, *args: Any) -> Any:
    async with pool.connection() as conn:
        row = await (await conn.execute(sql, args)).fetchone()
    return row[0] if row else None


def test_a_wait_resumed_by_a_call_waits_for_its_token_and_outputs_the_calls_body(tmp_path: Path,
                                                                                  fresh_db_url: str) -> None:
    hold = _node("Hold", "wait", 1.1, {"resume": "webhook", "httpMethod": "POST"}, 200)
    registry = _scaffold(tmp_path, "held", hold, _node("After", "noOp", 1, {}, 300))

    async def scenario() -> tuple[str, str, Any]:
        async with db.pool(fresh_db_url, max_size=6) as pool:
            queue = Queue(pool, registry=registry)
            job = await queue.enqueue(JobSpec("held", {}, mode="live"))
            async with worker_running(pool, registry):
                deadline = time.monotonic() + 20
                while await _one(pool, "SELECT status::text FROM jobs WHERE id = %s", job) != "waiting":
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.05)
                waiting = await _one(pool, "SELECT status::text FROM jobs WHERE id = %s", job)
                token = make_token(await waits.wait_secret(pool), job, "hold#0").token
                assert await queue.resolve_token(token, decision="approve", payload={"done": 7}, actor="test")
                state = await _final(pool, job)
            output = await _one(pool, "SELECT output FROM steps WHERE job_id = %s AND step_name = 'token:hold#0'", job)
        return waiting, state, output

    waiting, state, output = asyncio.run(scenario())
    assert (waiting, state) == ("waiting", "succeeded")
    assert output == {"decision": "approve", "payload": {"done": 7}}


def test_an_absent_callee_is_answered_from_the_recording_in_shadow_and_refused_live(tmp_path: Path,
                                                                                    fresh_db_url: str) -> None:
    call = _node("Ask", "executeWorkflow", 1.2, {"workflowId": {
        "__rl": True, "value": "gone", "mode": "list", "cachedResultName": "Global Vars"}}, 200)
    registry = _scaffold(tmp_path, "asker", call, _node("After", "noOp", 1, {}, 300))
    seen: list[str] = []

    def recording(automation: str, trigger_id: str | None, step: str, request: Any) -> RecordedResponse | None:
        seen.append(step)
        return RecordedResponse(json=[{"env": "prod"}, {"env": "dev"}]) if step == "ask" else None

    async def scenario() -> tuple[str, Any, str, str]:
        async with db.pool(fresh_db_url, max_size=6) as pool, Gateway({}, pool, response_source=recording) as gw:
            queue = Queue(pool, registry=registry)
            shadow = await queue.enqueue(JobSpec("asker", {}, mode="shadow", trigger_id="t-1"))
            live = await queue.enqueue(JobSpec("asker", {}, mode="live"))
            from queue_core import Worker, WorkerConfig

            worker = Worker(pool, registry, WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05), gateway=gw)
            task = asyncio.create_task(worker.run())
            try:
                shadow_state, live_state = await _final(pool, shadow), await _final(pool, live)
            finally:
                worker.stop()
                await asyncio.wait_for(task, 15)
            trace = await _one(pool, "SELECT trace FROM decisions WHERE job_id = %s", shadow)
            error = await _one(pool, "SELECT last_error FROM jobs WHERE id = %s", live)
            children = await _one(pool, "SELECT count(*) FROM jobs WHERE parent_id = %s", live)
        assert children == 0
        return shadow_state, trace, live_state, error

    shadow_state, trace, live_state, error = asyncio.run(scenario())
    assert shadow_state == "succeeded" and "ask" in seen
    assert trace["nodes"]["Ask"] == [[{"env": "prod"}, {"env": "dev"}]]
    assert trace["nodes"]["After"] == [[{"env": "prod"}, {"env": "dev"}]]
    assert live_state in ("failed", "dead")
    assert "this workflow calls automation(s) 'global-vars' (sub-workflows not in its scaffolded estate), which are " \
        "not deployed" in error


def test_execution_data_sets_custom_data_in_the_ledger_and_passes_the_items(tmp_path: Path, fresh_db_url: str) -> None:
    save = _node("Save", "executionData", 1.1, {"dataToSave": {"values": [
        {"key": "who", "value": "={{ $json.n }}"}, {"key": "empty"}]}}, 200)
    registry = _scaffold(tmp_path, "saver", save)

    async def scenario() -> tuple[str, Any, Any]:
        async with db.pool(fresh_db_url, max_size=6) as pool:
            job = await Queue(pool, registry=registry).enqueue(JobSpec("saver", {}, mode="dry_run"))
            async with worker_running(pool, registry):
                state = await _final(pool, job)
            detail = await _one(pool, "SELECT detail FROM ledger WHERE job_id = %s AND kind = 'n8n_custom_data'", job)
            trace = await _one(pool, "SELECT trace FROM decisions WHERE job_id = %s", job)
        return state, detail, trace

    state, detail, trace = asyncio.run(scenario())
    assert state == "succeeded"
    assert detail == {"node": "Save", "set": {"who": "ada", "empty": ""}, "data": {"who": "ada", "empty": ""}}
    assert trace["nodes"]["Save"] == [[{"n": "ada"}]]


def test_once_the_absent_callee_is_deployed_a_live_call_is_a_child_job_of_it(tmp_path: Path, fresh_db_url: str) -> None:
    from queue_core import automation
    from queue_core.context import RETURNED_STEP

    call = _node("Ask", "executeWorkflow", 1.2, {"workflowId": {
        "__rl": True, "value": "gone", "mode": "list", "cachedResultName": "Global Vars"}}, 200)
    registry = _scaffold(tmp_path, "asker", call)

    @automation("global-vars", version=1, registry=registry)
    async def global_vars(ctx: Any, trigger: Any) -> None:  # written by hand, deployed after the scaffold
        await ctx.step(RETURNED_STEP, lambda: [{"json": {"env": "prod", "asked": len(trigger.body["n8n_items"])}}])

    async def scenario() -> tuple[str, Any, Any]:
        async with db.pool(fresh_db_url, max_size=6) as pool:
            job = await Queue(pool, registry=registry).enqueue(JobSpec("asker", {}, mode="live"))
            async with worker_running(pool, registry, concurrency=3):
                state = await _final(pool, job)
            child = await _one(pool, "SELECT automation FROM jobs WHERE parent_id = %s", job)
            waited = await _one(pool, "SELECT output FROM steps WHERE job_id = %s AND step_name = 'children:0'", job)
        return state, child, waited

    state, child, waited = asyncio.run(scenario())
    assert (state, child) == ("succeeded", "global-vars")
    assert waited["children"][0]["returned"] == [{"json": {"env": "prod", "asked": 1}}]

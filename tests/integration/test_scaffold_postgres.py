"""A scaffolded n8n Postgres node through the real queue: live it writes the database, in shadow it never does."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import psycopg

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core import JobSpec, Queue, Worker, WorkerConfig, db
from queue_core import registry as registry_module
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.provider import parse_providers
from queue_core.registry import Registry

PROVIDERS = parse_providers({"postgres": {"base_url": "sql://postgres", "dsn_env": "CUTOVER_TEST_POSTGRES_URL"}})
WORKFLOW = {"name": "Save leads", "nodes": [
    {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
    {"name": "Leads", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [1, 0], "parameters": {
        "jsCode": "return " + json.dumps([{"json": {"email": e}} for e in ("a@x.test", "b@x.test")]) + ";"}},
    {"name": "Save", "type": "n8n-nodes-base.postgres", "typeVersion": 2.6, "position": [2, 0], "parameters": {
        "operation": "executeQuery",
        "query": "INSERT INTO leads (email) VALUES ($1) RETURNING id, email",
        "options": {"queryReplacement": "={{ $json.email }}"}}}],
    "connections": {"Start": {"main": [[{"node": "Leads", "type": "main", "index": 0}]]},
                    "Leads": {"main": [[{"node": "Save", "type": "main", "index": 0}]]}}}


def _registry() -> Registry:
    scaffold = build(parse_workflow(WORKFLOW, "save.json"), "save-leads", {})
    assert scaffold.todo == 0, scaffold.rows
    saved = registry_module.default_registry
    registry_module.default_registry = registry = Registry()
    try:
        exec(compile(scaffold.source, "save_leads.py", "exec"), {})
    finally:
        registry_module.default_registry = saved
    return registry


def _leads(url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT id, email FROM leads ORDER BY id").fetchall()


async def _run(url: str, mode: str, source: Any = None) -> dict[str, Any]:
    registry = _registry()
    async with db.pool(url, max_size=4) as pool, \
            Gateway(PROVIDERS, pool, response_source=source, environ={"CUTOVER_TEST_POSTGRES_URL": url}) as gateway:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("save-leads", {}, mode=mode, trigger_id="t-1"))
        await asyncio.wait_for(Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05),
                                      gateway=gateway).run(drain=True), 30)
        job = await queue.get(job_id)
        assert job["status"] == "succeeded", job["last_error"]
        return {"job": job, "trace": await queue.trace(job_id) if mode != "live" else None}


async def test_a_live_run_inserts_each_item_and_outputs_the_returned_rows(fresh_db_url: str) -> None:
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE leads (id serial PRIMARY KEY, email text UNIQUE)")
    await _run(fresh_db_url, "live")
    assert _leads(fresh_db_url) == [(1, "a@x.test"), (2, "b@x.test")]
    with psycopg.connect(fresh_db_url) as conn:
        [(detail,)] = conn.execute("SELECT detail FROM ledger WHERE kind = 'call'").fetchall()
    assert detail["method"] == "SQL" and detail["url"] == "sql://postgres/executeQuery" and detail["status"] == 200
    assert fresh_db_url not in json.dumps(detail)


async def test_a_shadow_replay_serves_the_recorded_rows_and_leaves_the_database_alone(fresh_db_url: str) -> None:
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE leads (id serial PRIMARY KEY, email text UNIQUE)")
    recorded = [{"id": 41, "email": "a@x.test"}, {"id": 42, "email": "b@x.test"}]

    def source(automation: str, trigger: str | None, step: str, request: OutboundRequest) -> RecordedResponse | None:
        return RecordedResponse(json=recorded) if (automation, trigger, step) == ("save-leads", "t-1", "save") else None

    ran = await _run(fresh_db_url, "shadow", source)
    assert _leads(fresh_db_url) == []
    trace = ran["trace"]
    [intent] = trace["calls"]
    assert intent["method"] == "SQL" and intent["body"]["statements"] == [
        {"query": "INSERT INTO leads (email) VALUES ($1) RETURNING id, email", "values": [email]}
        for email in ("a@x.test", "b@x.test")]
    assert trace["nodes"]["Save"] == [recorded]

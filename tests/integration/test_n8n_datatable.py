"""n8n's Data Table node on a copy of its table: its statements run on real Postgres, live and in a shadow replay."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone
from typing import Any

import httpx
import psycopg

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core import JobSpec, Queue, Worker, WorkerConfig, db
from queue_core import registry as registry_module
from queue_core.compat import n8n
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.gateway.sql import mounts
from queue_core.provider import parse_providers
from queue_core.registry import Registry

PROVIDERS = parse_providers({"postgres": {"base_url": "sql://postgres", "dsn_env": "CUTOVER_TEST_POSTGRES_URL"}})
NOW = datetime(2025, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)


class _Sql:
    """A context whose one call per node goes to the gateway's SQL transport (a live call's path)."""

    def __init__(self, url: str) -> None:
        self.mounts = mounts(PROVIDERS, {"CUTOVER_TEST_POSTGRES_URL": url})
        self.bodies: list[Any] = []

    async def call(self, provider: str, method: str, url: str, *, json: Any, step: str) -> httpx.Response:
        self.bodies.append(json)
        async with httpx.AsyncClient(mounts=self.mounts) as client:
            response = await client.request(method, "sql://postgres" + url, json=json)
        assert response.status_code == 200, response.text
        return response


def _seed(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(n8n.dt_table_ddl("seen", [("name", "string"), ("score", "number"), ("ok", "boolean")]))
        conn.execute("INSERT INTO seen (name, score, ok) VALUES ('ada', 1.5, true), ('bo_b', NULL, false), ('cy', 3, NULL)")


def _run(ctx: _Sql, operation: str, statements: list[Any], items: list[Any], **kw: Any) -> list[Any]:
    return asyncio.run(n8n.dt_run(ctx, "postgres", "db", operation, statements, items, now=NOW, **kw))


def test_get_filters_as_n8n_does_and_outputs_columns_then_system_columns(fresh_db_url: str) -> None:
    _seed(fresh_db_url)
    ctx = _Sql(fresh_db_url)
    any_of = n8n.dt_filters([{"keyName": "name", "condition": "ilike", "keyValue": "A"},
                             {"keyName": "score", "condition": "gt", "keyValue": 2}], "anyCondition", node="G")
    [first, second] = _run(ctx, "get", [n8n.dt_get("seen", any_of, limit=50)], [{"json": {}}])
    assert first["json"]["name"] == "ada" and first["json"]["score"] == 1.5 and first["json"]["ok"] is True
    assert list(first["json"]) == ["name", "score", "ok", "id", "createdAt", "updatedAt"]
    assert second["json"]["score"] == 3 and second["pairedItem"] == {"item": 0}
    assert first["json"]["createdAt"].endswith("Z")
    # "_" is not a wildcard; neq keeps nulls; isEmpty is a null test
    like = n8n.dt_filters([{"keyName": "name", "condition": "like", "keyValue": "o_b"}], "allConditions", node="G")
    assert [i["json"]["name"] for i in _run(ctx, "get", [n8n.dt_get("seen", like, limit=None)], [{"json": {}}])] == ["bo_b"]
    neq = n8n.dt_filters([{"keyName": "ok", "condition": "neq", "keyValue": True}], "allConditions", node="G")
    assert [i["json"]["id"] for i in _run(ctx, "get", [n8n.dt_get("seen", neq, limit=None)], [{"json": {}}])] == [2, 3]
    empty = n8n.dt_filters([{"keyName": "score", "condition": "isEmpty"}], "allConditions", node="G")
    items = [{"json": {"q": 1}}]
    assert _run(ctx, "rowExists", [n8n.dt_get("seen", empty, limit=1)], items) == [{"json": {"q": 1}, "pairedItem": {"item": 0}}]
    assert _run(ctx, "rowNotExists", [n8n.dt_get("seen", empty, limit=1)], items) == []


def test_writes_insert_update_upsert_and_delete_the_rows_and_return_them(fresh_db_url: str) -> None:
    _seed(fresh_db_url)
    ctx = _Sql(fresh_db_url)
    [inserted] = _run(ctx, "insert", [n8n.dt_insert("seen", {"name": "dee", "score": "4"})], [{"json": {}}])
    assert inserted["json"]["id"] == 4 and inserted["json"]["score"] == 4 and inserted["json"]["ok"] is None
    by_name = n8n.dt_filters([{"keyName": "name", "keyValue": "dee"}], "anyCondition", node="U")
    [updated] = _run(ctx, "update", [n8n.dt_update("seen", {"ok": True}, by_name, node="U")], [{"json": {}}])
    assert updated["json"]["ok"] is True and updated["json"]["id"] == 4
    missing = n8n.dt_filters([{"keyName": "name", "keyValue": "eve"}], "anyCondition", node="U")
    rows = [{"name": "eve", "score": 5}, {"name": "eve", "score": 6}]
    statements = [n8n.dt_upsert("seen", row, missing, node="U") for row in rows]
    upserted = _run(ctx, "upsert", statements, [{"json": {}}, {"json": {}}])
    assert [(i["json"]["id"], i["json"]["score"]) for i in upserted] == [(5, 5), (5, 6)]  # the second updates the first
    dry = _run(ctx, "deleteRows", [n8n.dt_delete("seen", missing, node="D", dry_run=True)], [{"json": {}}], dry_run=True)
    assert [d["json"]["dryRunState"] for d in dry] == ["before", "after"] and dry[1]["json"]["id"] is None
    deleted = _run(ctx, "deleteRows", [n8n.dt_delete("seen", missing, node="D")], [{"json": {}}])
    assert [d["json"]["name"] for d in deleted] == ["eve"]
    with psycopg.connect(fresh_db_url) as conn:
        assert conn.execute("SELECT name FROM seen ORDER BY id").fetchall() == [("ada",), ("bo_b",), ("cy",), ("dee",)]


WORKFLOW = {"name": "Seen", "nodes": [
    {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
    {"name": "Posts", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [1, 0], "parameters": {
        "jsCode": "return " + json.dumps([{"json": {"id": "ada"}}, {"json": {"id": "zed"}}]) + ";"}},
    {"name": "Seen", "type": "n8n-nodes-base.dataTable", "typeVersion": 1, "position": [2, 0], "parameters": {
        "operation": "get", "dataTableId": {"__rl": True, "mode": "list", "value": "Ab1", "cachedResultName": "Seen"},
        "filters": {"conditions": [{"keyName": "name", "keyValue": "={{ $json.id }}"}]}}}],
    "connections": {"Start": {"main": [[{"node": "Posts", "type": "main", "index": 0}]]},
                    "Posts": {"main": [[{"node": "Seen", "type": "main", "index": 0}]]}}}


async def _queue_run(url: str, mode: str, source: Any = None) -> dict[str, Any]:
    scaffold = build(parse_workflow(WORKFLOW, "seen.json"), "seen", {})
    assert scaffold.todo == 0, scaffold.rows
    saved = registry_module.default_registry
    registry_module.default_registry = registry = Registry()
    try:
        exec(compile(scaffold.source, "seen.py", "exec"), {})
    finally:
        registry_module.default_registry = saved
    async with db.pool(url, max_size=4) as pool, \
            Gateway(PROVIDERS, pool, response_source=source, environ={"CUTOVER_TEST_POSTGRES_URL": url}) as gateway:
        queue = Queue(pool, registry=registry)
        job_id = await queue.enqueue(JobSpec("seen", {}, mode=mode, trigger_id="t-1"))
        await asyncio.wait_for(Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05),
                                      gateway=gateway).run(drain=True), 30)
        job = await queue.get(job_id)
        assert job["status"] == "succeeded", job["last_error"]
        return {"trace": await queue.trace(job_id) if mode != "live" else None}


async def test_a_scaffolded_node_runs_live_on_the_copy_and_a_shadow_replay_compares_its_statements(
        fresh_db_url: str) -> None:
    _seed(fresh_db_url)
    await _queue_run(fresh_db_url, "live")
    with psycopg.connect(fresh_db_url) as conn:
        [(detail,)] = conn.execute("SELECT detail FROM ledger WHERE kind = 'call'").fetchall()
    assert detail["url"] == "sql://postgres/dataTable.get" and detail["status"] == 200
    recorded = [{"name": "ada", "id": 1}]

    def source(automation: str, trigger: str | None, step: str, request: OutboundRequest) -> RecordedResponse | None:
        return RecordedResponse(json=recorded) if (automation, trigger, step) == ("seen", "t-1", "seen") else None

    trace = (await _queue_run(fresh_db_url, "shadow", source))["trace"]
    [intent] = trace["calls"]
    assert intent["body"]["statements"] == [
        n8n.dt_get("seen", n8n.dt_filters([{"keyName": "name", "condition": "eq", "keyValue": v}], "anyCondition",
                                          node="Seen"), limit=50) for v in ("ada", "zed")]
    assert trace["nodes"]["Seen"] == [recorded]


def test_the_documented_copy_keeps_n8ns_ids_and_a_later_insert_takes_the_next_one(fresh_db_url: str) -> None:
    from harness.platforms.n8n.translate.app_datatable import copy_sql

    columns = [("name", "string")]
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(n8n.dt_table_ddl("data_table_user_Ab1", columns))  # as n8n keeps it
        conn.execute("INSERT INTO \"data_table_user_Ab1\" (id, name) VALUES (3, 'c'), (7, 'g')")
        conn.execute(n8n.dt_table_ddl("seen", columns))
        conn.execute(copy_sql("seen", "Ab1", columns))
    [row] = _run(_Sql(fresh_db_url), "insert", [n8n.dt_insert("seen", {"name": "h"})], [{"json": {}}])
    assert row["json"]["id"] == 8

"""A SQL provider on a real database: live calls run their statements; shadow calls never reach it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from queue_core.compat import n8n
from queue_core.errors import TerminalError
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call

PROVIDERS = parse_providers({"postgres": {"base_url": "sql://postgres", "dsn_env": "CUTOVER_TEST_POSTGRES_URL"}})


class _Node:
    """What a scaffolded node calls ``ctx.call`` on: the gateway, for one in-memory job."""

    def __init__(self, gateway: Gateway, job: MemoryCallContext) -> None:
        self.gateway, self.job = gateway, job

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None) -> httpx.Response:
        return await call(self.gateway, self.job, provider, method, url, step=step, json=json)


@pytest.fixture
def table(fresh_db_url: str) -> Iterator[str]:
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE people (id int PRIMARY KEY, name text, score numeric, meta jsonb, seen timestamptz)")
        conn.execute("INSERT INTO people VALUES (1, 'ada', 1.5, '{\"k\": 1}', '2024-01-02 03:04:05.678+00')")
    yield fresh_db_url


def _rows(url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT id, name FROM people ORDER BY id").fetchall()


async def test_a_live_insert_and_query_run_on_the_database_and_the_dsn_is_in_no_record(table: str) -> None:
    job = MemoryCallContext()
    items = [{"json": {"id": 2, "name": "bo"}}, {"json": {"id": 3, "name": "cy"}}]
    async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_POSTGRES_URL": table}) as gateway:
        node = _Node(gateway, job)
        inserted = await n8n.pg_run(node, "postgres", "save", "insert",
                                    [n8n.pg_insert("public", "people", item["json"], version=2.6, output=["id"])
                                     for item in items], items, version=2.6)
        found = await n8n.pg_run(node, "postgres", "find", "executeQuery",
                                 [n8n.pg_query("SELECT * FROM people WHERE id <= $1 ORDER BY id", [2], [2])],
                                 [{"json": {}}], version=2.6)
    assert inserted == [{"json": {"id": 2}, "pairedItem": {"item": 0}}, {"json": {"id": 3}, "pairedItem": {"item": 1}}]
    assert [item["json"] for item in found] == [
        {"id": 1, "name": "ada", "score": "1.5", "meta": {"k": 1}, "seen": "2024-01-02T03:04:05.678Z"},
        {"id": 2, "name": "bo", "score": None, "meta": None, "seen": None}]
    assert _rows(table) == [(1, "ada"), (2, "bo"), (3, "cy")]
    assert job.calls["save"]["method"] == "SQL" and job.calls["save"]["url"] == "sql://postgres/insert"
    assert table not in json.dumps([job.calls, job.events, job.intents], default=str)


async def test_a_failed_statement_of_a_single_batch_fails_the_call_and_keeps_nothing(table: str) -> None:
    statements = [n8n.pg_insert("public", "people", {"id": 4, "name": "dee"}, version=2.6),
                  n8n.pg_insert("public", "people", {"id": 1, "name": "again"}, version=2.6)]
    async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_POSTGRES_URL": table}) as gateway:
        with pytest.raises(TerminalError, match="duplicate key"):
            await n8n.pg_run(_Node(gateway, MemoryCallContext()), "postgres", "save", "insert", statements,
                             [{"json": {}}, {"json": {}}], version=2.6)
        kept = await n8n.pg_run(_Node(gateway, MemoryCallContext()), "postgres", "save", "insert", statements,
                                [{"json": {"id": 4}}, {"json": {"id": 1}}], version=2.6, batching="independently",
                                keep_going=True)
    assert [item["json"].get("id", item["json"].get("message")) for item in kept] == [
        4, 'duplicate key value violates unique constraint "people_pkey"']
    assert kept[1]["json"]["item"] == {"id": 1} and _rows(table) == [(1, "ada"), (4, "dee")]


async def test_an_update_of_a_row_that_is_not_there_fails_as_n8n_says(table: str) -> None:
    statement = n8n.pg_update("public", "people", {"id": 9, "name": "x"}, ["id"], node="Update")
    async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_POSTGRES_URL": table}) as gateway:
        with pytest.raises(TerminalError, match="The row you are trying to update doesn't exist"):
            await n8n.pg_run(_Node(gateway, MemoryCallContext()), "postgres", "up", "update", [statement],
                             [{"json": {}}], version=2.6)


async def test_a_shadow_call_is_answered_with_the_recorded_rows_and_never_reaches_the_database(table: str) -> None:
    asked: list[OutboundRequest] = []

    def recorded(automation: str, trigger: str | None, step: str, request: OutboundRequest) -> RecordedResponse | None:
        asked.append(request)
        return RecordedResponse(json=[{"id": 7, "name": "recorded"}]) if step == "save" else None

    statement = n8n.pg_insert("public", "people", {"id": 7, "name": "zed"}, version=2.6)
    job = MemoryCallContext(mode="shadow")
    # the connection string is the real database's: a call reaching it would insert the row
    async with Gateway(PROVIDERS, None, response_source=recorded,
                       environ={"CUTOVER_TEST_POSTGRES_URL": table}) as gateway:
        out = await n8n.pg_run(_Node(gateway, job), "postgres", "save", "insert", [statement], [{"json": {}}],
                               version=2.6)
        synthetic = await n8n.pg_run(_Node(gateway, job), "postgres", "other", "insert", [statement], [{"json": {}}],
                                     version=2.6)
    assert out == [{"json": {"id": 7, "name": "recorded"}}]
    assert synthetic[0]["json"]["synthetic"] is True
    assert _rows(table) == [(1, "ada")]
    [intent, _] = job.intents
    assert intent["method"] == "SQL" and intent["body"]["statements"] == [statement] and intent["mode"] == "shadow"
    assert len(asked) == 2

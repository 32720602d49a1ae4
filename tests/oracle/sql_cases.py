"""Postgres node cases (v2 … 2.6): n8n's own node and the scaffold run the same statements on two copies of one database.

Every case is a Postgres node over a table of its own (``oracle_t<n>``, the same
three seeded rows in each), fed by a Code node's items. ``measure`` seeds two fresh databases
alike: n8n runs every case's workflow in one batch against the first (a Postgres credential
imported with ``n8n import:credentials``, its ``data`` given decrypted, which the command
encrypts), the scaffold runs each case against the second through the gateway's SQL transport
(``queue_core.gateway.sql``), the one a live call uses. Compared: the node's output items (as
the conformance suite compares them, ``outcome.differences``) and each case's table afterwards,
row by row, so a write that returns nothing is proved by what it left.

One normalisation, named: an error item's ``error`` object is left out (its message is kept and
compared): n8n's is its NodeOperationError's fields, the scaffold's the database's diagnostics.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from queue_core.classify import Kind, classify_response
from queue_core.errors import RetryableError, TerminalError
from queue_core.gateway.sql import mounts
from queue_core.provider import parse_providers


from tests.oracle import runner
from tests.oracle.scaffolded import run_with
from tests.oracle.outcome import Outcome, differences
from tests.oracle.workflow import Case, workflow

NODE = "n8n-nodes-base.postgres"
CREDENTIAL = {"id": "oraclepostgres01", "name": "oracle postgres"}
CREDENTIAL_NUMBERS = {"id": "oraclepostgres02", "name": "oracle postgres (large numbers)"}
COLUMNS = ("id int PRIMARY KEY, name text, score numeric, big bigint, tags text[], meta jsonb, seen timestamptz, "
           "day date, ok boolean")
SEED = ("(1, 'ada', 1.5, 9007199254740993, '{a,b}', '{\"k\": 1}', '2024-01-02 03:04:05.678+00', '2024-01-02', true), "
        "(2, 'bo', NULL, 2, '{}', NULL, NULL, NULL, false), "
        "(3, 'cy', 3, 3, NULL, '[1, 2]', '2024-06-01 00:00:00+00', '2024-06-01', NULL)")
_TABLE = "{table}"  # replaced by the case's own table in every parameter


def _q(query: str, **options: Any) -> dict[str, Any]:
    return {"operation": "executeQuery", "query": query, "options": options}


def _locators(**params: Any) -> dict[str, Any]:
    return {"schema": {"__rl": True, "mode": "list", "value": "public"},
            "table": {"__rl": True, "mode": "list", "value": _TABLE}, **params}


def _columns(value: dict[str, Any], mode: str = "defineBelow", match: list[str] | None = None) -> dict[str, Any]:
    return {"mappingMode": mode, "value": value, "matchingColumns": match or [], "schema": []}


_ROW = {"id": "={{ $json.id }}", "name": "={{ $json.name }}"}
# The cases meant to fail in n8n (and so in the scaffold), by their one input item: an update of a
# row that is not there (2.2+), and v2's update with "Map Automatically" (it reads valueToMatchOn,
# which that mode does not show: "Could not get parameter").
MISSING_ROW = {"id": 99, "name": "x"}
UNREAD_MATCH = {"id": 3, "name": "cee"}
MEANT_TO_FAIL = (MISSING_ROW, UNREAD_MATCH)
# (versions, parameters, input items, node settings)
_CASES: list[tuple[tuple[float, ...], dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = [
    ((2.6, 2.4), _q("SELECT * FROM {table} ORDER BY id"), [{}], {}),
    ((2.6,), _q("SELECT id, name FROM {table} WHERE id = $1", queryReplacement="={{ $json.id }}"),
     [{"id": 1}, {"id": 3}], {}),
    ((2.6,), _q("SELECT id, name FROM {table} WHERE id = $1", queryReplacement="={{ $json.id }}",
                queryBatching="independently"), [{"id": 3}, {"id": 1}], {}),
    ((2.6, 2.5), _q("UPDATE {table} SET name = $2 WHERE id = $1", queryReplacement="={{ [$json.id, $json.name] }}"),
     [{"id": 1, "name": "ada, again"}, {"id": 2, "name": "bee"}], {}),
    ((2.4,), _q("SELECT COUNT(*) AS n, MAX(score) AS top FROM {table} WHERE id > $1",
                queryReplacement="=$1={{ $json.id }}"), [{"id": 1}], {}),
    ((2.6,), _q("SELECT '$1' AS lit, name FROM {table} WHERE id = 1"), [{}], {}),
    ((2.6, 2.2), _q("SELECT * FROM {table} WHERE id = -1"), [{}, {}], {}),
    ((2.6,), _q("SELECT nope FROM {table}"), [{}], {"onError": "continueRegularOutput"}),
    ((2.6,), _q("INSERT INTO {table} (id, name) VALUES ($1, $2) RETURNING id, name",
                queryReplacement="={{ $json.id }}, {{ $json.name }}", queryBatching="transaction"),
     [{"id": 30, "name": "tx"}, {"id": 31, "name": "ty"}], {}),
    ((2.6, 2.4), {"operation": "insert", **_locators(columns=_columns(_ROW))}, [{"id": 10, "name": "x"},
                                                                                {"id": 11, "name": "y"}], {}),
    ((2.6,), {"operation": "insert", **_locators(columns=_columns({}, "autoMapInputData"))},
     [{"id": 12, "name": "z", "meta": {"a": [1]}, "tags": ["p", "q r"], "ok": True}], {}),
    ((2.2,), {"operation": "insert", **_locators(columns=_columns(_ROW), options={"outputColumns": ["id", "name"]})},
     [{"id": 13, "name": "w"}], {}),
    ((2.6,), {"operation": "update", **_locators(columns=_columns(_ROW, match=["id"]))}, [{"id": 2, "name": "bee"}], {}),
    ((2.6,), {"operation": "upsert", **_locators(columns=_columns(_ROW, match=["id"]))},
     [{"id": 1, "name": "ada2"}, {"id": 20, "name": "new"}], {}),
    ((2.6,), {"operation": "select", **_locators(where={"values": [{"column": "id", "condition": ">", "value": "1"}]},
                                                 sort={"values": [{"column": "id", "direction": "DESC"}]}, limit=1)},
     [{}], {}),
    ((2.6,), {"operation": "select", **_locators(returnAll=True, options={"outputColumns": ["name"]})}, [{}], {}),
    ((2.6,), {"operation": "deleteTable", **_locators(deleteCommand="delete",
                                                      where={"values": [{"column": "name", "value": "bo"}]})}, [{}], {}),
    ((2.6,), {"operation": "deleteTable", **_locators()}, [{}], {}),
    # n8n's own readings, kept: a rendered value with a comma is two parameters (2.5+)
    ((2.6,), _q("SELECT $1::text AS a, $2::text AS b, $3::text AS c", queryReplacement="={{ $json.a }}, {{ $json.b }}"),
     [{"a": "x, y", "b": 7}], {}),
    ((2.6,), _q("{{ $json.q }}"), [{"q": "SELECT name FROM {table} WHERE id = 2"}], {}),
    ((2.6,), _q("SELECT 1 AS one; SELECT id FROM {table} ORDER BY id"), [{}, {}], {}),
    ((2.6,), _q("SELECT id FROM {table} WHERE id = $1", queryReplacement="={{ $json.id }}",
                queryBatching="independently"), [{"id": 1}, {"id": "nope"}, {"id": 3}],
     {"onError": "continueRegularOutput"}),
    ((2.6,), {"operation": "insert", **_locators(columns=_columns({}, "autoMapInputData"),
                                                 options={"replaceEmptyStrings": True, "skipOnConflict": True})},
     [{"id": 1, "name": "dup"}, {"id": 40, "name": ""}], {}),
    ((2.6,), {"operation": "update", **_locators(columns=_columns(_ROW, match=["id"]))}, [MISSING_ROW], {}),
    ((2.6, 2.2), {"operation": "select", **_locators(
        where={"values": [{"column": "ok", "condition": "IS NULL"}, {"column": "name", "condition": "LIKE", "value": "a%"}]},
        combineConditions="OR", returnAll=True)}, [{}], {}),
    ((2.2,), {"operation": "select", **_locators(where={"values": [{"column": "id", "value": "-1"}]})}, [{}], {}),
    # v2 and v2.1: "Data Mode" (Map Automatically by default), valuesToSend, one column to match on
    ((2.0, 2.1), {"operation": "insert", **_locators()}, [{"id": 50, "name": "auto"}, {"id": 51}], {}),
    ((2.1,), {"operation": "insert", **_locators(dataMode="defineBelow", valuesToSend={"values": [
        {"column": "id", "value": "={{ $json.n }}"}, {"column": "name", "value": "fixed"}]})}, [{"n": 52}], {}),
    ((2.0,), {"operation": "update", **_locators(columnToMatchOn="id")}, [UNREAD_MATCH], {}),
    ((2.1,), {"operation": "upsert", **_locators(columnToMatchOn="id", dataMode="defineBelow", valueToMatchOn="={{ $json.id }}",
                                                 valuesToSend={"values": [{"column": "name", "value": "={{ $json.name }}"}]})},
     [{"id": 2, "name": "bee"}, {"id": 60, "name": "sixty"}], {}),
    # Last, with a credential of its own: n8n sets its number parsers when it opens a credential's pool,
    # for the whole process (node-postgres' parsers are global), so this case must open one, and after it
    # every int8 and numeric n8n reads is a number.
    ((2.6,), _q("SELECT big, score, big + 1 AS more FROM {table} WHERE id = 1", largeNumbersOutput="numbers"), [{}],
     {"credentials": {"postgres": CREDENTIAL_NUMBERS}}),
]


def _placed(value: Any, table: str) -> Any:
    if isinstance(value, str):
        return value.replace(_TABLE, table)
    if isinstance(value, dict):
        return {k: _placed(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [_placed(v, table) for v in value]
    return value


def sql_cases() -> list[tuple[Case, str]]:
    """Return every case with its table's name."""
    out = []
    for versions, params, inputs, node_settings in _CASES:
        for version in versions:
            table = f"oracle_t{len(out)}"
            case = Case(f"postgres v{version:g} #{len(out) + 1}", NODE, version, _placed(params, table),
                        [_placed(inputs, table)],
                        {"credentials": {"postgres": CREDENTIAL}, **node_settings})
            out.append((case, table))
    return out


def _seed(url: str, tables: list[str]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for table in tables:
            conn.execute(sql.SQL("CREATE TABLE {} ").format(sql.Identifier(table)) + sql.SQL(f"({COLUMNS})"))  # type: ignore[arg-type]
            conn.execute(sql.SQL("INSERT INTO {} VALUES ").format(sql.Identifier(table)) + sql.SQL(SEED))  # type: ignore[arg-type]


def _contents(url: str, table: str) -> list[Any]:
    with psycopg.connect(url) as conn:
        query = sql.SQL("SELECT to_jsonb(t) FROM {} t ORDER BY id").format(sql.Identifier(table))
        try:
            return [row[0] for row in conn.execute(query).fetchall()]
        except psycopg.errors.UndefinedTable:
            return ["(no table)"]


def _run_n8n(documents: list[dict[str, Any]], data_url: str) -> list[Outcome]:
    """Run the documents in one n8n batch with the Postgres credential for ``data_url`` (runner.run's steps)."""
    database = runner.Database.from_env()
    name = f"n8n_oracle_sql_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    target = conninfo_to_dict(data_url)
    data = {"host": str(target.get("host") or "127.0.0.1"), "port": int(target.get("port") or 5432),
            "database": str(target.get("dbname")), "user": str(target.get("user") or "postgres"),
            "password": str(target.get("password") or ""), "ssl": "disable", "allowUnauthorizedCerts": False}
    # the pool n8n keeps is keyed by the credential's data: the second one differs in its pool size
    credentials = [{**CREDENTIAL, "type": "postgres", "data": data},
                   {**CREDENTIAL_NUMBERS, "type": "postgres", "data": {**data, "maxConnections": 7}}]
    with tempfile.TemporaryDirectory(prefix="cutover-n8n-sql-") as tmp:
        folder = Path(tmp)
        workflows, snapshots = folder / "workflows", folder / "snapshots"
        workflows.mkdir()
        snapshots.mkdir()
        ids = [runner.workflow_id(i) for i in range(len(documents))]
        for wid, document in zip(ids, documents, strict=True):
            (workflows / f"{wid}.json").write_text(json.dumps({**document, "id": wid}), encoding="utf-8")
        (folder / "credentials.json").write_text(json.dumps(credentials), encoding="utf-8")
        env = runner._environment(folder / "n8n", database, name)
        runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            runner._n8n(["import:credentials", f"--input={folder / 'credentials.json'}"], env, 300)
            runner._n8n(["import:workflow", "--separate", f"--input={workflows}"], env, 300)
            (folder / "ids.txt").write_text(",".join(ids), encoding="utf-8")
            output = folder / "output.json"
            runner._n8n(["execute-batch", f"--ids={folder / 'ids.txt'}", f"--snapshot={snapshots}",
                         f"--output={output}", "--concurrency=1"], env, 900, ok=(0, 1))
            results = json.loads(output.read_text(encoding="utf-8"))
        finally:
            runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        by_id = {e["workflowId"]: e for e in results.get("executions", [])}
        return [runner._outcome(by_id.get(wid), snapshots / f"{wid}-snapshot.json") for wid in ids]


class _SqlContext:
    """A context whose calls go to the gateway's SQL transport, classified as the gateway does."""

    def __init__(self, data_url: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.providers = {"postgres": "sql://postgres"}
        self._mounts = mounts(parse_providers({"postgres": {"base_url": "sql://postgres", "dsn_env": "ORACLE_SQL_URL"}}),
                              {"ORACLE_SQL_URL": data_url})

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None) -> httpx.Response:
        async with httpx.AsyncClient(mounts=self._mounts) as client:
            response = await client.request(method, "sql://postgres" + url, json=json)
        verdict = classify_response(response.status_code, response.headers, response.text, now=0.0,
                                     rng=random.Random(0))
        if verdict.kind is Kind.OK:
            return response
        message = f"{provider} {method} {url} (step {step!r}): {verdict.reason}; {verdict.summary}"
        raise RetryableError(message) if verdict.kind is Kind.RETRYABLE else TerminalError(message)


def _scaffold_run(document: dict[str, Any], workdir: Path, data_url: str) -> Outcome:
    return run_with(document, workdir, _SqlContext(data_url))


def _without_error_objects(outcome: Outcome) -> Outcome:
    for outputs in outcome.nodes.values():
        for items in outputs:
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("error"), dict):
                    item.pop("error")
    return outcome


def measure(cases: list[tuple[Case, str]]) -> list[tuple[Case, Outcome, Outcome, list[str]]]:
    """Run every case on both sides, each against its own copy of the seeded database; return the differences."""
    database = runner.Database.from_env()
    names = [f"oracle_sql_{side}_{os.getpid()}_{uuid.uuid4().hex[:6]}" for side in ("n8n", "scaffold")]
    urls = [make_conninfo(database.admin_url, dbname=n) for n in names]
    tables = [table for _, table in cases]
    for name, url in zip(names, urls, strict=True):
        runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        _seed(url, tables)
    try:
        documents = [workflow(case, runner.workflow_id(i)) for i, (case, _) in enumerate(cases)]
        oracle = _run_n8n(documents, urls[0])
        results = []
        with tempfile.TemporaryDirectory(prefix="cutover-oracle-sql-") as tmp:
            for index, ((case, table), document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
                got = _scaffold_run(document, Path(tmp) / str(index), urls[1])
                expected, got = _without_error_objects(expected), _without_error_objects(got)
                found = differences(expected, got, [n["name"] for n in document["nodes"]]) if got.translated else []
                left, right = _contents(urls[0], table), _contents(urls[1], table)
                if left != right:
                    found.append(f"table {table}: n8n left {left}, the scaffold {right}")
                results.append((case, expected, got, found))
    finally:
        for name in names:
            runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return results


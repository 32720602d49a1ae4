"""Data Table node cases (v1): n8n's own node on its own data tables, the scaffold on copies of them.

n8n 1.123.81 keeps a data table in its database: a ``data_table`` row (id, name, projectId), one
``data_table_column`` row per column, and the rows in ``data_table_user_<id>``. ``measure``
creates n8n's per-run database, lets ``n8n import:workflow`` migrate it, then seeds every case's
data table there (in the project the import gave the workflows) and the same rows into a second
database, in a table named as the scaffold names the copy (``app_datatable.table_name``), both
with ``dt_table_ddl``'s columns. n8n's CLI (``execute``, ``execute-batch``) loads no backend
modules, so its Data Table node fails there ("the module is disabled"): n8n runs as a server
(``n8n start``, on a loopback port) and each case's workflow is started by a webhook answering
with the node's items; the scaffold runs each through the gateway's SQL transport. Compared: the node's output items and each table afterwards.

One normalisation, named: a ``createdAt``/``updatedAt`` that is not the seeded time is the clock
of the run that wrote it (an insert, an update, a dry run's "after"), so it is compared as
``<now>``, on both sides alike.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from harness.platforms.n8n.translate.app_datatable import table_name
from queue_core.compat.n8n import dt_table_ddl

from tests.oracle import runner
from tests.oracle.outcome import Outcome, differences
from tests.oracle.sql_cases import _scaffold_run, _without_error_objects
from tests.oracle.workflow import UNDER_TEST, Case, workflow

NODE = "n8n-nodes-base.dataTable"
COLUMNS = (("name", "string"), ("score", "number"), ("ok", "boolean"), ("seen", "date"))
SEEDED = "2024-05-05T05:05:05.555Z"
ROWS = ("('ada', 1.5, true, '2024-01-02T03:04:05.678Z')", "('bo_b', NULL, false, NULL)",
        "('cy', 3, NULL, '2024-06-01T00:00:00Z')")
_NAME = {"keyName": "name", "keyValue": "={{ $json.name }}"}


def _f(*conditions: dict[str, Any], match: str = "allConditions") -> dict[str, Any]:
    return {"matchType": match, "filters": {"conditions": list(conditions)}}


def _c(key: str, condition: str, value: Any = None) -> dict[str, Any]:
    return {"keyName": key, "condition": condition, **({} if value is None else {"keyValue": value})}


def _columns(value: dict[str, Any], mode: str = "defineBelow") -> dict[str, Any]:
    schema = [{"id": n, "displayName": n, "type": t, "display": True, "removed": False} for n, t in COLUMNS]
    return {"columns": {"mappingMode": mode, "value": value, "matchingColumns": [], "schema": schema}}


_WRITE = {"name": "={{ $json.name }}", "score": "={{ $json.score }}"}
# (parameters, input items)
_CASES: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
    ({"operation": "get", "returnAll": True}, [{}]),
    ({"operation": "get", "filters": {"conditions": [_NAME]}}, [{"name": "cy"}, {"name": "ada"}]),
    ({"operation": "get", **_f(_c("name", "ilike", "A"), _c("score", "gt", "2"), match="anyCondition")}, [{}]),
    ({"operation": "get", **_f(_c("name", "like", "o_b"))}, [{}]),
    ({"operation": "get", **_f(_c("ok", "neq", "={{ true }}"))}, [{}]),
    ({"operation": "get", **_f(_c("score", "isEmpty"), _c("seen", "isNotEmpty"), match="anyCondition")}, [{}]),
    ({"operation": "get", **_f(_c("ok", "isTrue"))}, [{}]),
    ({"operation": "get", **_f(_c("seen", "gte", "2024-03-01T00:00:00Z"))}, [{}]),
    ({"operation": "get", "limit": 2}, [{}]),
    ({"operation": "get", **_f(_c("id", "lte", "2"), _c("score", "lt", "2"))}, [{}]),
    ({"operation": "rowExists", **_f(_NAME)}, [{"name": "ada", "k": 1}, {"name": "zed", "k": 2}]),
    ({"operation": "rowNotExists", **_f(_NAME)}, [{"name": "ada", "k": 1}, {"name": "zed", "k": 2}]),
    ({"operation": "insert", **_columns(_WRITE)}, [{"name": "dee", "score": 4}, {"name": "eve", "score": 5.5}]),
    ({"operation": "insert", **_columns({}, "autoMapInputData")}, [{"name": "auto", "score": 7, "ok": True, "id": 99}]),
    ({"operation": "insert", **_columns(_WRITE), "options": {"optimizeBulk": True}}, [{"name": "f", "score": 1}]),
    ({**_columns({})}, [{}]),
    ({"operation": "update", **_f(_NAME), **_columns({"score": "={{ $json.score }}"})}, [{"name": "bo_b", "score": 9}]),
    ({"operation": "update", **_f(_NAME), **_columns({"score": "={{ $json.score }}"}), "options": {"dryRun": True}},
     [{"name": "ada", "score": 2}]),
    ({"operation": "upsert", **_f(_NAME), **_columns(_WRITE)}, [{"name": "cy", "score": 8}, {"name": "new", "score": 1}]),
    ({"operation": "upsert", **_f(_NAME), **_columns(_WRITE), "options": {"dryRun": True}}, [{"name": "nope", "score": 1}]),
    ({"operation": "deleteRows", **_f(_NAME)}, [{"name": "ada"}]),
    ({"operation": "deleteRows", **_f(_c("score", "gte", "1")), "options": {"dryRun": True}}, [{}]),
    ({"operation": "get", **_f(_c("name", "like", "%y"), _c("score", "eq", "={{ 3 }}"), _c("ok", "isEmpty"))}, [{}]),
    ({"operation": "get", **_f(_c("seen", "eq", "2024-06-01T00:00:00.000Z"))}, [{}]),
    ({"operation": "get", **_f(_c("name", "eq", "nobody"))}, [{}]),
    ({"operation": "update", **_f(_c("id", "gte", "2")), **_columns({"ok": "={{ true }}"})}, [{}]),
    ({"operation": "update", **_f(_NAME), **_columns({"score": "={{ $json.score }}"})},
     [{"name": "ada", "score": 10}, {"name": "cy", "score": 11}]),
    ({"operation": "upsert", **_f(_c("score", "isNotEmpty")), **_columns({"ok": "={{ false }}"})}, [{}]),
    ({"operation": "deleteRows", **_f(_c("name", "neq", "ada"))}, [{}]),
    ({"operation": "insert", **_columns({}, "autoMapInputData")}, [{"name": "t", "seen": "2024-02-03T04:05:06.007Z"}]),
    ({"operation": "update", **_f(), **_columns({"score": "1"})}, [{}]),  # no condition: both fail
    ({"operation": "deleteRows"}, [{}]),  # no condition: both fail
]
MEANT_TO_FAIL = (len(_CASES) - 2, len(_CASES) - 1)


def datatable_cases() -> list[tuple[Case, str, str]]:
    """Return every case with its data table's id and name."""
    out = []
    for index, (params, inputs) in enumerate(_CASES):
        ident, label = f"dtoracle{index:08d}", f"dt case {index}"
        locator = {"__rl": True, "mode": "list", "value": ident, "cachedResultName": label}
        out.append((Case(f"dataTable v1 #{index + 1}", NODE, 1, {"dataTableId": locator, **params}, [inputs]),
                    ident, label))
    return out


def _seed_table(conn: psycopg.Connection[Any], table: str) -> None:
    conn.execute(dt_table_ddl(table, COLUMNS))
    for row in ROWS:
        conn.execute(sql.SQL("INSERT INTO {} (name, score, ok, seen, \"createdAt\", \"updatedAt\") VALUES ")
                     .format(sql.Identifier(table)) + sql.SQL(row[:-1] + f", '{SEEDED}', '{SEEDED}')"))


def _seed_n8n(url: str, cases: list[tuple[Case, str, str]]) -> None:
    """Create every case's data table as n8n keeps it, in the project that owns the imported workflows."""
    with psycopg.connect(url, autocommit=True) as conn:
        (project,) = conn.execute("SELECT \"projectId\" FROM shared_workflow LIMIT 1").fetchone()  # type: ignore[misc]
        for _, ident, label in cases:
            conn.execute("INSERT INTO data_table (id, name, \"projectId\") VALUES (%s, %s, %s)", (ident, label, project))
            for position, (column, kind) in enumerate(COLUMNS):
                conn.execute("INSERT INTO data_table_column (id, name, type, index, \"dataTableId\") "
                             "VALUES (%s, %s, %s, %s, %s)", (f"{ident}c{position}", column, kind, position, ident))
            _seed_table(conn, f"data_table_user_{ident}")


def _webhook_document(document: dict[str, Any], path: str) -> dict[str, Any]:
    """The case's workflow started by a webhook that answers with the last node's items (n8n's CLI runs no modules)."""
    nodes = [dict(n) for n in document["nodes"]]
    nodes[0] = {"name": nodes[0]["name"], "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": [0, 0],
                "webhookId": str(uuid.uuid5(uuid.NAMESPACE_URL, path)),
                "parameters": {"httpMethod": "POST", "path": path, "responseMode": "lastNode",
                               "responseData": "allEntries", "options": {}}}
    return {**document, "nodes": nodes, "active": True}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_started(client: httpx.Client, base: str, path: str, process: subprocess.Popen[bytes]) -> None:
    """Wait (180 s at most) until the started n8n at ``base`` is ready and its webhook ``path`` registered
    (a POST of ``{}`` to it is not a 404); fail if n8n exits first."""
    deadline = time.monotonic() + 180
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"n8n start exited {process.returncode}")
        try:
            if client.get(f"{base}/healthz/readiness").status_code == 200 and \
                    client.post(f"{base}/webhook/{path}", json={}).status_code != 404:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("n8n start did not answer in 180 s")
        time.sleep(1)


def _answers(port: int, paths: list[str], process: subprocess.Popen[bytes]) -> list[Outcome]:
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(timeout=60) as client:
        wait_started(client, base, paths[0], process)
        outcomes = []
        for path in paths:
            answer = client.post(f"{base}/webhook/{path}", json={})
            if answer.status_code != 200:
                outcomes.append(Outcome(error_node=UNDER_TEST, error=answer.text[:500]))
                continue
            body = answer.json() if answer.content else []
            outcomes.append(Outcome(nodes={UNDER_TEST: [body if isinstance(body, list) else [body]]}))
        return outcomes


def _run_n8n(documents: list[dict[str, Any]], cases: list[tuple[Case, str, str]],
             version: str = runner.VERSION) -> tuple[list[Outcome], list[Any]]:
    """Run the cases in a started n8n (its data-table module loaded), each through its webhook; return
    the node's output per case and each data table afterwards.

    Every case's workflow but the first runs once: the first is called once more, to tell that the
    webhooks are registered, so it must be a case that writes nothing (a get).
    """
    database = runner.Database.from_env()
    name = f"n8n_oracle_dt_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    url = make_conninfo(database.admin_url, dbname=name)
    paths = [f"dtcase{i}" for i in range(len(documents))]
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="cutover-n8n-dt-") as tmp:
        folder = Path(tmp)
        workflows = folder / "workflows"
        workflows.mkdir()
        for i, document in enumerate(documents):
            wid = runner.workflow_id(i)
            hooked = _webhook_document({**document, "id": wid}, paths[i])
            (workflows / f"{wid}.json").write_text(json.dumps(hooked), encoding="utf-8")
        # a port of its own for the server and for its Code node runners' broker (other n8n runs may hold 5679)
        env = {**runner._environment(folder / "n8n", database, name, version), "N8N_PORT": str(port),
               "N8N_LISTEN_ADDRESS": "127.0.0.1", "N8N_HOST": "127.0.0.1", "N8N_RUNNERS_BROKER_PORT": str(_free_port())}
        runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        process = None
        try:
            runner._n8n(["import:workflow", "--separate", f"--input={workflows}"], env, 300,  # migrates the database
                        version=version)
            _activate(url, len(documents), env, version)
            _seed_n8n(url, cases)
            process = subprocess.Popen([str(runner.n8n_binary(version)), "start"], env=env,
                                       cwd=str(runner.install_dir(version)),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            outcomes = _answers(port, paths, process)
            tables = [_contents(url, f"data_table_user_{ident}") for _, ident, _ in cases]
        finally:
            if process is not None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
            runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return outcomes, tables


def _activate(url: str, count: int, env: dict[str, str], version: str) -> None:
    """Make every imported workflow active, so ``n8n start`` registers its webhook.

    n8n 1.x: ``update:workflow --all --active=true``. n8n 2.x publishes a workflow's version instead and has
    no command for all of them (``publish:workflow --id`` boots n8n once per workflow): what it does,
    ``active`` and ``activeVersionId`` set to the imported version (which import keeps in workflow_history).
    """
    if runner.major(version) < 2:
        runner._n8n(["update:workflow", "--all", "--active=true"], env, 300, version=version)
        return
    with psycopg.connect(url, autocommit=True) as conn:
        done = conn.execute('UPDATE workflow_entity w SET active = true, "activeVersionId" = w."versionId" '
                            'WHERE EXISTS (SELECT 1 FROM workflow_history h WHERE h."workflowId" = w.id '
                            'AND h."versionId" = w."versionId")').rowcount
    if done != count:
        raise RuntimeError(f"n8n {version}: {done} of {count} imported workflows have a version to publish")


def _contents(url: str, table: str) -> list[Any]:
    with psycopg.connect(url) as conn:
        query = sql.SQL("SELECT to_jsonb(t) FROM {} t ORDER BY id").format(sql.Identifier(table))
        return [_clock(row[0]) for row in conn.execute(query).fetchall()]


def _clock(row: Any) -> Any:
    """A written row's clock columns as ``<now>`` (see the module docstring); seeded ones stay."""
    if isinstance(row, dict):
        return {k: ("<now>" if k in ("createdAt", "updatedAt") and v is not None and v not in (SEEDED, "2024-05-05T05:05:05.555+00:00")
                    else v) for k, v in row.items()}
    return row


def _clocked(outcome: Outcome) -> Outcome:
    outcome.nodes = {n: [[_clock(i) for i in items] for items in outs] for n, outs in outcome.nodes.items()}
    return outcome


def measure(cases: list[tuple[Case, str, str]],
            version: str = runner.VERSION) -> list[tuple[Case, Outcome, Outcome, list[str]]]:
    """Run every case on both sides (n8n ``version`` on its data tables, the scaffold on copies); return the differences."""
    database = runner.Database.from_env()
    name = f"oracle_dt_scaffold_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    url = make_conninfo(database.admin_url, dbname=name)
    runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            for case, _, _ in cases:
                _seed_table(conn, table_name(case.parameters["dataTableId"]))
        documents = [workflow(case, runner.workflow_id(i)) for i, (case, _, _) in enumerate(cases)]
        oracle, tables = _run_n8n(documents, cases, version)
        results = []
        with tempfile.TemporaryDirectory(prefix="cutover-oracle-dt-") as tmp:
            for index, ((case, _, _), document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
                got = _scaffold_run(document, Path(tmp) / str(index), url)
                expected, got = _clocked(_without_error_objects(expected)), _clocked(_without_error_objects(got))
                found = differences(expected, got, [UNDER_TEST]) if got.translated else []
                right = _contents(url, table_name(case.parameters["dataTableId"]))
                if tables[index] != right:
                    found.append(f"table: n8n left {tables[index]}, the scaffold {right}")
                results.append((case, expected, got, found))
    finally:
        runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return results

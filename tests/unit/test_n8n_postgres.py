"""n8n's Postgres node: its statements per item, its answer as items, and its translation (no database here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.compat import n8n
from queue_core.compat._n8n_pg_rows import is_select, output_items, parse_scalar
from queue_core.errors import ConfigError, NodeFailed
from queue_core.provider import ProviderKind, parse_providers


def test_query_parameters_from_2_5_spread_each_expression_and_keep_json_whole() -> None:
    parts = [("spread", "a, b"), ("spread", 7), ("spread", {"k": [1, 2]})]
    assert n8n.pg_values("a, b, 7", parts, version=2.6, node="Q") == ["a", "b", "7", '{"k":[1,2]}']
    assert n8n.pg_values("x,y", [("text", "x"), ("text", "y")], version=2.6, node="Q") == ["x", "y"]


def test_query_parameters_before_2_5_are_each_expressions_value_as_it_is() -> None:
    assert n8n.pg_values("$1=3\n$2=a, b", [("value", 3), ("value", "a, b")], version=2.4, node="Q") == [3, "a, b"]


def test_query_parameters_given_as_an_array_are_the_parameters() -> None:
    assert n8n.pg_values([1, None, "x"], [("spread", "ignored")], version=2.6, node="Q") == [1, None, "x"]
    with pytest.raises(NodeFailed, match="comma-separated values or an array"):
        n8n.pg_values({"a": 1}, [], version=2.6, node="Q")


def test_a_quoted_dollar_parameter_without_query_parameters_is_its_own_text_parameter() -> None:
    assert n8n.pg_query("SELECT '$1' AS a, $1 AS b", [], "") == {"query": "SELECT $1 AS a, $1 AS b", "values": ["$1"]}
    assert n8n.pg_query("SELECT '$1'", [5], "5") == {"query": "SELECT '$1'", "values": [5]}


def test_insert_quotes_identifiers_binds_values_and_returns_the_row() -> None:
    statement = n8n.pg_insert("public", 'we"ird', {"a": 1, "b": "x"}, version=2.6, output=None, skip_on_conflict=True)
    assert statement == {"query": 'INSERT INTO "public"."we""ird"("a","b") VALUES($1,$2) ON CONFLICT DO NOTHING '
                                  "RETURNING *", "values": [1, "x"]}
    assert n8n.pg_insert("s", "t", {}, version=2.6)["query"] == 'INSERT INTO "s"."t" DEFAULT VALUES RETURNING *'
    assert n8n.pg_insert("s", "t", {"a": 1}, version=2.5, output=["a"])["query"].endswith('RETURNING "a"')


def test_update_and_upsert_set_the_other_columns_and_match_on_the_matching_ones() -> None:
    update = n8n.pg_update("s", "t", {"id": 3, "name": "n"}, ["id"], node="U")
    assert update == {"query": 'UPDATE "s"."t" SET "name" = $1 WHERE "id" = $2 RETURNING *', "values": ["n", 3],
                      "require_rows": "The row you are trying to update doesn't exist"}
    upsert = n8n.pg_upsert("s", "t", {"id": 3, "name": "n"}, ["id"], node="U")
    assert upsert["query"] == ('INSERT INTO "s"."t"("id","name") VALUES($1,$2) ON CONFLICT ("id") DO UPDATE SET '
                               '"name" = $3 RETURNING *') and upsert["values"] == [3, "n", "n"]
    with pytest.raises(NodeFailed, match="Column to match on not found"):
        n8n.pg_upsert("s", "t", {"name": "n"}, ["id"], node="U")
    with pytest.raises(NodeFailed, match="Add values to update"):
        n8n.pg_update("s", "t", {"id": 3}, ["id"], node="U")


def test_select_and_delete_build_where_sort_and_limit_as_n8n() -> None:
    where = [{"column": "score", "condition": ">", "value": "2"}, {"column": "name", "condition": "IS NULL"}]
    select = n8n.pg_select("s", "t", node="S", where=where, combine="OR", sort=[{"column": "id", "direction": "DESC"}])
    assert select == {"query": 'SELECT * FROM "s"."t" WHERE "score" > $1 OR "name" IS NULL ORDER BY "id" DESC LIMIT 50',
                      "values": [2]}
    with pytest.raises(NodeFailed, match="works with numbers"):
        n8n.pg_select("s", "t", node="S", where=[{"column": "a", "condition": "<", "value": "x"}])
    assert n8n.pg_delete("s", "t", "truncate", node="D", restart_sequences=True)["query"] == \
        'TRUNCATE TABLE "s"."t" RESTART IDENTITY'
    assert n8n.pg_delete("s", "t", "delete", node="D", where=[{"column": "id", "condition": "equal", "value": 1}]) == \
        {"query": 'DELETE FROM "s"."t" WHERE "id" = $1', "values": [1]}


def _set(columns: list[tuple[str, int]], rows: list[list[Any]]) -> dict[str, Any]:
    return {"columns": [list(c) for c in columns], "rows": rows, "command": "SELECT"}


def test_rows_are_parsed_as_node_postgres_parses_them() -> None:
    columns = [("i", 23), ("big", 20), ("n", 1700), ("f", 701), ("ok", 16), ("j", 3802), ("at", 1184), ("d", 1082),
               ("tags", 1009), ("ns", 1007), ("t", 25)]
    row = ["7", "9007199254740993", "1.50", "2.0", "t", '{"a": [1]}', "2024-05-01 10:20:30.123456+02", "2024-05-01",
           '{a,"b,c",NULL}', "{1,2}", None]
    answer = {"results": [{"sets": [_set(columns, [row])], "error": None}]}
    [item] = output_items(answer, [{"query": "SELECT 1", "values": []}], [{"json": {}}], operation="executeQuery",
                          batching="single", version=2.6, large_numbers="text")
    assert item == {"json": {"i": 7, "big": "9007199254740993", "n": "1.50", "f": 2, "ok": True, "j": {"a": [1]},
                             "at": "2024-05-01T08:20:30.123Z", "d": "2024-05-01T00:00:00.000Z",
                             "tags": ["a", "b,c", None], "ns": [1, 2], "t": None}, "pairedItem": {"item": 0}}
    assert parse_scalar(20, "12", numbers=True, version=2.6) == 12
    assert parse_scalar(20, "9007199254740993", numbers=True, version=2.6) == 9007199254740992  # a double, as parseInt


def test_statements_without_rows_output_success_unless_every_one_is_a_select() -> None:
    empty = {"results": [{"sets": [_set([], [])], "error": None}, {"sets": [_set([], [])], "error": None}]}
    writes = [{"query": "UPDATE t SET a = 1", "values": []}] * 2
    assert output_items(empty, writes, [{}, {}], operation="executeQuery", batching="single", version=2.6,
                        large_numbers="text") == [{"json": {"success": True}, "pairedItem": [{"item": 0}, {"item": 1}]}]
    mixed = [{"query": "SELECT 1 WHERE false", "values": []}, {"query": "DELETE FROM t", "values": []}]
    assert output_items(empty, mixed, [{}, {}], operation="executeQuery", batching="independently", version=2.6,
                        large_numbers="text") == [{"json": {"success": True}, "pairedItem": {"item": 1}}]
    assert output_items(empty, mixed[:1] * 2, [{}, {}], operation="executeQuery", batching="single", version=2.6,
                        large_numbers="text") == []
    assert output_items(empty, mixed[:1] * 2, [{}, {}], operation="executeQuery", batching="single", version=2.2,
                        large_numbers="text") == [{"json": {"success": True}, "pairedItem": [{"item": 0}, {"item": 1}]}]
    assert is_select("SELECT 1; select 2;") and not is_select("SELECT 1; DELETE FROM t")
    assert is_select("-- a comment line\nDELETE FROM t")  # n8n drops a statement starting with a comment line


def test_independent_statements_pair_each_row_with_its_item_and_a_failure_with_its_input() -> None:
    answer = {"results": [{"sets": [_set([("a", 23)], [["1"], ["2"]])], "error": None},
                          {"sets": [], "error": {"message": "boom", "sqlstate": "42703"}}]}
    statements = [{"query": "SELECT a FROM t", "values": []}, {"query": "SELECT nope", "values": []}]
    out = output_items(answer, statements, [{"json": {"x": 1}}, {"json": {"x": 2}}], operation="executeQuery",
                       batching="independently", version=2.6, large_numbers="text")
    assert out == [{"json": {"a": 1}, "pairedItem": {"item": 0}}, {"json": {"a": 2}, "pairedItem": {"item": 0}},
                   {"json": {"message": "boom", "item": {"x": 2}, "error": {"message": "boom", "sqlstate": "42703"}},
                    "pairedItem": {"item": 1}}]


def test_a_sql_provider_is_a_sql_base_url_with_a_dsn_env_and_no_sandbox() -> None:
    config = parse_providers({"postgres": {"base_url": "sql://postgres", "dsn_env": "POSTGRES_URL", "rate": "5/1s"}})
    assert config["postgres"].kind is ProviderKind.SQL and config["postgres"].secret_env_names() == ("POSTGRES_URL",)
    assert parse_providers({"db": {"kind": "sql", "dsn_env": "DB_URL"}})["db"].base_url == "sql://db"
    for bad, field in (({"kind": "sql"}, "dsn_env"), ({"kind": "sql", "dsn_env": "X", "sandbox_url": "https://s"},
                                                      "sandbox_url"),
                       ({"kind": "sql", "dsn_env": "X", "base_url": "https://db"}, "base_url")):
        with pytest.raises(ConfigError, match=field):
            parse_providers({"db": bad})


def _workflow(tmp_path: Path, node: dict[str, Any], **settings: Any) -> tuple[dict[str, str], str]:
    workflow = {"name": "p", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "DB", "type": "n8n-nodes-base.postgres", "position": [1, 0], **node, **settings}],
        "connections": {"Start": {"main": [[{"node": "DB", "type": "main", "index": 0}]]}}}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="p", into=tmp_path / "a", force=True)
    rows = {r.node: r.status if r.status != "todo" else f"todo: {r.why}" for r in written.scaffold.rows}
    return rows, written.path.read_text(encoding="utf-8")


def test_execute_query_is_one_sql_call_per_run_with_each_items_parameters(tmp_path: Path) -> None:
    rows, source = _workflow(tmp_path, {"typeVersion": 2.6, "parameters": {
        "operation": "executeQuery", "query": "SELECT * FROM t WHERE id = $1",
        "options": {"queryReplacement": "={{ $json.id }}", "queryBatching": "independently"}}},
        onError="continueRegularOutput")
    assert rows["DB"] == "translated"
    assert "await n8n.pg_run(ctx, 'postgres', 'db', 'executeQuery', [n8n.pg_query('SELECT * FROM t WHERE id = $1'" in source
    assert "('spread', n8n.get(item['json'], 'id'))" in source
    assert "batching='independently'" in source and "keep_going=True" in source


def test_insert_v2_maps_the_input_item_as_its_description_defaults_say(tmp_path: Path) -> None:
    # v2's data mode defaults to "Map Automatically": a v2.2-style columns mapping is not read by n8n either
    rows, source = _workflow(tmp_path, {"typeVersion": 2, "parameters": {
        "operation": "insert", "schema": {"__rl": True, "mode": "list", "value": "public"},
        "table": {"__rl": True, "mode": "list", "value": "t"},
        "columns": {"mappingMode": "defineBelow", "value": {"a": "={{ $json.a }}"}}}})
    assert rows["DB"] == "translated"
    assert "n8n.pg_row(2.0, 'autoMapInputData', item, None, pairs=[])" in source
    assert n8n.pg_row(2.0, "autoMapInputData", {"json": {"a": 1}}, None) == {"a": 1}


def test_postgres_v1_and_an_error_output_stay_todos_naming_the_call_and_its_secret(tmp_path: Path) -> None:
    rows, _ = _workflow(tmp_path, {"typeVersion": 1, "parameters": {"operation": "executeQuery", "query": "SELECT 1"}})
    assert rows["DB"].startswith("todo: postgres v1 parameters are not translated")
    assert "needs the database's connection string from $POSTGRES_URL" in rows["DB"]
    rows, _ = _workflow(tmp_path, {"typeVersion": 2.5, "parameters": {"operation": "executeQuery", "query": "SELECT 1"}},
                        onError="continueErrorOutput")
    assert rows["DB"].startswith("todo: On Error 'continue (using error output)' is not translated")


def _execution(node: dict[str, Any], inputs: list[dict[str, Any]], output: list[dict[str, Any]]) -> dict[str, Any]:
    nodes = [{"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {"path": "p"}},
             {"name": "Make", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {}},
             {"name": "DB", "type": "n8n-nodes-base.postgres", **node}]
    run_data = {
        "Hook": [{"startTime": 1, "executionIndex": 0, "data": {"main": [[{"json": {"body": {}}}]]}}],
        "Make": [{"startTime": 2, "executionIndex": 1, "source": [{"previousNode": "Hook"}],
                  "data": {"main": [[{"json": item} for item in inputs]]}}],
        "DB": [{"startTime": 3, "executionIndex": 2, "source": [{"previousNode": "Make", "previousNodeOutput": 0}],
                "data": {"main": [[{"json": item} for item in output]]}}],
    }
    return {"id": "9", "status": "success", "mode": "webhook", "startedAt": "2024-06-01T00:00:00.000Z",
            "workflowData": {"name": "w", "nodes": nodes, "connections": {}},
            "data": {"resultData": {"runData": run_data}}}


def test_a_postgres_run_is_imported_as_its_sql_call_with_the_statements_of_its_input_items(tmp_path: Path) -> None:
    from harness.manifest import AutomationEntry, Coercion
    from harness.platforms.n8n.history import parse
    from harness.recording import Platform

    entry = AutomationEntry("w", Platform.N8N, Coercion.N8N, providers={"postgres": "postgres"})
    insert = {"typeVersion": 2.6, "parameters": {"operation": "insert", "table": {"__rl": True, "value": "t"},
                                                 "columns": {"mappingMode": "autoMapInputData", "value": {}}}}
    query = {"typeVersion": 2.6, "parameters": {"operation": "executeQuery", "query": "SELECT $1 AS v",
                                                "options": {"queryReplacement": "={{ $json.v }}"}}}
    calls = []
    for node in (insert, query):
        path = tmp_path / "e.json"
        path.write_text(json.dumps([_execution(node, [{"a": 1}, {"a": 2}], [{"id": 1}])]), encoding="utf-8")
        [run] = list(parse(path, entry))
        assert run.trace is not None  # type: ignore[union-attr]
        calls.append(run.trace.calls[0])  # type: ignore[union-attr]
    assert calls[0] == {"step": "DB", "provider": "postgres", "method": "SQL", "url": "/insert", "body": {
        "batching": "single", "continue": False,
        "statements": [n8n.pg_insert("public", "t", {"a": a}, version=2.6) for a in (1, 2)]}}
    assert calls[1] == {"step": "DB", "provider": "postgres", "method": "SQL", "url": "/executeQuery", "body": None}


def test_a_node_without_operation_is_read_as_n8ns_default_and_its_todo_says_so(tmp_path: Path) -> None:
    rows, _ = _workflow(tmp_path, {"typeVersion": 2.4, "parameters": {"query": "SELECT 1"}})
    assert rows["DB"].startswith("todo: the node names no table (or schema); the export names no operation, so it is "
                                 "n8n's default for v2.4, insert; the call: postgres: database.insert on the database")

"""n8n's Data Table node v1.1 (n8n 2.x): its rows read in n8n 2.x's order, its table resource a TODO (no database here)."""

from __future__ import annotations

from pathlib import Path

from queue_core.compat import n8n
from queue_core.compat._n8n_datatable import dt_order

from tests.unit.test_n8n_datatable import TABLE, _workflow


def test_n8n_2x_sorts_by_the_chosen_column_then_by_id_and_by_id_alone_otherwise() -> None:
    assert dt_order(None, "DESC") == [("id", "ASC")]
    assert dt_order("", "ASC") == [("id", "ASC")]
    assert dt_order("score", "DESC") == [("score", "DESC"), ("id", "ASC")]
    assert dt_order("id", "desc") == [("id", "DESC")]
    one = n8n.dt_filters([{"keyName": "name", "keyValue": "a"}], "allConditions", node="N")
    statement = n8n.dt_get("t", one, limit=2, order=[("score", "DESC"), ("id", "ASC")])
    assert statement == {"query": 'SELECT * FROM "t" WHERE "name" = $1 ORDER BY "score" DESC, "id" ASC LIMIT 2',
                         "values": ["a"]}
    assert "ORDER BY" not in n8n.dt_get("t", one, limit=2)["query"]  # v1 (n8n 1.x): the table's own order


def test_a_v1_1_get_reads_its_description_s_defaults_and_sorts_as_n8n_2x(tmp_path: Path) -> None:
    rows, source = _workflow(tmp_path, {"typeVersion": 1.1, "parameters": {"operation": "get", "dataTableId": TABLE}})
    assert rows["DB"] == "translated"
    assert "limit=50, order=[('id', 'ASC')])" in source
    rows, source = _workflow(tmp_path, {"typeVersion": 1.1, "parameters": {
        "operation": "get", "dataTableId": TABLE, "returnAll": True, "orderBy": True, "orderByColumn": "score"}})
    assert rows["DB"] == "translated"
    assert "limit=None, order=[('score', 'DESC'), ('id', 'ASC')])" in source  # orderByDirection's default: DESC


def test_a_v1_1_row_write_is_translated_as_v1_and_the_table_resource_stays_a_todo(tmp_path: Path) -> None:
    rows, source = _workflow(tmp_path, {"typeVersion": 1.1, "parameters": {
        "operation": "deleteRows", "dataTableId": TABLE, "filters": {"conditions": [{"keyName": "a", "keyValue": "x"}]}}})
    assert rows["DB"] == "translated" and "n8n.dt_delete('instagram_to_youtube'" in source
    rows, _ = _workflow(tmp_path, {"typeVersion": 1.1, "parameters": {"resource": "table", "operation": "create",
                                                                       "tableName": "t"}})
    assert rows["DB"].startswith("todo: dataTable table.create (a data table's own create, in n8n's database) is not "
                                 "translated")
    rows, _ = _workflow(tmp_path, {"typeVersion": 1.1, "parameters": {"operation": "get", "dataTableId": TABLE,
                                                                       "orderBy": True, "orderByColumn": "={{ 'a' }}"}})
    assert rows["DB"].startswith("todo: orderByColumn is an expression: not translated")

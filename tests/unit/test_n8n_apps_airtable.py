"""Airtable v2 get, search and update: the REST calls n8n's node makes (respx answers), and its output items."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

import httpx
import respx

from tests.support.app_calls import run_node, scaffold_node

RECORDED = {"X-Cutover-Recorded": "recording"}  # the gateway's mark on an answer from a recording

BASES = {"airtable": "https://api.airtable.com"}
TABLE = "https://api.airtable.com/v0/appB/My%20Table"
RECORD = {"id": "rec1", "createdTime": "2024-01-01T00:00:00.000Z", "fields": {"Name": "Ada", "Email": "ada@x.test"}}


def _node(operation: str, version: float = 2.1, **params: object) -> dict[str, object]:
    return {"name": "Air", "type": "n8n-nodes-base.airtable", "typeVersion": version, "parameters": {
        "operation": operation, "base": {"__rl": True, "value": "appB", "mode": "list"},
        "table": {"__rl": True, "value": "My Table", "mode": "list"}, **params}}


def _query(url: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(url).query)


@respx.mock
def test_search_returns_every_page_flattened_and_sends_formula_fields_and_sort_as_n8n_s_query() -> None:
    route = respx.get(TABLE).mock(side_effect=[
        httpx.Response(200, json={"records": [RECORD], "offset": "itr2"}),
        httpx.Response(200, json={"records": [{"id": "rec2", "createdTime": "t", "fields": {"Name": "Bob"}}]})])
    node = _node("search", filterByFormula="={Email} = '{{ $json.email }}'",
                 sort={"property": [{"field": "Name"}]}, options={"fields": "Name, Email"})
    ctx, out, error = run_node(node, [{"email": "ada@x.test"}], BASES)
    assert error is None and route.call_count == 2
    first, second = (_query(u) for _, _, u, _ in ctx.sent)
    assert first == [("filterByFormula", "{Email} = 'ada@x.test'"), ("fields[0]", "Name"), ("fields[1]", "Email"),
                     ("sort[0][field]", "Name"), ("sort[0][direction]", "asc"), ("pageSize", "100")]
    assert second == first + [("offset", "itr2")]
    assert out == [{"id": "rec1", "createdTime": "2024-01-01T00:00:00.000Z", "Name": "Ada", "Email": "ada@x.test"},
                   {"id": "rec2", "createdTime": "t", "Name": "Bob"}]


@respx.mock
def test_search_with_a_limit_sends_max_records_once_and_v2_searches_once_for_all_items() -> None:
    respx.get(TABLE).mock(return_value=httpx.Response(200, json={"records": [RECORD], "offset": "more"}))
    ctx, out, error = run_node(_node("search", returnAll=False, limit=5), [{}, {}], BASES)
    assert error is None and len(ctx.sent) == 2  # v2.1: once per item, no next page
    assert _query(ctx.sent[0][2]) == [("maxRecords", "5")] and len(out or []) == 2
    ctx, out, error = run_node(_node("search", version=2, returnAll=False, limit=5), [{}, {}], BASES)
    assert error is None and len(ctx.sent) == 1 and out == [
        {"id": "rec1", "createdTime": "2024-01-01T00:00:00.000Z", "Name": "Ada", "Email": "ada@x.test"}]


@respx.mock
def test_get_reads_the_record_by_id_and_outputs_it_flattened() -> None:
    respx.get(f"{TABLE}/rec1").mock(return_value=httpx.Response(200, json=RECORD))
    ctx, out, error = run_node(_node("get", id="={{ $json.rid }}"), [{"rid": "rec1"}], BASES)
    assert error is None and [s[1:3] for s in ctx.sent] == [("GET", f"{TABLE}/rec1")]
    assert out == [{"id": "rec1", "createdTime": "2024-01-01T00:00:00.000Z", "Name": "Ada", "Email": "ada@x.test"}]


@respx.mock
def test_update_matched_on_id_patches_the_fields_without_the_id_and_outputs_the_records_unflattened() -> None:
    respx.patch(TABLE).mock(side_effect=lambda request: httpx.Response(200, json={"records": [
        {**r, "createdTime": "t"} for r in json.loads(request.content)["records"]]}))
    node = _node("update", columns={"mappingMode": "defineBelow", "matchingColumns": ["id"],
                                    "value": {"id": "={{ $json.rid }}", "Name": "={{ $json.name }}"}},
                 options={"typecast": True})
    ctx, out, error = run_node(node, [{"rid": "rec1", "name": "Ada"}, {"rid": "rec2", "name": "Bob"}], BASES)
    assert error is None
    assert [s[3] for s in ctx.sent] == [{"typecast": True, "records": [{"id": "rec1", "fields": {"Name": "Ada"}}]},
                                        {"typecast": True, "records": [{"id": "rec2", "fields": {"Name": "Bob"}}]}]
    assert out == [{"id": "rec1", "fields": {"Name": "Ada"}, "createdTime": "t"},
                   {"id": "rec2", "fields": {"Name": "Bob"}, "createdTime": "t"}]


@respx.mock
def test_update_matched_on_a_column_reads_the_table_first_and_fails_as_n8n_does_without_a_match() -> None:
    respx.get(TABLE).mock(return_value=httpx.Response(200, json={"records": [
        {"id": "rec1", "fields": {"Email": "ada@x.test"}}, {"id": "rec2", "fields": {"Email": "bob@x.test"}}]}))
    respx.patch(TABLE).mock(return_value=httpx.Response(200, json={"records": [RECORD]}))
    node = _node("update", columns={"mappingMode": "defineBelow", "matchingColumns": ["Email"],
                                    "value": {"Email": "={{ $json.email }}", "Name": "Bobby"}})
    ctx, out, error = run_node(node, [{"email": "bob@x.test"}], BASES)
    assert error is None
    assert _query(ctx.sent[0][2]) == [("fields[0]", "Email"), ("pageSize", "100")]
    assert ctx.sent[1][1:] == ("PATCH", TABLE, {"typecast": False, "records": [{"id": "rec2", "fields": {"Name": "Bobby"}}]})
    _, _, error = run_node(node, [{"email": "eve@x.test"}], BASES)
    assert error is not None and "Record matching provided keys was not found" in str(error)


@respx.mock
def test_a_recorded_output_answer_is_the_node_s_items_as_they_are() -> None:
    recorded = [{"id": "rec9", "createdTime": "t", "Name": "Ada"}]  # what a shadow run answers: n8n's output
    respx.get(TABLE).mock(return_value=httpx.Response(200, json=recorded, headers=RECORDED))
    ctx, out, error = run_node(_node("search"), [{}], BASES)
    assert error is None and len(ctx.sent) == 1 and out == recorded


def test_update_without_matching_columns_and_a_url_base_stay_precise_todos() -> None:
    status, _ = scaffold_node(_node("update", columns={"mappingMode": "defineBelow", "value": {"a": 1}}))
    assert status.startswith("todo") and "columns.matchingColumns" in status
    node = _node("get", id="rec1")
    node["parameters"]["base"] = {"__rl": True, "mode": "url", "value": "https://airtable.com/appB"}  # type: ignore[index]
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "by URL" in status

"""Google BigQuery v2 Execute Query: n8n's job insert, results read or polled, rows keyed by the schema (respx)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
import respx

from tests.support.app_calls import RespxContext, run_node

RECORDED = {"X-Cutover-Recorded": "recording"}  # the gateway's mark on an answer from a recording

BASES = {"bigquery": "https://bigquery.googleapis.com"}
JOBS = "https://bigquery.googleapis.com/bigquery/v2/projects/proj-1/jobs"
RESULTS = "https://bigquery.googleapis.com/bigquery/v2/projects/proj-1/queries/job-9"
SCHEMA = {"fields": [{"name": "supplier", "type": "STRING"}, {"name": "units", "type": "INTEGER"},
                     {"name": "tags", "type": "STRING", "mode": "REPEATED"},
                     {"name": "meta", "type": "JSON"}]}


def _node(**options: object) -> dict[str, object]:
    return {"name": "Query", "type": "n8n-nodes-base.googleBigQuery", "typeVersion": 2.1, "parameters": {
        "projectId": {"__rl": True, "mode": "list", "value": "proj-1"},
        "sqlQuery": "SELECT * FROM t WHERE s = '{{ $json.s }}'", "options": options}}


def _row(supplier: str, units: str) -> dict[str, object]:
    return {"f": [{"v": supplier}, {"v": units}, {"v": [{"v": "a"}, {"v": "b"}]}, {"v": '{"k": 1}'}]}


@respx.mock
def test_a_done_job_s_results_are_read_page_by_page_and_keyed_by_the_schema() -> None:
    respx.post(JOBS).mock(return_value=httpx.Response(200, json={
        "jobReference": {"jobId": "job-9", "location": "EU"}, "status": {"state": "DONE"}}))
    respx.get(RESULTS).mock(side_effect=[
        httpx.Response(200, json={"schema": SCHEMA, "rows": [_row("acme", "3")], "pageToken": "p2", "jobComplete": True}),
        httpx.Response(200, json={"schema": SCHEMA, "rows": [_row("zeta", "5")], "jobComplete": True})])
    ctx, out, error = run_node(_node(returnAsNumbers=True), [{"s": "x"}], BASES)
    assert error is None
    assert ctx.sent[0][3] == {"configuration": {"query": {"returnAsNumbers": True, "query": "SELECT * FROM t WHERE s = 'x'",
                                                          "useLegacySql": False}}}
    assert parse_qsl(urlsplit(ctx.sent[1][2]).query) == [("location", "EU"), ("maxResults", "1000"), ("timeoutMs", "10000")]
    assert parse_qsl(urlsplit(ctx.sent[2][2]).query)[-1] == ("pageToken", "p2")
    assert out == [{"supplier": "acme", "units": 3, "tags": ["a", "b"], "meta": {"k": 1}},
                   {"supplier": "zeta", "units": 5, "tags": ["a", "b"], "meta": {"k": 1}}]


@respx.mock
def test_a_running_job_is_polled_with_n8n_s_waits_and_a_result_without_rows_is_success(
        monkeypatch: pytest.MonkeyPatch) -> None:
    respx.post(JOBS).mock(return_value=httpx.Response(200, json={
        "jobReference": {"jobId": "job-9"}, "status": {"state": "RUNNING"}}))
    respx.get(RESULTS).mock(side_effect=[httpx.Response(200, json={"jobComplete": False}),
                                         httpx.Response(200, json={"jobComplete": False}),
                                         httpx.Response(200, json={"jobComplete": True})])
    waits: list[float] = []

    async def sleep(self: object, seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(RespxContext, "sleep", sleep)
    ctx, out, error = run_node(_node(maxResults=50), [{"s": "x"}], BASES)
    assert error is None and out == [{"success": True}] and waits == [1.0, 2.0]
    assert parse_qsl(urlsplit(ctx.sent[1][2]).query) == [("maxResults", "50"), ("timeoutMs", "10000")]


@respx.mock
def test_a_recorded_output_answer_is_the_items_and_no_results_are_asked_for() -> None:
    recorded = [{"supplier": "acme", "units": "3"}]
    respx.post(JOBS).mock(return_value=httpx.Response(200, json=recorded, headers=RECORDED))
    ctx, out, error = run_node(_node(), [{"s": "x"}], BASES)
    assert error is None and len(ctx.sent) == 1 and out == recorded

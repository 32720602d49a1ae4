"""A recorded node output stands in for an app's answer only offline: live, an odd answer fails the node.

In shadow and dry-run the gateway answers a call with the legacy node's recorded output (marked
``X-Cutover-Recorded``) or a synthetic answer (``X-Cutover-Synthetic``); the app runtimes take a
body that is not the API's shape as the node's items then, and only then.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from queue_core.compat import n8n
from queue_core.compat._n8n_bigquery import bigquery_queries
from queue_core.compat._n8n_records import offline
from queue_core.errors import NodeFailed

RECORDED = {"X-Cutover-Recorded": "recording"}


def _answer(body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(200, json=body, headers=headers or {})


def test_only_the_gateways_offline_marks_make_an_answer_offline() -> None:
    assert offline(_answer({}, RECORDED)) and offline(_answer({}, {"X-Cutover-Synthetic": "dry_run"}))
    assert not offline(_answer({})) and not offline(object())


@pytest.mark.parametrize(("read", "body"), [
    (lambda r: n8n.listed(r, "results"), [{"id": "1", "email": "a@x.test"}]),
    (n8n.airtable_updated, [{"id": "rec1", "Name": "A"}]),
    (n8n.airtable_record, [{"id": "rec1", "Name": "A"}]),
    (n8n.data_items, {"gid": "9", "name": "task"}),
])
def test_a_recorded_output_is_the_nodes_items_offline_and_fails_the_node_live(read: Any, body: Any) -> None:
    items = read(_answer(body, RECORDED))
    expected = body if isinstance(body, list) else [body]
    assert [item["json"] for item in items] == expected
    with pytest.raises(NodeFailed, match="the answer is not"):
        read(_answer(body))


def test_the_apis_own_shape_is_read_in_either_mode() -> None:
    page = {"results": [{"id": "1"}]}
    assert n8n.listed(_answer(page), "results") == n8n.listed(_answer(page, RECORDED), "results") == [{"json": {"id": "1"}}]


class _Ctx:
    def __init__(self, response: httpx.Response) -> None:
        self.response = response

    async def call(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.response


def test_a_bigquery_job_insert_without_a_job_reference_fails_live_and_is_the_recording_offline() -> None:
    recorded = [{"day": "2024-06-03", "visits": 12}]
    queries = [("proj", "SELECT 1", {})]
    items = asyncio.run(bigquery_queries(_Ctx(_answer(recorded, RECORDED)), "bigquery", queries, step="q", node="Q"))
    assert [item["json"] for item in items] == recorded
    with pytest.raises(NodeFailed, match="No job ID returned"):
        asyncio.run(bigquery_queries(_Ctx(_answer(recorded)), "bigquery", queries, step="q", node="Q"))

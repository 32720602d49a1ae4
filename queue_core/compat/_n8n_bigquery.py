"""What a scaffolded n8n Google BigQuery v2 *Execute Query* node needs at run time.

n8n inserts one query job per item (``POST /v2/projects/<project>/jobs`` with
``{configuration: {query: …}}``), reads the results of a job that is already ``DONE``
(``GET /v2/projects/<project>/queries/<job>`` with ``location``, ``maxResults`` and ``timeoutMs``,
following ``pageToken``), and then polls the other jobs, waiting 1 s, 2 s, 4 s … (at most 30 s)
between rounds, until each is complete. Each result's rows become items keyed by the schema's
field names (records nested, repeated fields as lists, JSON fields parsed); a result without
rows is ``{"success": true}``. ``maxResults`` and ``timeoutMs`` are the last item's that set them,
as in n8n, and *Return Integers as Numbers* converts only the results of jobs done at once (n8n's
polling path does not).

In a shadow run the job insert is answered with the node's recorded output (no ``jobReference``):
that is the node's items already, passed on as they are; only an answer the gateway marks as
offline (:func:`~._n8n_records.offline`) is taken so, and a live answer without one fails.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..errors import NodeFailed
from ._n8n_records import offline
from ._n8n_js import num

Item = dict[str, Any]
BASE = "https://bigquery.googleapis.com/bigquery/v2/projects/"
_NUMERIC = ("INTEGER", "NUMERIC", "FLOAT", "BIGNUMERIC")


def _recorded(answer: Any) -> list[Item]:
    values = answer if isinstance(answer, list) else [answer] if answer is not None else []
    return [{"json": v if isinstance(v, dict) else {"value": v}} for v in values
            if not (isinstance(v, str) and v.startswith("… "))]


def _field(schema: dict[str, Any], cell: Any) -> Any:
    value = cell.get("v") if isinstance(cell, dict) else None
    if schema.get("type") == "RECORD":
        return rows_of([value] if value is not None else [], schema.get("fields") or [])
    if schema.get("type") == "JSON" and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def rows_of(rows: Sequence[Any], fields: Sequence[dict[str, Any]], include_schema: bool = False) -> list[dict[str, Any]]:
    """Return BigQuery's ``rows`` (``{f: [{v: …}]}``) as records keyed by the schema's field names (n8n's ``simplify``)."""
    out = []
    for row in rows:
        record: dict[str, Any] = {}
        for index, cell in enumerate((row or {}).get("f") or []):
            schema = fields[index]
            if schema.get("mode") != "REPEATED":
                record[schema["name"]] = _field(schema, cell)
            else:
                values = (cell or {}).get("v") or []
                flat: list[Any] = []
                for entry in values:
                    got = _field(schema, entry)
                    flat.extend(got if isinstance(got, list) else [got])
                record[schema["name"]] = flat
        if include_schema:
            record["_schema"] = list(fields)
        out.append(record)
    return out


def _output(result: dict[str, Any], raw: bool, include_schema: bool) -> list[Item]:
    if raw:
        return [{"json": result}]
    rows, schema = result.get("rows"), result.get("schema")
    if rows is not None and schema is not None:
        return [{"json": r} for r in rows_of(rows, schema.get("fields") or [], include_schema)]
    if schema and include_schema:
        return [{"json": {"success": True, "_schema": schema}}]
    return [{"json": {"success": True}}]


async def _results(ctx: Any, provider: str, url: str, query: dict[str, Any], step: str) -> dict[str, Any]:
    """GET every page of a job's results (``pageToken``); the last answer with all the rows."""
    params = {k: v for k, v in query.items() if v is not None}
    rows: list[Any] = []
    while True:
        response = await ctx.call(provider, "GET", url, params=params, step=step)
        answer = response.json() or {}
        rows.extend(answer.get("rows") or [])
        token = answer.get("pageToken")
        if token in (None, ""):
            return {**answer, "rows": rows}
        params = {**params, "pageToken": token}


def _body(sql: Any, options: dict[str, Any], project: Any) -> dict[str, Any]:
    body = {k: v for k, v in options.items() if k not in ("rawOutput", "includeSchema", "maxResults", "timeoutMs")}
    body["query"] = sql
    if body.get("defaultDataset"):
        body["defaultDataset"] = {"datasetId": options["defaultDataset"], "projectId": project}
    body.setdefault("useLegacySql", False)
    if isinstance(body.get("queryParameters"), dict):
        named = body["queryParameters"].get("namedParameters") or []
        body["parameterMode"] = "NAMED"
        body["queryParameters"] = [{"name": p.get("name"), "parameterType": {"type": "STRING"},
                                    "parameterValue": {"value": p.get("value")}} for p in named]
    return body


async def bigquery_queries(ctx: Any, provider: str, queries: Sequence[tuple[Any, Any, dict[str, Any]]], *,
                           step: str, node: str) -> list[Item]:
    """Run each item's ``(project, sql, options)`` as n8n's Execute Query does; return the items in n8n's order."""
    out: list[Item] = []
    pending: list[tuple[str, Any, bool, bool, Any]] = []
    max_results, timeout_ms = 1000, 10000
    for index, (project, sql, given) in enumerate(queries):
        options = dict(given or {})
        raw, include_schema = bool(options.get("rawOutput", False)), bool(options.get("includeSchema", False))
        max_results = options.get("maxResults") or max_results
        timeout_ms = options.get("timeoutMs") or timeout_ms
        body = _body(sql, options, project)
        response = await ctx.call(provider, "POST", f"{BASE}{project}/jobs", json={"configuration": {"query": body}},
                                  step=step)
        answer = response.json()
        if not isinstance(answer, dict) or "jobReference" not in answer:
            if not offline(response):  # live: n8n fails a job insert without a jobReference
                raise NodeFailed(f"{node}: No job ID returned, item {index}")
            out.extend(_recorded(answer))  # a recorded output (shadow, dry-run)
            continue
        job = answer["jobReference"].get("jobId")
        if not job:
            raise NodeFailed(f"{node}: No job ID returned, item {index}")
        raw = raw or bool(options.get("dryRun"))
        location = options.get("location") or answer["jobReference"].get("location")
        url = f"{BASE}{project}/queries/{job}"
        if (answer.get("status") or {}).get("state") == "DONE":
            result = await _results(ctx, provider, url, {"location": location, "maxResults": max_results,
                                                         "timeoutMs": timeout_ms}, step)
            if body.get("returnAsNumbers") is True:
                types = [f.get("type") for f in (result.get("schema") or {}).get("fields") or []]
                for row in result.get("rows") or []:
                    for position, cell in enumerate((row or {}).get("f") or []):
                        if isinstance(cell, dict) and "v" in cell and position < len(types) and types[position] in _NUMERIC:
                            cell["v"] = num(cell["v"])
            out.extend(_output(result, raw, include_schema))
        else:
            pending.append((url, location, raw, include_schema, index))
    wait = 1.0
    while pending:
        settled = []
        for url, location, raw, include_schema, index in pending:
            query = {"location": location} if location else {}
            result = await _results(ctx, provider, url, {**query, "maxResults": max_results, "timeoutMs": timeout_ms},
                                    step)
            if result.get("jobComplete"):
                settled.append(url)
                out.extend(_output(result, raw, include_schema))
            if result.get("errors"):
                messages = ", ".join(str(e.get("message")) for e in result["errors"])
                raise NodeFailed(f"{node}: Error(s) ocurring while executing query from item {index}: {messages}")
        pending = [p for p in pending if p[0] not in settled]
        if pending:
            await ctx.sleep(wait)
            wait = wait * 2 if wait < 30 else wait
    return out

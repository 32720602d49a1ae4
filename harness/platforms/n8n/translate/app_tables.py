"""Airtable v2 (records: get, search, update) as n8n's Airtable node calls Airtable's REST API.

n8n reads the base and the table once, at the first item (the table ``encodeURI``'d), and calls
``https://api.airtable.com/v0/<base>/<table>``. *Get* outputs the record flattened
(``{id, createdTime, ...fields}``), *Search* every matching record flattened (``returnAll``: each
page of 100, following ``offset``; otherwise ``maxRecords``; v2 searches once, v2.1 once per
item), and *Update* the records Airtable answers, as they are (PATCH in batches of 10; matched on
the record id, or on other columns read from the table first). Runtime: ``_n8n_records``.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import check_version
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import dict_of, lit, name, stmts

BASE = "https://api.airtable.com/v0/"


def _locator(params: dict[str, Any], key: str) -> ast.expr:
    raw = params.get(key)
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    if locator.get("mode") == "url":
        raise Untranslatable(f"the Airtable {key} is given by URL (resource locator mode 'url'): give its id")
    value = locator.get("value")
    if value in (None, ""):
        raise Untranslatable(f"the Airtable {key} is not set")
    return expr.value(value)


def _url(params: dict[str, Any]) -> ast.expr:
    return _code.expr("n8n.concat($base_url, $base, '/', n8n.encode_uri($table))", base_url=BASE,
                      base=_locator(params, "base"), table=_locator(params, "table"))


def _options(params: dict[str, Any], known: set[str]) -> dict[str, Any]:
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - known)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(known)) or 'none'})")
    return options


def _settings(node: Node) -> dict[str, Any]:
    check_version(node, 2, "Airtable")
    return node.settings if node.described else node.parameters


def _frame(node: Node, slot: Slot, body: str, **holes: Any) -> list[ast.stmt]:
    """The node's lines: the URL at the first item, then ``body`` (which fills ``$var``)."""
    params = _settings(node)
    return stmts("""
items = $inp
$var: n8n.Items = []
if items:
    i, item = 0, items[0]
    url = $url
""" + body + """
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), url=_url(params), node=node.name,
                 step=slot.step, **holes)


def airtable_get(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """*Get*: ``GET <base>/<table>/<id>`` per item, the record flattened."""
    params = _settings(node)
    _options(params, set())
    return _frame(node, slot, """
    for i, item in enumerate(items):
        response = await ctx.call($provider, 'GET', n8n.concat(url, '/', $id), step=$step)
        $var.extend(n8n.airtable_record(response))
""", provider=provider, id=expr.value(params.get("id", "")))


def airtable_search(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """*Search*: the formula, output fields, sort and view as the query; every page or ``maxRecords``."""
    params = _settings(node)
    options = _options(params, {"fields", "view"})
    query: list[tuple[str, ast.expr]] = [("filterByFormula", expr.value(params.get("filterByFormula", "")))]
    if "fields" in options:
        query.append(("fields", _code.expr("n8n.listed_names($f)", f=expr.value(options["fields"]))))
    sort = (params.get("sort") or {}).get("property")
    if sort:
        query.append(("sort", expr.value(sort)))
    if "view" in options:
        view = options["view"]
        query.append(("view", expr.value(view.get("value") if isinstance(view, dict) else view)))
    return_all = params.get("returnAll", True)
    limit = params.get("limit", 100)
    each = "items" if node.version >= 2.1 else "items[:1]"
    return _frame(node, slot, f"""
    for i, item in enumerate({each}):
        query = n8n.truthy_fields($query)
        all_pages = n8n.truthy($all)
        if not all_pages:
            query['maxRecords'] = $limit
        $var.extend(await n8n.airtable_search(ctx, $provider, url, n8n.form_fields(query), step=$step, return_all=all_pages))
""", provider=provider, query=dict_of(query), all=expr.value(return_all), limit=expr.value(limit))


def airtable_update(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """*Update*: each item's record(s), matched on ``id`` or on the matching columns, PATCHed."""
    params = _settings(node)
    options = _options(params, {"typecast", "ignoreFields", "updateAllMatches"})
    columns = params.get("columns") or {}
    keys = columns.get("matchingColumns")
    if not isinstance(keys, list) or not keys:
        raise Untranslatable("columns.matchingColumns is not set: n8n's Airtable update fails without the "
                             "columns to match on; choose them in the workflow")
    mode = columns.get("mappingMode", "defineBelow")
    if mode not in ("defineBelow", "autoMapInputData"):
        raise Untranslatable(f"columns.mappingMode {mode!r} is not translated")
    typecast = bool(options.get("typecast"))
    ignore = expr.value(options.get("ignoreFields", ""))
    fields = (expr.value(columns.get("value") or {}) if mode == "defineBelow"
              else _code.expr("dict(n8n.get(item, 'json') or {})"))
    if "id" in keys:
        build = ("        record = dict($fields)\n        record_id = record.pop('id', None)\n"
                 "        records = [{'id': record_id, 'fields': $kept}]\n")
        kept = _code.expr("record") if mode == "defineBelow" else _code.expr("n8n.without(record, $ignore)",
                                                                                ignore=ignore)
        read = ""
    else:
        build = ("        record = dict($fields)\n        ids = n8n.airtable_matches(table, $keys, record, "
                 "update_all=n8n.truthy($update_all), node=$node)\n"
                 "        records = [{'id': found, 'fields': $kept} for found in ids]\n")
        kept = (_code.expr("n8n.without(record, $keys)", keys=lit(keys)) if mode == "defineBelow"
                else _code.expr("n8n.without(record, $ignore)", ignore=ignore))
        # n8n reads the matching columns of the whole table first; in shadow the recorded
        # output (the updated records) stands in for the table
        read = ("    table, recorded = await n8n.airtable_pages(ctx, $provider, url, n8n.form_fields({'fields': $keys}), "
                "step=$step)\n    table = table or [r.get('json') for r in recorded or []]\n")
    return _frame(node, slot, read + """
    for i, item in enumerate(items):
""" + build + """
        $var.extend(await n8n.airtable_patch(ctx, $provider, url, records, typecast=$typecast, step=$step))
""", provider=provider, fields=fields, kept=kept, keys=lit(keys), typecast=typecast,
                  update_all=expr.value(options.get("updateAllMatches", False)))


# -- Google BigQuery v2 (database: execute query) ----------------------------------------------

def bigquery_query(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """*Execute Query*: one job per item, its results read (polled until done) as n8n does."""
    check_version(node, 2, "Google BigQuery")
    params = node.settings if node.described else node.parameters
    raw = params.get("projectId")
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    if locator.get("mode") == "url":
        raise Untranslatable("the BigQuery project is given by URL (resource locator mode 'url'): give its id")
    if locator.get("value") in (None, ""):
        raise Untranslatable("the BigQuery projectId is not set")
    sql = str(params.get("sqlQuery", ""))
    # n8n evaluates each {{ … }} in the query text (the parameter itself takes no expression)
    query = expr.template(sql) if "{{" in sql else lit(sql)
    known = {"defaultDataset", "dryRun", "includeSchema", "location", "maximumBytesBilled", "maxResults",
             "timeoutMs", "rawOutput", "useLegacySql", "returnAsNumbers", "queryParameters"}
    _options(params, known)
    return stmts("""
items = $inp
$var: n8n.Items = []
if items:
    queries = [($project, $query, $options) for i, item in enumerate(items)]
    $var.extend(await n8n.bigquery_queries(ctx, $provider, queries, step=$step, node=$node))
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), project=expr.value(locator.get("value")),
                 query=query, options=expr.value(params.get("options") or {}), provider=provider, step=slot.step,
                 node=node.name)

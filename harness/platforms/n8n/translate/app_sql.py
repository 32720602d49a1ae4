"""Translate n8n's Postgres node (v2 … 2.6): one statement per item, one call of a SQL provider per run.

The node's parameters are read as n8n runs them (``Node.settings``: the defaults of its
typeVersion's description, the options' defaults from the same description) and become one
``queue_core.compat.n8n`` statement builder per operation (``pg_query``, ``pg_insert``,
``pg_update``, ``pg_upsert``, ``pg_select``, ``pg_delete``), evaluated for every input item;
``n8n.pg_run`` then makes the node's one call (``ctx.call(provider, "SQL", "/<operation>",
json={"batching", "statements"})``) and turns the rows into its items. The provider is the
catalogue's ``postgres`` (``sql://postgres``): a ``kind = "sql"`` provider whose ``dsn_env``
names the connection string. Its proof is the shadow run (the statements and their parameters
are the call's body; the legacy node's output answers it), and the oracle's SQL cases
(``tests/oracle/sql_cases.py``) compare the runtime with n8n's own node on a real database.

Not translated, each a TODO naming the call and its secret: v1 (its ``columns``/``additionalFields``
parameters), "On Error: Continue (using error output)", and an option this module does not know.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.descriptions import properties
from harness.platforms.n8n.translate import app_datatable, expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name, stmts

_RESOLVABLE = re.compile(r"\{\{[\s\S]*?\}\}")
# Options read at run time, per operation (connectionTimeout and delayClosingIdleConnection are
# the provider's: its timeout, and one connection per call).
_OPTIONS = {"queryBatching", "connectionTimeout", "delayClosingIdleConnection", "largeNumbersOutput",
            "replaceEmptyStrings", "queryReplacement", "treatQueryParametersInSingleQuotesAsText", "outputColumns",
            "skipOnConflict", "cascade"}


def _option_default(node: Node, option: str) -> Any:
    """Return an option's default from the node's description (its ``options`` collection)."""
    for prop in properties(node.type, node.version) or []:
        if prop.get("name") == "options":
            for entry in prop.get("options") or []:
                if entry.get("name") == option:
                    return entry.get("default")
    return None


def _literal_option(node: Node, options: dict[str, Any], option: str) -> Any:
    value = options.get(option, _option_default(node, option))
    if expr.is_expression(value):
        raise Untranslatable(f"options.{option} is an expression: not translated (give it as a value)")
    return value


def _locator(value: Any) -> ast.expr:
    """A resource locator's value (``{"__rl": true, "mode": …, "value": …}``) or a plain value."""
    if isinstance(value, dict):
        if value.get("mode") == "url":
            raise Untranslatable("a schema or table given as a URL (resource locator mode 'url') is not translated")
        value = value.get("value")
    if value in (None, ""):
        raise Untranslatable("the node names no table (or schema)")
    return expr.value(value)


def _replacement_parts(raw: str, version: float) -> ast.expr:
    """Query Parameters' raw text as ``pg_values`` reads it (see queue_core.compat._n8n_postgres)."""
    text = re.sub(r"^=+", "", raw)
    parts: list[ast.expr] = []
    if version >= 2.5:
        found = _RESOLVABLE.findall(text)
        if found:
            parts = [ast.Tuple([lit("spread"), expr.expression(r[2:-2])], ast.Load()) for r in found]
        else:
            parts = [lit(("text", entry.strip())) for entry in text.split(",") if entry]
    else:
        for entry in (e.strip() for e in text.split(",") if e):
            found = _RESOLVABLE.findall(entry)
            parts += [ast.Tuple([lit("value"), expr.expression(r[2:-2])], ast.Load()) for r in found] \
                if found else [lit(("text", entry))]
    return ast.List(parts, ast.Load())


def _execute_query(node: Node, params: dict[str, Any], options: dict[str, Any]) -> ast.expr:
    query = params.get("query")
    if not isinstance(query, str) or not query.strip():
        raise Untranslatable("the node has no query")
    body = query[1:] if expr.is_expression(query) else query
    source = expr.template(body) if "{{" in body else lit(body)
    raw = options.get("queryReplacement")
    replacement: ast.expr = lit("")
    parts: ast.expr = ast.List([], ast.Load())
    if raw not in (None, ""):
        if not isinstance(raw, str | int | float):
            raise Untranslatable("options.queryReplacement is not text: not translated")
        replacement = expr.value(raw)
        parts = _replacement_parts(str(raw), node.version)
    quoted = bool(_literal_option(node, options, "treatQueryParametersInSingleQuotesAsText"))
    values = call("n8n.pg_values", replacement, parts, version=node.version, node=node.name)
    return call("n8n.pg_query", source, values, replacement, quoted_as_text=quoted)


def _row(node: Node, params: dict[str, Any]) -> ast.expr:
    """The row a write sends for one item (``pg_row``): mapped from the item or defined below."""
    if node.version < 2.2:
        mode = params.get("dataMode")
        pairs: list[ast.expr] = [dict_of((k, expr.value(v)) for k, v in p.items()) for p in
                 ((params.get("valuesToSend") or {}).get("values") or []) if isinstance(p, dict)]
        return call("n8n.pg_row", node.version, mode, name("item"), None, pairs=ast.List(pairs, ast.Load()))
    columns = params.get("columns") or {}
    values = columns.get("value") or {}
    if not isinstance(values, dict):
        raise Untranslatable("columns.value is not a mapping of columns: not translated")
    return call("n8n.pg_row", node.version, columns.get("mappingMode"), name("item"),
                dict_of((k, expr.value(v)) for k, v in values.items()))


def _matching(node: Node, params: dict[str, Any], row: ast.expr) -> tuple[ast.expr, ast.expr]:
    """The matching columns and the row (before 2.2: one column, its value defined apart)."""
    if node.version >= 2.2:
        match = (params.get("columns") or {}).get("matchingColumns") or []
        return lit([str(m) for m in match]), row
    column = params.get("columnToMatchOn")
    if expr.is_expression(column) or not column:
        raise Untranslatable("columnToMatchOn is an expression or missing: not translated")
    if params.get("dataMode") == "defineBelow":  # {**row, column: valueToMatchOn}
        row = ast.Dict([None, lit(column)], [row, expr.value(params.get("valueToMatchOn"))])
    return lit([column]), row


def _statement(node: Node, operation: str, params: dict[str, Any], options: dict[str, Any]) -> ast.expr:
    if operation == "executeQuery":
        return _execute_query(node, params, options)
    schema, table = _locator(params.get("schema")), _locator(params.get("table"))
    output = expr.value(options.get("outputColumns")) if options.get("outputColumns") else lit(None)
    if operation == "insert":
        return call("n8n.pg_insert", schema, table, _row(node, params), version=node.version, output=output,
                    skip_on_conflict=bool(_literal_option(node, options, "skipOnConflict")))
    if operation in ("update", "upsert"):
        match, row = _matching(node, params, _row(node, params))
        extra: dict[str, Any] = {"require": node.version >= 2.2} if operation == "update" else {}
        if operation == "update" and node.version < 2.2 and params.get("dataMode") != "defineBelow":
            extra["unread"] = "valueToMatchOn"  # n8n reads it, and it is not shown: the node fails
        return call(f"n8n.pg_{operation}", schema, table, row, match, node=node.name, output=output, **extra)
    where: list[ast.expr] = [dict_of((k, expr.value(v)) for k, v in w.items())
             for w in ((params.get("where") or {}).get("values") or []) if isinstance(w, dict)]
    combine = params.get("combineConditions", "AND")
    if operation == "select":
        sort: list[ast.expr] = [dict_of((k, expr.value(v)) for k, v in s.items())
                for s in ((params.get("sort") or {}).get("values") or []) if isinstance(s, dict)]
        return call("n8n.pg_select", schema, table, node=node.name, where=ast.List(where, ast.Load()), combine=combine,
                    sort=ast.List(sort, ast.Load()), return_all=expr.value(params.get("returnAll", False)),
                    limit=expr.value(params.get("limit", 50)), output=output)
    if operation == "deleteTable":
        return call("n8n.pg_delete", schema, table, expr.value(params.get("deleteCommand")), node=node.name,
                    where=ast.List(where, ast.Load()), combine=combine,
                    restart_sequences=expr.value(params.get("restartSequences", False)),
                    cascade=bool(_literal_option(node, options, "cascade")))
    raise Untranslatable(f"postgres database.{operation} is not an operation of the node")


def _skeleton(node: Node, operation: str) -> str:
    """The call's skeleton (provider, operation, fields, secret) and what this node fills in of it."""
    known = f"database.{operation}"
    call_text = catalogue.skeleton("postgres", known) if known in catalogue.app("postgres").operations else "postgres"
    shown = []
    for key in ("table", "query"):
        value = node.parameters.get(key)
        value = value.get("cachedResultName") or value.get("value") if isinstance(value, dict) else value
        if value not in (None, ""):
            shown.append(f"{key} {' '.join(str(value).split())[:160]!r}")
    return call_text + (f" (this node: {', '.join(shown)})" if shown else "")


def postgres_node(node: Node, slot: Slot) -> NodeCode:
    """Postgres v2 … 2.6: every item's statement, then one call of the SQL provider; its rows are the items."""
    operation = str(node.settings.get("operation") or "")
    if node.version < 2 or not node.described:
        raise Untranslatable(f"postgres v{node.version:g} parameters are not translated (v2 … v2.6 are); "
                             f"the call: {_skeleton(node, operation)}")
    if node.on_error == "error_output":
        raise Untranslatable("On Error 'continue (using error output)' is not translated (continue, and stop, are); "
                             f"the call: {_skeleton(node, operation)}")
    raw_params = node.parameters
    node = replace(node, parameters=node.settings)
    params = node.parameters
    if params.get("resource", "database") != "database":
        raise Untranslatable(f"postgres resource {params.get('resource')!r} is not translated")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated; the call: {_skeleton(node, operation)}")
    try:
        statement = _statement(node, operation, params, options)
    except Untranslatable as exc:
        given = "" if "operation" in raw_params else (f"; the export names no operation, so it is n8n's default for "
                                                      f"v{node.version:g}, {operation}")
        raise Untranslatable(f"{exc.reason}{given}; the call: {_skeleton(node, operation)}") from None
    batching = _literal_option(node, options, "queryBatching") or "single"
    large = _literal_option(node, options, "largeNumbersOutput") or "text"
    blank = bool(_literal_option(node, options, "replaceEmptyStrings")) and operation != "select" \
        and operation != "deleteTable"
    app = catalogue.app("postgres")
    provider = slot.providers.get(app.host, app.provider)
    proposals = {} if app.host in slot.providers else {provider: app.base_url}
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    lines = [comment(node), _code.comment(f"{provider}: database.{operation} → SQL {app.base_url}/{operation}"),
             *stmts("""
items = $inp
$var: n8n.Items = []
if items:
    $var = flow.emit($node, await n8n.pg_run(ctx, $provider, $step, $operation,
                                             [$statement for i, item in enumerate(items)], items,
                                             version=$version, batching=$batching, large_numbers=$large,
                                             keep_going=$keep))
""", inp=call("n8n.pg_blank_to_null", inp) if blank else inp, var=name(slot.var), node=node.name,
                 provider=provider, step=slot.step, operation=operation, statement=statement, version=node.version,
                 batching=batching, large=large, keep=node.on_error == "continue")]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


TRANSLATORS = {"postgres": postgres_node,
               "dataTable": app_datatable.data_table_node}  # Data Table: on a copy of its table (app_datatable)

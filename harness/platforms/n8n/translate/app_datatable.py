"""Translate n8n's Data Table node (v1, v1.1): each item's operation a statement on a copy of the table, one SQL call per run.

n8n keeps a data table's rows in its own database; the migrated node works on a copy of the
table in the database of the catalogue's ``postgres`` provider (``sql://postgres``, a
``kind = "sql"`` provider). The copy's name is derived from the data table's name
(``table_name``: lower case, every run of other characters ``_``; ``data_table_user_<id>``, n8n's
own name for it, when the export names none: ``dt_table_name``), and the generated code's comment holds the
``CREATE TABLE`` of the columns the node shows (``queue_core.compat.n8n.dt_table_ddl``).
Parameters are read with their defaults from the node's description (``Node.settings``).

v1.1 (n8n 2.x, described from n8n-nodes-base 2.41) differs from v1 where the rows are read: n8n 2.x
sorts them (Get's ``orderBy``/``orderByColumn``/``orderByDirection``, then ``id``:
``queue_core.compat._n8n_datatable.dt_order``), and outputs dates as ISO text (as v1's translation
already does). Its ``table`` resource (create, list, update, clear, delete a data table) is not translated.

Not translated, each a TODO naming its call: a typeVersion no description here has,
a data table given by an expression, "On Error: Continue", an option this module does not know.
"""

from __future__ import annotations

import ast
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name, stmts
from queue_core.compat._n8n_datatable import dt_order
from queue_core.compat.n8n import dt_copy_sql, dt_table_ddl, dt_table_name

OPERATIONS = ("get", "insert", "update", "upsert", "deleteRows", "rowExists", "rowNotExists")
VERSIONS = (1.0, 1.1)
_OPTIONS = {"insert": {"optimizeBulk"}, "update": {"dryRun"}, "upsert": {"dryRun"}, "deleteRows": {"dryRun"}}


def table_name(locator: Any) -> str:
    """Return the copy's table name for the node's ``dataTableId`` (``queue_core.compat.n8n.dt_table_name``)."""
    found = dt_table_name(locator)
    if found is None:
        raise Untranslatable("the data table is given by an expression (or not at all): not translated")
    return found


def _ident(locator: Any) -> Any:
    return locator.get("value") if isinstance(locator, dict) else locator


def _columns(params: dict[str, Any]) -> list[tuple[str, str]]:
    """The columns the node shows (its resource mapper's schema, else its conditions' columns, as text)."""
    schema = (params.get("columns") or {}).get("schema") if isinstance(params.get("columns"), dict) else None
    found = [(str(c.get("id") or c.get("displayName")), str(c.get("type") or "string")) for c in schema or []
             if isinstance(c, dict) and not c.get("removed")]
    for entry in ((params.get("filters") or {}).get("conditions") or []):
        key = str(entry.get("keyName")) if isinstance(entry, dict) else ""
        if key and key not in ("id", "createdAt", "updatedAt") and key not in dict(found):
            found.append((key, "string"))
    return found


def copy_sql(table: str, ident: Any, columns: list[tuple[str, str]]) -> str:
    """The statements that copy n8n's rows into the copy (``queue_core.compat.n8n.dt_copy_sql``)."""
    return _flat(dt_copy_sql(table, str(ident), columns))


def _flat(statement: str) -> str:
    return " ".join(statement.split())


def _filter(node: Node, params: dict[str, Any]) -> ast.expr:
    filters = params.get("filters") or {}
    conditions = filters.get("conditions") or [] if isinstance(filters, dict) else None
    if not isinstance(conditions, list) or not all(isinstance(c, dict) for c in conditions):
        raise Untranslatable("the conditions (filters.conditions) are not a list of conditions: not translated")
    entries = ast.List([dict_of((k, expr.value(v)) for k, v in c.items()) for c in conditions], ast.Load())
    return call("n8n.dt_filters", entries, expr.value(params.get("matchType")), node=node.name)


def _row(node: Node, params: dict[str, Any]) -> ast.expr:
    columns = params.get("columns") or {}
    values = columns.get("value") or {}
    if not isinstance(values, dict):
        raise Untranslatable("columns.value is not a mapping of columns: not translated")
    return call("n8n.dt_row", lit(columns.get("mappingMode")), name("item"),
                dict_of((k, expr.value(v)) for k, v in values.items()), node=node.name, index=name("i"))


def _statement(node: Node, operation: str, params: dict[str, Any], table: str, options: dict[str, Any]) -> ast.expr:
    dry = bool(options.get("dryRun"))
    if operation in ("get", "rowExists", "rowNotExists"):
        limit: ast.expr = lit(1) if operation != "get" else (
            lit(None) if params.get("returnAll") is True else expr.value(params.get("limit", 50)))
        if operation == "get" and expr.is_expression(params.get("returnAll")):
            raise Untranslatable("returnAll is an expression: not translated")
        if node.version < 1.1:
            return call("n8n.dt_get", lit(table), _filter(node, params), limit=limit)
        return call("n8n.dt_get", lit(table), _filter(node, params), limit=limit, order=lit(_order(params, operation)))
    if operation == "insert":
        return call("n8n.dt_insert", lit(table), _row(node, params), returning=not options.get("optimizeBulk"))
    if operation in ("update", "upsert"):
        return call(f"n8n.dt_{operation}", lit(table), name("row"), _filter(node, params), node=node.name, dry_run=dry)
    return call("n8n.dt_delete", lit(table), _filter(node, params), node=node.name, dry_run=dry)


def _order(params: dict[str, Any], operation: str) -> list[tuple[str, str]]:
    """v1.1's sort rules (n8n 2.x's data-table module): the Get's chosen column, then ``id``."""
    column = params.get("orderByColumn") if operation == "get" and params.get("orderBy") is True else None
    for key in ("orderBy", "orderByColumn", "orderByDirection"):
        if expr.is_expression(params.get(key)):
            raise Untranslatable(f"{key} is an expression: not translated")
    return dt_order(column, params.get("orderByDirection", "DESC"))


def _skeleton(node: Node, operation: str, table: str | None) -> str:
    on = f" on a copy of n8n's data table as table {table!r}" if table else ""
    return f"postgres SQL sql://postgres/dataTable.{operation}{on} (kind = \"sql\", its connection string from $POSTGRES_URL)"


def data_table_node(node: Node, slot: Slot) -> NodeCode:
    """Data Table v1, v1.1: every item's statement on the table's copy, then one call of the SQL provider."""
    params = node.settings if node.described else node.parameters
    operation = str(params.get("operation") or "insert")
    if params.get("resource", "row") == "table":
        raise Untranslatable(f"dataTable table.{operation} (a data table's own {operation}, in n8n's database) is not "
                             "translated: the rows' operations are")
    try:
        table = table_name(params.get("dataTableId"))
    except Untranslatable as exc:
        raise Untranslatable(f"{exc.reason}; the call: {_skeleton(node, operation, None)}") from None
    if not node.described or node.version not in VERSIONS:
        raise Untranslatable(f"dataTable v{node.version:g} is not described here (v1, v1.1 are): not translated; "
                             f"the call: {_skeleton(node, operation, table)}")
    if node.on_error != "stop":
        raise Untranslatable(f"On Error {node.on_error!r} is not translated (stop is); "
                             f"the call: {_skeleton(node, operation, table)}")
    if operation not in OPERATIONS or params.get("resource", "row") != "row":
        raise Untranslatable(f"dataTable {params.get('resource')}.{operation} is not an operation of the node")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _OPTIONS.get(operation, set()))
    if unknown or any(expr.is_expression(v) for v in options.values()):
        raise Untranslatable(f"options.{(unknown or list(options))[0]} is not translated (or an expression); "
                             f"the call: {_skeleton(node, operation, table)}")
    try:
        statement = _statement(node, operation, params, table, options)
    except Untranslatable as exc:
        raise Untranslatable(f"{exc.reason}; the call: {_skeleton(node, operation, table)}") from None
    app = catalogue.app("postgres")
    provider = slot.providers.get(app.host, app.provider)
    proposals = {} if app.host in slot.providers else {provider: app.base_url}
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    writes = operation in ("update", "upsert")
    rows: ast.expr = ast.List([], ast.Load())
    if writes:
        rows = ast.ListComp(_row(node, params), [ast.comprehension(ast.Tuple([name("i"), name("item")], ast.Store()),
                                                                     call("enumerate", name("items")), [], 0)])
    lines = [comment(node),
             _code.comment(f"{provider}: dataTable row.{operation} → SQL {app.base_url}/dataTable.{operation} on table "
                           f"{table!r}, a copy of n8n's data table {_ident(params.get('dataTableId'))!r}; "
                           f"create it with: {_flat(dt_table_ddl(table, _columns(params)))}"),
             _code.comment("(the columns this node shows; add the data table's others) and, where n8n keeps its data in "
                           f"Postgres, copy its rows with: {copy_sql(table, _ident(params.get('dataTableId')), _columns(params))}"),
             *stmts("""
items = $inp
$var: n8n.Items = []
if items:
    $written = $rows
    $var = flow.emit($node, await n8n.dt_run(ctx, $provider, $step, $operation,
                                             [$statement for (i, item), row in zip(enumerate(items), $written or items)],
                                             items, rows=$written, dry_run=$dry, optimize_bulk=$bulk))
""", inp=inp, var=name(slot.var), node=node.name, provider=provider, step=slot.step, operation=operation,
                 statement=statement, rows=rows, written=name(f"{slot.var}_rows"), dry=bool(options.get("dryRun")), bulk=bool(options.get("optimizeBulk")))]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


TRANSLATORS = {"dataTable": data_table_node}

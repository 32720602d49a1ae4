"""n8n's Data Table node (v1, v1.1) at run time, on a copy of its table in a SQL provider's database.

n8n keeps a data table's rows in its own database (``data_table_user_<id>``: ``id`` an identity
integer, the user's columns — string as text, number as double precision, boolean, date as
timestamptz — and ``createdAt``/``updatedAt`` timestamptz(3) defaulting to now). A migrated node
works on a copy of that table (``dt_table_ddl`` writes its ``CREATE TABLE``): each item's
operation is one parameterised statement, built as n8n's data-table module builds it for
Postgres, and the node makes ONE call of its SQL provider (``dt_run``: ``ctx.call(provider,
"SQL", "/dataTable.<operation>", json={"batching": "single", …})``, all statements in one
transaction, as ``queue_core.gateway.sql`` runs them).

Conditions (``dt_filters``) as n8n's: eq/gt/gte/lt/lte, neq (a null column counts as not equal),
like/ilike (the value wrapped in ``%`` unless it has one, ``\\`` and ``_`` escaped), isEmpty/
isNotEmpty (null tests), isTrue/isFalse; matched all (AND) or any (OR). Values are bound as their
JavaScript text, so the column's own type reads them (Postgres reports a value its column cannot
hold). Output rows as n8n's: the user's columns, then ``id``, ``createdAt``, ``updatedAt`` (ISO
text), numbers as numbers. Dry runs read the rows and answer their before/after states.

v1.1 (n8n 2.x) reads rows in order (``dt_order``: the Get's ``orderByColumn`` if it sorts, then ``id``)
and outputs dates as ISO text, as this module outputs every version's.

Not as n8n: the table's columns are not read first, so an unknown column or a value of the wrong
type is Postgres's error, not n8n's message; rows come in the copy's physical order, as n8n's
(no ORDER BY) for v1, which a copy keeps only if it was loaded in id order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from psycopg import sql

from ..errors import NodeFailed
from ..store.n8n_statements import part as _part
from ._n8n_js import MISSING, text
from ._n8n_pg_rows import iso_utc, parse_scalar, recorded_items

Item = dict[str, Any]
Statement = dict[str, Any]
SQL_HEADER = "x-cutover-sql"
SYSTEM = ("id", "createdAt", "updatedAt")
ROWS_LIMIT_DEFAULT = 50
_COMPARE = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_TYPES = {"string": "text", "number": "double precision", "boolean": "boolean", "date": "timestamptz(3)"}


def dt_table_name(locator: Any) -> str | None:
    """Return the copy's table name for a node's ``dataTableId``: the data table's name in lower
    case, each run of other characters ``_`` (at most 63 characters); ``data_table_user_<id>``,
    n8n's own name for it, when the export names none; None when the id is an expression."""
    label = locator.get("cachedResultName") if isinstance(locator, dict) else None
    ident = locator.get("value") if isinstance(locator, dict) else locator
    slug = re.sub(r"[^0-9a-z]+", "_", label.lower()).strip("_") if isinstance(label, str) else ""
    if slug:
        return slug[:63]
    if not isinstance(ident, str) or not ident or ident.startswith("=") or "{" in ident:
        return None
    return f"data_table_user_{ident}"


def dt_table_ddl(table: str, columns: Sequence[tuple[str, str]]) -> str:
    """Return the ``CREATE TABLE`` of a data table's copy: its system columns and ``columns`` (name, n8n type)."""
    if not columns:
        return _part("dt_create_bare", table=sql.Identifier(table)).as_string()
    listed = sql.SQL(", ").join(_part("dt_column", column=sql.Identifier(name), type=sql.SQL(_TYPES.get(kind, "text")))
                                for name, kind in columns)
    return _part("dt_create", table=sql.Identifier(table), columns=listed).as_string()


def dt_copy_sql(table: str, ident: str, columns: Sequence[tuple[str, str]]) -> str:
    """Return the statements that copy n8n's ``data_table_user_<ident>`` into the copy (ids kept, identity moved past them)."""
    names = sql.SQL(", ").join(sql.Identifier(c) for c in ["id", *(n for n, _ in columns), "createdAt", "updatedAt"])
    return _part("dt_copy", table=sql.Identifier(table), columns=names, source=sql.Identifier(f"data_table_user_{ident}"),
                 quoted=sql.Literal(sql.Identifier(table).as_string())).as_string()


def _bound(value: Any) -> Any:
    """A value as the statement binds it: null, or its JavaScript text (the column's type reads it)."""
    if value is None or value is MISSING:
        return None
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text(value)


def dt_filters(conditions: Sequence[dict[str, Any]], match_type: str, *, node: str) -> dict[str, Any]:
    """Return the node's filter (``filters.conditions``, ``matchType``) as n8n builds it: type and conditions."""
    if match_type not in ("allConditions", "anyCondition"):
        raise NodeFailed(f"{node}: unexpected match type")
    filters = []
    for entry in conditions:
        if not isinstance(entry, dict) or "keyName" not in entry:
            raise NodeFailed(f"{node}: unexpected fields input")
        condition, value = entry.get("condition") or "eq", entry.get("keyValue")
        if condition in ("isEmpty", "isNotEmpty"):
            condition, value = ("eq" if condition == "isEmpty" else "neq"), None
        elif condition in ("isTrue", "isFalse"):
            condition, value = "eq", condition == "isTrue"
        if condition in ("like", "ilike"):
            if value is None or value is MISSING:
                raise NodeFailed(f"{node}: {condition.upper()} filter value cannot be null or undefined")
            if not isinstance(value, str):
                raise NodeFailed(f"{node}: {condition.upper()} filter value must be a string")
            value = value if "%" in value else f"%{value}%"
        if condition in ("gt", "gte", "lt", "lte") and (value is None or value is MISSING):
            raise NodeFailed(f"{node}: {condition.upper()} filter value cannot be null or undefined")
        if condition not in (*_COMPARE, "neq", "like", "ilike"):
            raise NodeFailed(f"{node}: Unsupported filter condition: {condition}")
        filters.append({"column": text(entry.get("keyName")), "condition": condition,
                        "value": None if value is MISSING else value})
    return {"type": "and" if match_type == "allConditions" else "or", "filters": filters}


def _where(values: list[Any], filter_: dict[str, Any]) -> list[sql.Composable]:
    conditions: list[sql.Composable] = []
    for f in filter_["filters"]:
        column, condition, value = sql.Identifier(f["column"]), f["condition"], f["value"]
        if value is None and condition in ("eq", "neq"):
            conditions.append(_part("null_condition", column=column,
                                    operator=sql.SQL("IS NULL" if condition == "eq" else "IS NOT NULL")))
            continue
        if condition in ("like", "ilike"):
            value = value.replace("\\", "\\\\").replace("_", "\\_")
        values.append(_bound(value))
        mark = sql.SQL("$" + str(len(values)))
        if condition == "neq":
            conditions.append(_part("dt_neq", column=column, value=mark))
        elif condition in ("like", "ilike"):
            conditions.append(_part("dt_like", column=column, operator=sql.SQL(condition.upper()), value=mark))
        else:
            conditions.append(_part("condition", column=column, operator=sql.SQL(_COMPARE[condition]), value=mark))
    joiner = sql.SQL(" AND " if filter_["type"] == "and" else " OR ")
    return [_part("where", conditions=joiner.join(conditions))] if conditions else []


def dt_row(mode: str, item: Item, values: Any, *, node: str, index: int) -> dict[str, Any]:
    """Return the row an insert, update or upsert writes: the item's fields (its system columns
    left out) with "Map Each Column Automatically", else the node's ``columns.value``."""
    if mode == "autoMapInputData":
        data = {k: v for k, v in (item.get("json") or {}).items() if k not in SYSTEM}
    else:
        data = dict(values or {})
    row: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, list):
            raise NodeFailed(f"{node}: unexpected array input '{json.dumps(value, separators=(',', ':'))}' in row {index}")
        if isinstance(value, dict):
            raise NodeFailed(f"{node}: unexpected object input '{json.dumps(value, separators=(',', ':'))}' in row {index}")
        row[key] = None if value is MISSING else value
    return row


def _statement(parts: Sequence[sql.Composable], values: list[Any]) -> Statement:
    return {"query": sql.SQL(" ").join(parts).as_string(), "values": values}


def _all() -> sql.Composed:
    return _part("returning", columns=sql.SQL("*"))


def dt_get(table: str, filter_: dict[str, Any], *, limit: int | None,
           order: Sequence[tuple[str, str]] = ()) -> Statement:
    """Return Get's statement (rowExists and rowNotExists: ``limit`` 1): the rows the filter picks.

    ``order``: (column, ASC or DESC) rules, as n8n 2.x sorts (``dt_order``); none: the table's order.
    """
    values: list[Any] = []
    parts = [_part("select", columns=sql.SQL("*"), table=sql.Identifier(table)), *_where(values, filter_)]
    if order:
        rules = [_part("sort_rule", column=sql.Identifier(c), direction=sql.SQL("DESC" if d.upper() == "DESC" else "ASC"))
                 for c, d in order]
        parts.append(_part("order_by", rules=sql.SQL(", ").join(rules)))
    if limit:
        parts.append(_part("limit", limit=sql.Literal(int(limit))))
    return _statement(parts, values)


def dt_order(column: Any, direction: Any) -> list[tuple[str, str]]:
    """Return the sort rules of a v1.1 Get as n8n 2.x's data-table module sorts its rows: the chosen column
    (``orderByColumn``, none when empty) in its direction, then ``id`` ascending unless ``id`` was the column."""
    rules = [(str(column), "DESC" if str(direction).upper() == "DESC" else "ASC")] if column not in (None, "") else []
    if not rules or rules[0][0] != "id":
        rules.append(("id", "ASC"))
    return rules


def dt_insert(table: str, row: dict[str, Any], *, returning: bool = True) -> Statement:
    """Return Insert's statement for one row (every column it names; the others are null)."""
    tail = [_all()] if returning else []
    if not row:
        return _statement([_part("insert_defaults", table=sql.Identifier(table)), *tail], [])
    values = [_bound(v) for v in row.values()]
    marks = sql.SQL(",").join(sql.SQL("$" + str(i + 1)) for i in range(len(values)))
    columns = sql.SQL(",").join(sql.Identifier(c) for c in row)
    return _statement([_part("insert", table=sql.Identifier(table), columns=columns, values=marks), *tail], values)


def _required(filter_: dict[str, Any], row: dict[str, Any] | None, node: str) -> None:
    if not filter_["filters"]:
        raise NodeFailed(f"{node}: At least one condition is required")
    if row is not None and not row:
        raise NodeFailed(f"{node}: Data columns must not be empty")


def _update(table: str, row: dict[str, Any], filter_: dict[str, Any], values: list[Any]) -> sql.Composed:
    sets = []
    for column, value in row.items():
        values.append(_bound(value))
        sets.append(_part("assignment", column=sql.Identifier(column), value=sql.SQL("$" + str(len(values)))))
    sets.append(_part("dt_touch"))
    return sql.SQL(" ").join([_part("dt_update", table=sql.Identifier(table), assignments=sql.SQL(", ").join(sets)),
                              *_where(values, filter_)])


def dt_update(table: str, row: dict[str, Any], filter_: dict[str, Any], *, node: str, dry_run: bool = False) -> Statement:
    """Return Update's statement: set the row's columns (and updatedAt) on every row the filter picks.

    ``dry_run``: the statement reads those rows; ``dt_run`` answers their before and after states.
    """
    _required(filter_, row, node)
    if dry_run:
        return dt_get(table, filter_, limit=None)
    values: list[Any] = []
    return _statement([_update(table, row, filter_, values), _all()], values)


def dt_upsert(table: str, row: dict[str, Any], filter_: dict[str, Any], *, node: str, dry_run: bool = False) -> Statement:
    """Return Upsert's statement: update the rows the filter picks, or insert the row when there are none."""
    _required(filter_, row, node)
    if dry_run:
        return dt_get(table, filter_, limit=None)
    values: list[Any] = []
    update = _update(table, row, filter_, values)
    values.append(json.dumps({k: _bound(v) for k, v in row.items()}, ensure_ascii=False, separators=(",", ":")))
    columns = sql.SQL(",").join(sql.Identifier(c) for c in row)
    return _statement([_part("dt_upsert", update=update, table=sql.Identifier(table), columns=columns,
                             row=sql.SQL("$" + str(len(values))))], values)


def dt_delete(table: str, filter_: dict[str, Any], *, node: str, dry_run: bool = False) -> Statement:
    """Return Delete Rows' statement: delete the rows the filter picks, returning them (dry run: read them)."""
    _required(filter_, None, node)
    if dry_run:
        return dt_get(table, filter_, limit=None)
    values: list[Any] = []
    return _statement([_part("delete", table=sql.Identifier(table)), *_where(values, filter_), _all()], values)


def _shaped(row: dict[str, Any]) -> dict[str, Any]:
    """A row as n8n's data-table module returns it: the user's columns, then id, createdAt, updatedAt."""
    return {**{k: v for k, v in row.items() if k not in SYSTEM}, **{k: row.get(k) for k in SYSTEM}}


def _rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for s in result.get("sets") or []:
        columns = s.get("columns") or []
        for raw in s.get("rows") or []:
            out.append(_shaped({c: None if v is None else parse_scalar(int(oid), v, numbers=True, version=2.6)
                                for (c, oid), v in zip(columns, raw, strict=True)}))
    return out


def _dry(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[dict[str, Any]]:
    template = before if before is not None else after or {}
    empty = {"id": None, "createdAt": None, "updatedAt": None, **{k: None for k in template}}
    return [{**(before if before is not None else empty), "dryRunState": "before"},
            {**(after if after is not None else empty), "dryRunState": "after"}]


def _dry_run(operation: str, found: list[dict[str, Any]], row: dict[str, Any], now: str) -> list[dict[str, Any]]:
    if operation == "deleteRows":
        return [r for before in found for r in _dry(before, None)]
    changed = [r for before in found for r in _dry(before, {**before, **row, "updatedAt": now})]
    if changed or operation == "update":
        return changed
    return _dry(None, {"id": 0, "createdAt": now, "updatedAt": now, **row})


async def dt_run(ctx: Any, provider: str, step: str, operation: str, statements: list[Statement],
                 items: Sequence[Item], *, rows: Sequence[dict[str, Any]] = (), dry_run: bool = False,
                 optimize_bulk: bool = False, now: datetime | None = None) -> list[Item]:
    """Make the node's one call and return its output items, as n8n's Data Table node outputs them.

    ``operation`` is the node's (get, insert, update, upsert, deleteRows, rowExists,
    rowNotExists); ``rows`` the rows written (a dry run's "after" states), ``now`` the clock a
    dry run stamps them with. In shadow and dry-run the answer is the node's recorded output.
    """
    body = {"batching": "single", "continue": False, "statements": statements}
    response = await ctx.call(provider, "SQL", f"/dataTable.{operation}", json=body, step=step)
    if SQL_HEADER not in response.headers:
        return recorded_items(response.json())
    results = response.json().get("results") or []
    if operation == "insert":
        if optimize_bulk:
            return [{"json": {"success": True, "insertedRows": len(statements)}}]
        found = [r for result in results for r in _rows(result)]
        return [{"json": r, "pairedItem": {"item": i}} for i, r in enumerate(found)]
    out: list[Item] = []
    stamp = iso_utc(now or datetime.now(timezone.utc))
    for i, result in enumerate(results):
        found = _rows(result)
        if operation in ("rowExists", "rowNotExists"):
            if bool(found) == (operation == "rowExists"):
                out.append({"json": dict(items[i].get("json") or {}), "pairedItem": {"item": i}})
            continue
        if dry_run:
            found = _dry_run(operation, found, rows[i] if i < len(rows) else {}, stamp)
        out += [{"json": r, "pairedItem": {"item": i}} for r in found]
    return out

"""n8n's Postgres node (v2 … 2.6) at run time: its statements, its one call, its output items.

A scaffolded Postgres node builds one statement per input item, as the node does (``pg_query``
for Execute Query, ``pg_insert``, ``pg_update``, ``pg_upsert``, ``pg_select``, ``pg_delete``),
then makes ONE call of its SQL provider for the whole batch (``pg_run``: ``ctx.call(provider,
"SQL", "/<operation>", json={"batching", "statements"}, step=…)``, run by
``queue_core.gateway.sql``): n8n too sends a node's statements together ("Query Batching":
``single`` is one multi-statement query in one transaction, ``transaction`` and
``independently`` one statement after another). Values are always bound as ``$1, $2, …``
parameters; identifiers (schema, table, columns) are quoted as n8n's pg-promise quotes them.

The answer's rows are turned into items as the node-postgres driver under n8n parses them: int2/
int4 as numbers, int8 and numeric as text (unless "Output Large-Format Numbers As" numbers),
timestamps as ISO text in UTC with milliseconds, dates as the ISO text of their UTC midnight,
json/jsonb parsed, arrays as lists, anything else as its text. Each row is an item paired with
the statement it came from; a node whose statements return no rows outputs ``{"success": true}``
(none when every statement is a SELECT), as n8n 2.3+ does (before 2.3: by operation).

In shadow and dry-run the answer is the legacy node's recorded output (no ``X-Cutover-Sql``
header): its items are the node's output as recorded.

Not as n8n: the table's columns are not read first, so a column the table lacks, a null into a
NOT NULL column and "the row you are trying to update doesn't exist" come from Postgres (or the
call) instead of n8n's own pre-check messages; pg-promise's ``$1:name``/``:csv``/``^`` filters in
a typed query are not understood (Postgres reports a syntax error), and a query text holding
several statements takes no Query Parameters (bound parameters go with one statement; n8n writes
the values into the text). The statements' parts are
named queries (``queue_core/queries/n8n_postgres.sql``), composed with ``psycopg.sql``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from psycopg import sql

from ..errors import NodeFailed
from ..store.n8n_statements import part as _part
from ._n8n_pg_rows import output_items, recorded_items
from ._n8n_js import MISSING, text
from ._n8n_http import CALL_ERRORS

Item = dict[str, Any]
Statement = dict[str, Any]
SQL_HEADER = "x-cutover-sql"  # queue_core.gateway.sql.SQL_HEADER: a live answer, not a recording
NO_ROW = "The row you are trying to update doesn't exist"


def pg_values(replacement: Any, parts: Sequence[tuple[str, Any]], *, version: float, node: str) -> list[Any]:
    """Return Execute Query's query parameters (option "Query Parameters", ``queryReplacement``).

    ``replacement`` is the option's value evaluated; an array is the parameters as they are.
    Text (a number is text) takes its values from ``parts``, what the translator read of the
    option's raw text: ``("text", t)`` a literal value; ``("value", v)`` an expression's value
    (before 2.5, each ``{{ }}`` of a comma-separated entry is one parameter as it is);
    ``("spread", v)`` (2.5+) an expression's value as text, one parameter when that text is JSON,
    else split at commas. Anything else fails as n8n fails.
    """
    if isinstance(replacement, int | float) and not isinstance(replacement, bool):
        replacement = text(replacement)
    if replacement is MISSING or replacement is None:
        replacement = ""
    if isinstance(replacement, list):
        return list(replacement)
    if not isinstance(replacement, str):
        raise NodeFailed(f"{node}: Query Parameters must be a string of comma-separated values or an array of values")
    values: list[Any] = []
    for kind, value in parts:
        if kind == "spread":
            rendered = _rendered(value)
            values += [rendered] if _is_json(rendered) else _split(rendered)
        else:
            values.append(value)
    return values


def _rendered(value: Any) -> str:
    """n8n's text of an expression's value: objects and arrays as JSON, null as 'null'."""
    if value is MISSING or value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text(value)


def _is_json(value: str) -> bool:
    try:
        json.loads(value.strip())
    except ValueError:
        return False
    return True


def _split(value: str) -> list[str]:
    return [entry.strip() for entry in value.split(",") if entry]


def pg_query(query: Any, values: list[Any], replacement: Any, *, quoted_as_text: bool = False) -> Statement:
    """Return Execute Query's statement: ``query`` (its ``{{ }}`` already evaluated) and its parameters.

    With no "Query Parameters" (or "Treat query parameters in single quotes as text"), each
    ``'$n'`` in the query becomes a parameter of its own holding the text ``$n``, as n8n does.
    """
    query, values = text(query), list(values)
    if replacement in ("", None, MISSING) or quoted_as_text:
        for literal in re.findall(r"'\$[0-9]+'", query):
            values.append(literal.replace("'", ""))
            query = query.replace(literal, f"${len(values)}", 1)
    return {"query": query, "values": values}


def _names(columns: Sequence[Any]) -> sql.Composable:
    """Columns as pg-promise's ``:name`` quotes them: each a quoted identifier, ``*`` as it is."""
    return sql.SQL("*") if "*" in columns else sql.SQL(",").join(sql.Identifier(text(c)) for c in columns)


def _table(schema: Any, table: Any) -> sql.Identifier:
    return sql.Identifier(text(schema), text(table))


def _marks(values: list[Any], added: Sequence[Any]) -> list[sql.Composable]:
    """Bind ``added`` after ``values`` (appended to it); return their placeholders ``$n``."""
    marks: list[sql.Composable] = []
    for value in added:
        values.append(value)
        marks.append(sql.SQL("$" + str(len(values))))
    return marks


def _statement(parts: Sequence[sql.Composable], values: list[Any], **extra: Any) -> Statement:
    return {"query": sql.SQL(" ").join(parts).as_string(), "values": values, **extra}


def _returning(output: Sequence[Any] | None) -> sql.Composed:
    return _part("returning", columns=_names(list(output) if output else ["*"]))


def pg_row(version: float, mode: str, item: Item, values: Any, *, pairs: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Return the row a write sends: the input item's fields ("Map Automatically" /
    ``autoMapInputData``), or the node's own values ("Define Below": ``columns.value`` from 2.2,
    ``valuesToSend`` column/value pairs before)."""
    if mode == "autoMapInputData":
        return dict(item.get("json") or {})
    if mode != "defineBelow":
        raise NodeFailed(f"Postgres: data mode {mode!r} is not known")
    if version < 2.2:
        return {str(p.get("column")): p.get("value") for p in pairs}
    return dict(values or {})


def pg_insert(schema: Any, table: Any, row: dict[str, Any], *, version: float, output: Sequence[Any] | None = None,
              skip_on_conflict: bool = False) -> Statement:
    """Return Insert's statement for one item's row (``RETURNING`` the output columns, all by default)."""
    if version >= 2.6 and not row:
        return _statement([_part("insert_defaults", table=_table(schema, table)), _returning(output)], [])
    values: list[Any] = []
    marks = _marks(values, list(row.values()))
    parts: list[sql.Composable] = [_part("insert", table=_table(schema, table), columns=_names(list(row)),
                                         values=sql.SQL(",").join(marks))]
    if skip_on_conflict:
        parts.append(_part("skip_on_conflict"))
    return _statement([*parts, _returning(output)], values)


def _assignments(values: list[Any], row: dict[str, Any], columns: Sequence[str]) -> sql.Composable:
    return sql.SQL(", ").join(_part("assignment", column=sql.Identifier(c), value=_marks(values, [row.get(c)])[0])
                              for c in columns)


def pg_update(schema: Any, table: Any, row: dict[str, Any], match: Sequence[str], *, node: str,
              output: Sequence[Any] | None = None, require: bool = True, unread: str | None = None) -> Statement:
    """Return Update's statement: ``SET`` every other column ``WHERE`` each matching column equals the row's.

    ``require`` (2.2+): no row updated fails the node ("The row you are trying to update doesn't exist").
    ``unread``: a parameter n8n reads that the node's settings do not show (v2/v2.1's
    ``valueToMatchOn`` with "Map Automatically"): n8n fails the node, and so does this.
    """
    if unread is not None:
        raise NodeFailed(f"{node}: Could not get parameter ({unread})")
    match = [str(m) for m in match]
    updates = [c for c in row if c not in match]
    if not updates:
        raise NodeFailed(f"{node}: Add values to update to the input item or set the 'Data Mode' to 'Define Below' "
                         "to define the values to update.")
    values: list[Any] = []
    sets = _assignments(values, row, updates)
    conditions = sql.SQL(" AND ").join(_part("assignment", column=sql.Identifier(c), value=_marks(values, [row.get(c)])[0])
                                       for c in match)
    parts = [_part("update", table=_table(schema, table), assignments=sets, conditions=conditions), _returning(output)]
    return _statement(parts, values, **({"require_rows": NO_ROW} if require else {}))


def pg_upsert(schema: Any, table: Any, row: dict[str, Any], match: Sequence[str], *, node: str,
              output: Sequence[Any] | None = None) -> Statement:
    """Return Upsert's statement: insert the row, or on a conflict of the matching columns update the others."""
    match = [str(m) for m in match]
    if not match or not row.get(match[0]):
        raise NodeFailed(f"{node}: Column to match on not found in input item. Add a column to match on or set the "
                         "'Data Mode' to 'Define Below' to define the value to match on.")
    if len(row) == 1:
        raise NodeFailed(f"{node}: Add values to update or insert to the input item or set the 'Data Mode' to "
                         "'Define Below' to define the values to insert or update.")
    values: list[Any] = []
    marks = _marks(values, list(row.values()))
    insert = _part("insert", table=_table(schema, table), columns=_names(list(row)), values=sql.SQL(",").join(marks))
    others = [c for c in row if c not in match]
    action = _part("upsert_update", columns=_names(match), assignments=_assignments(values, row, others)) if others \
        else _part("upsert_nothing", columns=_names(match))
    return _statement([insert, action, _returning(output)], values)


_OPERATORS = ("=", "!=", "LIKE", ">", "<", ">=", "<=", "IS NULL", "IS NOT NULL")


def _where(values: list[Any], clauses: Sequence[dict[str, Any]], combine: str, node: str) -> list[sql.Composable]:
    """Select Rows' conditions (``where.values``: column, condition (``equal`` by default), value) as a WHERE part."""
    conditions = []
    for index, clause in enumerate(clauses):
        operator = str(clause.get("condition") or "equal")
        operator = "=" if operator == "equal" else operator
        if operator not in _OPERATORS:
            raise NodeFailed(f"{node}: the condition {operator!r} of entry {index + 1} of 'Select Rows' is not one of n8n's")
        value = raw = clause.get("value")
        if operator in (">", "<", ">=", "<="):
            value = _number(raw)
            if value != value:  # NaN
                raise NodeFailed(f"{node}: Operator in entry {index + 1} of 'Select Rows' works with numbers, but value "
                                 f"{text(raw)} is not a number")
        column = sql.Identifier(text(clause.get("column")))
        if operator in ("IS NULL", "IS NOT NULL"):
            conditions.append(_part("null_condition", column=column, operator=sql.SQL(operator)))
        else:
            conditions.append(_part("condition", column=column, operator=sql.SQL(operator),
                                    value=_marks(values, [value])[0]))
    joiner = sql.SQL(" OR " if combine == "OR" else " AND ")
    return [_part("where", conditions=joiner.join(conditions))] if conditions else []


def _number(value: Any) -> Any:
    """JavaScript's ``Number(value)`` for a parameter (text, number, boolean, null); NaN when not a number."""
    if value is None or isinstance(value, bool):
        return int(bool(value))
    if isinstance(value, int | float):
        return value
    try:
        number = float(str(value).strip() or 0)
    except ValueError:
        return float("nan")
    return int(number) if number.is_integer() else number


def pg_select(schema: Any, table: Any, *, node: str, where: Sequence[dict[str, Any]] = (), combine: str = "AND",
              sort: Sequence[dict[str, Any]] = (), return_all: bool = False, limit: Any = 50,
              output: Sequence[Any] | None = None) -> Statement:
    """Return Select's statement: its columns, conditions, sort rules and limit (50 unless Return All)."""
    values: list[Any] = []
    parts: list[sql.Composable] = [_part("select", columns=_names(list(output) if output else ["*"]),
                                         table=_table(schema, table)), *_where(values, where, combine, node)]
    if sort:
        rules = [_part("sort_rule", column=sql.Identifier(text(r.get("column"))),
                       direction=sql.SQL("DESC" if r.get("direction") == "DESC" else "ASC")) for r in sort]
        parts.append(_part("order_by", rules=sql.SQL(", ").join(rules)))
    if not return_all:
        parts.append(_part("limit", limit=sql.Literal(int(limit))))
    return _statement(parts, values)


def pg_delete(schema: Any, table: Any, command: str, *, node: str, where: Sequence[dict[str, Any]] = (),
              combine: str = "AND", restart_sequences: bool = False, cascade: bool = False) -> Statement:
    """Return Delete's statement: ``truncate`` (the default), ``delete`` (the rows Select Rows picks) or ``drop``."""
    target = _table(schema, table)
    tail = [_part("cascade")] if cascade else []
    if command == "drop":
        return _statement([_part("drop", table=target), *tail], [])
    if command == "truncate":
        return _statement([_part("truncate", table=target), *([_part("restart_identity")] if restart_sequences else []),
                           *tail], [])
    if command == "delete":
        values: list[Any] = []
        return _statement([_part("delete", table=target), *_where(values, where, combine, node)], values)
    raise NodeFailed(f"{node}: Invalid delete command, only drop, delete and truncate are supported ")


def pg_blank_to_null(items: Sequence[Item]) -> Sequence[Item]:
    """Option "Replace Empty Strings with NULL": each input field that is ``""`` becomes null.

    In place, as n8n does it: the items are the previous node's, so its output shows the nulls too.
    """
    for item in items:
        fields = item.get("json")
        if isinstance(fields, dict):
            fields.update({k: None for k, v in fields.items() if v == ""})
    return items


async def pg_run(ctx: Any, provider: str, step: str, operation: str, statements: list[Statement], items: Sequence[Item],
                 *, version: float, batching: str = "single", large_numbers: str = "text",
                 keep_going: bool = False) -> list[Item]:
    """Make the node's one call and return its output items (see the module docstring).

    ``keep_going``: the node continues on fail (n8n's "On Error: Continue"): a failed statement
    is an item ``{"message", "error"}`` (with ``item`` when run one by one) instead of the node failing.
    """
    body = {"batching": batching, "continue": keep_going, "statements": statements}
    try:
        response = await ctx.call(provider, "SQL", f"/{operation}", json=body, step=step)
    except CALL_ERRORS as exc:
        if not keep_going:
            raise
        return [{"json": {"message": str(exc), "error": {"message": str(exc)}}}]
    if SQL_HEADER not in response.headers:  # a recording (shadow, dry-run): the node's output as recorded
        return recorded_items(response.json())
    return output_items(response.json(), statements, items, operation=operation, batching=batching,
                        version=version, large_numbers=large_numbers)

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
a typed query are not understood (Postgres reports a syntax error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from ..errors import NodeFailed
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


def name(identifier: Any) -> str:
    """Quote an identifier as pg-promise's ``:name`` does (``*`` stays as it is)."""
    raw = text(identifier)
    return raw if raw == "*" else '"' + raw.replace('"', '""') + '"'


def _table(schema: Any, table: Any) -> str:
    return f"{name(schema)}.{name(table)}"


def _returning(output: Sequence[Any] | None) -> str:
    columns = list(output) if output else ["*"]
    return " RETURNING *" if "*" in columns else " RETURNING " + ",".join(name(c) for c in columns)


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
        return {"query": f"INSERT INTO {_table(schema, table)} DEFAULT VALUES{_returning(output)}", "values": []}
    columns = ",".join(name(c) for c in row)
    marks = ",".join(f"${n}" for n in range(1, len(row) + 1))
    conflict = " ON CONFLICT DO NOTHING" if skip_on_conflict else ""
    query = f"INSERT INTO {_table(schema, table)}({columns}) VALUES({marks}){conflict}{_returning(output)}"
    return {"query": query, "values": list(row.values())}


def pg_update(schema: Any, table: Any, row: dict[str, Any], match: Sequence[str], *, node: str,
              output: Sequence[Any] | None = None, require: bool = True) -> Statement:
    """Return Update's statement: ``SET`` every other column ``WHERE`` each matching column equals the row's.

    ``require`` (2.2+): no row updated fails the node ("The row you are trying to update doesn't exist").
    """
    match = [str(m) for m in match]
    updates = [c for c in row if c not in match]
    if not updates:
        raise NodeFailed(f"{node}: Add values to update to the input item or set the 'Data Mode' to 'Define Below' "
                         "to define the values to update.")
    values: list[Any] = []
    sets = [f"{name(c)} = ${_push(values, row[c])}" for c in updates]
    where = [f"{name(c)} = ${_push(values, row.get(c))}" for c in match]
    query = f"UPDATE {_table(schema, table)} SET {', '.join(sets)} WHERE {' AND '.join(where)}{_returning(output)}"
    return {"query": query, "values": values, **({"require_rows": NO_ROW} if require else {})}


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
    values = list(row.values())
    marks = ",".join(f"${n}" for n in range(1, len(values) + 1))
    updates = [f"{name(c)} = ${_push(values, row[c])}" for c in row if c not in match]
    action = f" DO UPDATE  SET {', '.join(updates)}" if updates else " DO NOTHING "
    query = (f"INSERT INTO {_table(schema, table)}({','.join(name(c) for c in row)}) VALUES({marks})"
             f" ON CONFLICT ({','.join(name(c) for c in match)}){action}{_returning(output)}")
    return {"query": query, "values": values}


def _push(values: list[Any], value: Any) -> int:
    values.append(value)
    return len(values)


def _where(query: str, values: list[Any], clauses: Sequence[dict[str, Any]], combine: str, node: str) -> str:
    """Add Select Rows' conditions (``where.values``): column, condition (``equal`` by default), value."""
    parts = []
    for index, clause in enumerate(clauses):
        condition = str(clause.get("condition") or "equal")
        condition = "=" if condition == "equal" else condition
        value = clause.get("value")
        if condition in (">", "<", ">=", "<="):
            try:
                value = float(value) if not isinstance(value, int | float) else value
            except (TypeError, ValueError):
                raise NodeFailed(f"{node}: Operator in entry {index + 1} of 'Select Rows' works with numbers, but value "
                                 f"{text(value)} is not a number") from None
            value = int(value) if isinstance(value, float) and value.is_integer() else value
        part = f"{name(clause.get('column'))} {condition}"
        if condition not in ("IS NULL", "IS NOT NULL"):
            part += f" ${_push(values, value)}"
        parts.append(part)
    joiner = " OR " if combine == "OR" else " AND "
    return f"{query} WHERE {joiner.join(parts)}" if parts else query


def pg_select(schema: Any, table: Any, *, node: str, where: Sequence[dict[str, Any]] = (), combine: str = "AND",
              sort: Sequence[dict[str, Any]] = (), return_all: bool = False, limit: Any = 50,
              output: Sequence[Any] | None = None) -> Statement:
    """Return Select's statement: its columns, conditions, sort rules and limit (50 unless Return All)."""
    columns = list(output) if output else ["*"]
    shown = "*" if "*" in columns else ",".join(name(c) for c in columns)
    values: list[Any] = []
    query = _where(f"SELECT {shown} FROM {_table(schema, table)}", values, where, combine, node)
    if sort:
        query += " ORDER BY " + ", ".join(f"{name(r.get('column'))} {'DESC' if r.get('direction') == 'DESC' else 'ASC'}"
                                         for r in sort)
    if not return_all:
        query += f" LIMIT {int(limit)}"
    return {"query": query, "values": values}


def pg_delete(schema: Any, table: Any, command: str, *, node: str, where: Sequence[dict[str, Any]] = (),
              combine: str = "AND", restart_sequences: bool = False, cascade: bool = False) -> Statement:
    """Return Delete's statement: ``truncate`` (the default), ``delete`` (the rows Select Rows picks) or ``drop``."""
    tail = " CASCADE" if cascade else ""
    if command == "drop":
        return {"query": f"DROP TABLE IF EXISTS {_table(schema, table)}{tail}", "values": []}
    if command == "truncate":
        identity = " RESTART IDENTITY" if restart_sequences else ""
        return {"query": f"TRUNCATE TABLE {_table(schema, table)}{identity}{tail}", "values": []}
    if command == "delete":
        values: list[Any] = []
        return {"query": _where(f"DELETE FROM {_table(schema, table)}", values, where, combine, node), "values": values}
    raise NodeFailed(f"{node}: Invalid delete command, only drop, delete and truncate are supported ")


def pg_blank_to_null(items: Sequence[Item]) -> list[Item]:
    """Option "Replace Empty Strings with NULL": each input field that is ``""`` read as null."""
    return [{**item, "json": {k: (None if v == "" else v) for k, v in (item.get("json") or {}).items()}}
            for item in items]


async def pg_run(ctx: Any, provider: str, step: str, operation: str, statements: list[Statement], items: Sequence[Item],
                 *, version: float, batching: str = "single", large_numbers: str = "text",
                 keep_going: bool = False) -> list[Item]:
    """Make the node's one call and return its output items (see the module docstring).

    ``keep_going``: the node continues on fail (n8n's "On Error: Continue"): a failed statement
    is an item ``{"message", "error"}`` (with ``item`` when run one by one) instead of the node failing.
    """
    from ._n8n_pg_rows import output_items  # the answer's parsing, kept beside this module

    body = {"batching": batching, "continue": keep_going, "statements": statements}
    try:
        response = await ctx.call(provider, "SQL", f"/{operation}", json=body, step=step)
    except CALL_ERRORS as exc:
        if not keep_going:
            raise
        return [{"json": {"message": str(exc), "error": {"message": str(exc)}}}]
    if SQL_HEADER not in response.headers:  # a recording (shadow, dry-run): the node's output as recorded
        from .n8n import response_items

        return response_items(response)
    return output_items(response.json(), statements, items, operation=operation, batching=batching,
                        version=version, large_numbers=large_numbers)


def iso_utc(moment: datetime) -> str:
    """JavaScript's ``Date.toISOString()`` of a moment (naive: UTC, as n8n's server clock reads it)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

"""A SQL provider's answer as n8n's Postgres node outputs it: rows parsed, paired, or ``{"success": true}``.

The answer is ``queue_core.gateway.sql``'s: per statement, its result sets with every value in
PostgreSQL's text form and each column's type oid. The values are parsed as node-postgres (the
driver under n8n's pg-promise) parses them, with the node's own parsers on top (timestamps as
ISO text from v2.1, "Output Large-Format Numbers As").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, timezone
from typing import Any

from ..errors import NodeFailed

Item = dict[str, Any]
_INTS = {21, 23, 26, 28}  # int2, int4, oid, xid
_FLOATS = {700, 701}
_TIMES = {1114, 1184}  # timestamp, timestamptz
_JSON = {114, 3802}
# array oid -> element oid (the arrays node-postgres parses; any other array stays text)
_ARRAYS = {1000: 16, 1005: 21, 1007: 23, 1016: 20, 1021: 700, 1022: 701, 1231: 1700, 1009: 25, 1015: 1043,
           1014: 1042, 2951: 2950, 199: 114, 3807: 3802, 1115: 1114, 1185: 1184, 1182: 1082, 1028: 26}


def output_items(answer: dict[str, Any], statements: Sequence[dict[str, Any]], items: Sequence[Item], *,
                 operation: str, batching: str, version: float, large_numbers: str) -> list[Item]:
    """Return the node's output items for the gateway's ``answer`` to ``statements`` (see the package)."""
    results = answer.get("results") or []
    parse = _parser(version, large_numbers)
    if batching == "single":
        if answer.get("error"):
            return [{"json": {"message": answer["error"]["message"], "error": answer["error"]}}]
        sets = [s for result in results for s in result["sets"]]
        found: list[Item] = [{"json": row, "pairedItem": {"item": i}} for i, s in enumerate(sets)
                             for row in _rows(s, parse)]
        if found:
            return found
        paired = [{"item": i} for i in range(len(statements))]
        if version < 2.3:
            return [] if operation == "select" else [{"json": {"success": True}, "pairedItem": paired}]
        return [] if all(is_select(s["query"]) for s in statements) else [{"json": {"success": True}, "pairedItem": paired}]
    out: list[Item] = []
    for i, result in enumerate(results):
        if result.get("error"):
            source = items[i] if i < len(items) else {"json": {}}
            out.append({"json": {"message": result["error"]["message"], "item": dict(source.get("json") or {}),
                                 "error": result["error"]}, "pairedItem": {"item": i}})
            continue
        rows = [row for s in result["sets"] for row in _rows(s, parse)]
        if not rows:
            if version < 2.3:
                rows = [] if operation == "select" else [{"success": True}]
            else:
                rows = [] if is_select(statements[i]["query"]) else [{"success": True}]
        out += [{"json": row, "pairedItem": {"item": i}} for row in rows]
    return out


def recorded_items(body: Any) -> list[Item]:
    """The items of a recorded node output (a shadow or dry-run answer): a list is one item per row."""
    rows = body if isinstance(body, list) else [body]
    return [{"json": row if isinstance(row, dict) else {"value": row}} for row in rows]


def is_select(query: str) -> bool:
    """n8n's test that a query only reads: every ``;``-separated statement starts with SELECT.

    As n8n reads it: block comments removed, line breaks removed (so a statement that starts
    with a ``--`` comment line is left out of the test altogether), then split at ``;``.
    """
    flat = re.sub(r"/\*.*?\*/", "", query).replace("\n", "")
    statements = [s for s in flat.split(";") if s and not s.startswith("--")]
    return all(s.strip().lower().startswith("select") for s in statements)


def _rows(result: dict[str, Any], parse: Callable[[int, str], Any]) -> list[dict[str, Any]]:
    columns = result.get("columns") or []
    out = []
    for raw in result.get("rows") or []:
        row: dict[str, Any] = {}
        for (column, oid), value in zip(columns, raw, strict=True):
            row[column] = None if value is None else parse(int(oid), value)
        out.append(row)
    return out


def _parser(version: float, large_numbers: str) -> Callable[[int, str], Any]:
    numbers = large_numbers == "numbers"

    def parse(oid: int, value: str) -> Any:
        if oid in _ARRAYS:
            element = _ARRAYS[oid]
            return _array(value, lambda v: parse_scalar(element, v, numbers=False, version=version))
        return parse_scalar(oid, value, numbers=numbers, version=version)

    return parse


def parse_scalar(oid: int, value: str, *, numbers: bool, version: float) -> Any:
    """Parse one value of type ``oid`` from its text form as node-postgres does."""
    if oid == 16:
        return value in ("t", "true", "TRUE", "y", "yes", "on", "1")
    if oid in _INTS:
        return int(value)
    if oid in _FLOATS:
        return _float(value)
    if oid in (20, 1700):  # int8, numeric: text, unless the node outputs large numbers as numbers
        if not numbers:
            return value
        return _js_int(int(value)) if oid == 20 else _float(value)
    if oid in _JSON:
        return json.loads(value)
    if oid in _TIMES:
        return _timestamp(value)
    if oid == 1082:
        return _date(value)
    return value


def _js_int(value: int) -> int:
    """``parseInt`` of an int8: past 2**53 a JavaScript number is the nearest double."""
    return value if abs(value) <= 2 ** 53 else int(float(value))


def _float(value: str) -> Any:
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 1e21 else number


def _timestamp(value: str) -> str:
    """A timestamp as ``new Date(text).toISOString()`` (a text no Date reads, like infinity, stays)."""
    text = re.sub(r"([+-]\d\d)$", r"\1:00", value)  # "+00" offsets are ISO's "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return value
    return iso_utc(moment)


def _date(value: str) -> str:
    """A date as node-postgres makes it: the Date of its local (here UTC) midnight, as JSON."""
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return value
    return day.isoformat() + "T00:00:00.000Z"


def _array(value: str, element: Callable[[str], Any]) -> Any:
    """Parse PostgreSQL's array text (``{1,2,NULL,"a,b",{3}}``) into nested lists."""
    pos = 0

    def parse_list() -> list[Any]:
        nonlocal pos
        if value[pos] != "{":
            raise NodeFailed(f"Postgres: cannot read the array {value[:60]!r}")
        pos += 1
        out: list[Any] = []
        while pos < len(value) and value[pos] != "}":
            if value[pos] == "{":
                out.append(parse_list())
            elif value[pos] == '"':
                pos += 1
                chars = []
                while value[pos] != '"':
                    if value[pos] == "\\":
                        pos += 1
                    chars.append(value[pos])
                    pos += 1
                pos += 1
                out.append(element("".join(chars)))
            else:
                end = pos
                while value[end] not in ",}":
                    end += 1
                token = value[pos:end]
                out.append(None if token == "NULL" else element(token))
                pos = end
            if pos < len(value) and value[pos] == ",":
                pos += 1
        pos += 1
        return out

    if value.startswith("["):  # explicit bounds ("[0:1]={…}"): the elements, bounds dropped
        value = value[value.index("=") + 1:]
    return parse_list()


def iso_utc(moment: datetime) -> str:
    """JavaScript's ``Date.toISOString()`` of a moment (naive: UTC, as n8n's server clock reads it)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

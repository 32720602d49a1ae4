"""Google Sheets v4 reads with row filters and *Append or Update Row*, as n8n 1.123's node runs them.

Ported from what n8n's Google Sheets v2 node does (``GoogleSheet.lookupValues``,
``prepareSheetData``, ``removeEmptyColumns``, ``appendOrUpdate.operation``), so a scaffolded node
gives the rows n8n gives and sends the calls n8n sends:

- ``sheet_lookup``: the read sheet prepared as n8n prepares it (a ``row_number`` column, empty
  columns and rows dropped), then the rows whose lookup column equals a filter's value (compared
  as JavaScript's ``toString``), OR-ed (any filter) or AND-ed, all matches or the first.
- ``sheet_append_or_update``: n8n reads the sheet's properties (its title and id), the sheet
  (``FORMATTED_VALUE``), writes the changed cells of the rows whose match column holds the item's
  value (``values:batchUpdate``) and appends the others after the last row (one ``appendDimension``
  then a ``PUT`` of the rows, or ``:append`` with ``options.useAppend``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from ..errors import NodeFailed
from ._n8n_js import text

Item = dict[str, Any]
_UNSET = object()  # a cell past a row's end (JavaScript's undefined)
ROW_NUMBER = "row_number"
SHEETS = "https://sheets.googleapis.com/v4/spreadsheets/"


def _has_data(cell: Any, *, booleans: bool = False) -> bool:
    """JavaScript's ``cell || typeof cell === 'number'`` (and ``'boolean'`` where n8n asks)."""
    if cell is _UNSET or cell is None:
        return False
    if isinstance(cell, bool):
        return cell or booleans
    return isinstance(cell, int | float) or bool(cell)


def _truthy(value: Any) -> bool:
    """JavaScript's truthiness of a cell (``0``, ``''``, ``false`` and nothing are false)."""
    return value is not _UNSET and value is not None and bool(value)


def remove_empty_columns(data: list[list[Any]]) -> list[list[Any]]:
    """Drop the columns whose header is ``''`` and that hold no data below it (n8n's ``removeEmptyColumns``)."""
    if not data:
        return []
    longest = max((len(row) for row in data), default=0)
    kept: list[list[Any]] = []
    for col in range(longest):
        column = [row[col] if col < len(row) else _UNSET for row in data]
        if column[0] != "" or any(_has_data(cell) for cell in column[1:]):
            kept.append(column)
    if not kept:
        return []
    return [["" if column[i] is _UNSET else column[i] for column in kept] for i in range(len(kept[0]))]


def prepare_sheet(values: list[list[Any]]) -> list[list[Any]]:
    """Return the sheet as n8n's read prepares it ("detect automatically"): row numbers, no empty columns or rows."""
    data = [[i + 1, *row] for i, row in enumerate(values)]
    if not data:
        return data
    data[0][0] = ROW_NUMBER
    data = remove_empty_columns(data)
    first = next((i for i, row in enumerate(data) if any(_has_data(c) for c in row[1:])), -1)
    data = data[first:]  # JavaScript's slice(-1) when no row has data: the last row
    data[0][0] = ROW_NUMBER
    data = [row for row in data if any(_has_data(c, booleans=True) for c in row[1:])]
    if not data:
        raise NodeFailed("Cannot set properties of undefined (setting '0')")  # n8n's removeEmptyRows on no rows
    data[0][0] = ROW_NUMBER
    return data


def _lookup_rows(data: list[list[Any]], keys: list[Any], filters: Sequence[dict[str, Any]], *,
                 all_matches: bool, combine: str, version: float) -> list[list[Any]]:
    found: list[list[Any]] = [keys]
    added: set[int] = set()

    def column(lookup: dict[str, Any]) -> int:
        if lookup.get("lookupColumn") not in keys:
            raise NodeFailed(f'The column "{text(lookup.get("lookupColumn"))}" could not be found')
        return keys.index(lookup.get("lookupColumn"))

    def equal(row: list[Any], index: int, lookup: dict[str, Any]) -> bool:
        cell = row[index] if index < len(row) else None
        return cell is not None and text(cell) == text(lookup.get("lookupValue"))

    if combine == "OR":
        for lookup in filters:
            index = column(lookup)
            rows = [r for r in range(1, len(data)) if equal(data[r], index, lookup)]
            rows = rows if all_matches else rows[:1]
            for r in rows:
                if r not in added:
                    found.append(data[r])
                    added.add(r)
            if rows and not all_matches and version >= 4.6:
                break
        return found
    for r in range(1, len(data)):
        if all(equal(data[r], column(lookup), lookup) for lookup in filters):
            if r not in added:
                found.append(data[r])
                added.add(r)
            if not all_matches:
                break
    return found


def sheet_lookup(response: Any, filters: Sequence[dict[str, Any]], *, all_matches: bool, combine: str = "OR",
                 version: float = 4.7) -> list[Item]:
    """Return the items of a read with row filters (``filtersUI``): the matching rows, with ``row_number``.

    A filter's ``lookupValue`` is compared with the cell as text (``toString``); a column no
    header names fails as n8n's does. The matched rows keep every column of the header that has a
    name or data among them, ``''`` for an empty cell.
    """
    values = (response.json() or {}).get("values") or []
    if not values:
        return []
    data = prepare_sheet([list(row) for row in values])
    keys = [cell if _truthy(cell) else f"col_{i}" for i, cell in enumerate(data[0])]
    for row in data:
        row.extend([""] * (len(keys) - len(row)))
    found = remove_empty_columns(_lookup_rows(data, keys, filters, all_matches=all_matches, combine=combine,
                                              version=version))
    header = found[0] if found else []
    items: list[Item] = []
    for row in found[1:]:
        record: dict[str, Any] = {}
        for index, cell in enumerate(row):
            key = header[index]
            if _truthy(key):
                record[text(key)] = "" if cell is None else cell
        items.append({"json": record})
    return items


def encode_range(sheet_range: str) -> str:
    """Return a range as n8n puts it into a values URL: the sheet's title encoded, a bare title quoted."""
    def component(value: str) -> str:  # encodeURIComponent
        return quote(value, safe="!'()*-._~")
    if "!" in sheet_range:
        title, cells = sheet_range.split("!")[:2]
        return f"{component(title)}!{cells}"
    return component(f"'{sheet_range}'")


def _sheet_id(value: Any) -> int | None:
    """n8n's ``getSheetId``: ``gid=0`` is 0, anything else ``parseInt`` (None for JavaScript's NaN)."""
    if value == "gid=0":
        return 0
    match = re.match(r"\s*([+-]?\d+)", text(value))
    return int(match.group(1)) if match else None


async def sheet_properties(ctx: Any, provider: str, document: Any, mode: str, value: Any, *, step: str) -> dict[str, Any]:
    """Return the sheet's properties (``title``, ``sheetId``) as n8n's node reads them before every sheet operation."""
    response = await ctx.call(provider, "GET", f"{SHEETS}{text(document)}", params={"fields": "sheets.properties"},
                              step=step)
    for sheet in (response.json() or {}).get("sheets") or []:
        properties = sheet.get("properties") or {}
        if (properties.get("title") == value) if mode == "name" else (properties.get("sheetId") == _sheet_id(value)):
            if properties.get("title"):
                return properties
    raise NodeFailed(f"Sheet with {'name' if mode == 'name' else 'ID'} {text(value)} not found")


def _column(index: int) -> str:
    letters, index = "", index + 1
    while index > 0:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _written(value: Any) -> Any:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False) if isinstance(value, dict | list) else value


def _check_schema(header: list[Any], schema: Sequence[str]) -> None:
    columns = [c for c in header if c != ""]
    ids = list(schema) if ROW_NUMBER in columns else [s for s in schema if s != ROW_NUMBER]
    changed = [f"{ids[i]} -> {name}" for i, name in enumerate(columns[:len(ids)]) if name != ids[i]]
    if changed:
        raise NodeFailed("Column names were updated after the node's setup (Refresh the columns list in the "
                         f"'Column to Match On' parameter. Updated columns: {', '.join(changed)})")


def upsert_plan(sheet: list[list[Any]], title: str, key: str, records: Sequence[dict[str, Any]],
                empty: Any = "") -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """Return n8n's *Append or Update Row* writes: (batchUpdate cell ranges, rows to append in column order).

    ``sheet`` is the sheet as read (header row first). A record whose ``key`` value equals
    (as text) a data row's key cell updates that row's other columns it sets (not null); every
    other record is appended (a column it leaves unset as ``empty``). The key cells are read once, before any record is matched.
    """
    header = list(sheet[0])
    key_index = header.index(key) if key in header else None
    keys = [row[key_index] if key_index is not None and key_index < len(row) else None for row in sheet[1:]]
    updates: list[dict[str, Any]] = []
    appended: list[list[Any]] = []
    for record in records:
        wanted = record.get(key)
        at = None if wanted is None else next((n for n, cell in enumerate(keys)
                                               if cell is not None and text(cell) == text(wanted)), None)
        if at is None:
            appended.append([empty if record.get(text(c)) is None else _written(record[text(c)]) for c in header])
            continue
        for column in header:
            if column != key and record.get(text(column)) is not None:
                updates.append({"range": f"{title}!{_column(header.index(column))}{at + 2}",
                                "values": [[_written(record[text(column)])]]})
    return updates, appended


async def sheet_append_or_update(ctx: Any, provider: str, document: Any, locator: tuple[str, Any],
                                 records: Sequence[dict[str, Any]], *, key: str, schema: Sequence[str],
                                 value_input: str, use_append: bool, version: float, step: str) -> list[Item]:
    """Run n8n's *Append or Update Row* (columns defined below) for all items at once; return its items.

    The calls, in n8n's order: the sheet's properties, the sheet (formatted values), one
    ``values:batchUpdate`` of the changed cells when a row matched, then for the other records
    one ``appendDimension`` of a row and a ``PUT`` of the rows after the last one (or ``:append``
    with ``use_append``). A record whose match value is ``''`` fails the node, as in n8n.
    """
    properties = await sheet_properties(ctx, provider, document, locator[0], locator[1], step=step)
    title, base = str(properties["title"]), f"{SHEETS}{text(document)}"
    read = await ctx.call(provider, "GET", f"{base}/values/{encode_range(title)}",
                          params={"valueRenderOption": "FORMATTED_VALUE", "dateTimeRenderOption": "FORMATTED_STRING"},
                          step=step)
    sheet = [list(row) for row in (read.json() or {}).get("values") or []]
    if not sheet:
        raise NodeFailed("the sheet is empty: n8n then maps the input items' own fields (not translated)")
    if not sheet[0]:
        raise NodeFailed("Could not retrieve the column names from row 1")
    if version >= 4.4:
        _check_schema(sheet[0], schema)
    for record in records:
        if record.get(key, "") == "":
            raise NodeFailed("The 'Column to Match On' parameter is required")
    written = [{k: "" if v is None else v for k, v in record.items()} for record in records]
    updates, appended = upsert_plan(sheet, title, key, written, None if use_append else "")
    if updates:
        await ctx.call(provider, "POST", f"{base}/values:batchUpdate",
                       json={"data": updates, "valueInputOption": value_input}, step=step)
    if appended:
        first = len(sheet) + 1
        cells = f"{title}!{first}:{first + len(appended) - 1}"
        body = {"range": cells, "values": appended}
        if use_append:
            await ctx.call(provider, "POST", f"{base}/values/{encode_range(cells)}:append", json=body,
                           params={"valueInputOption": value_input}, step=step)
        else:
            request = {"appendDimension": {"sheetId": text(properties.get("sheetId")), "dimension": "ROWS", "length": 1}}
            await ctx.call(provider, "POST", f"{base}:batchUpdate", json={"requests": [request]}, step=step)
            await ctx.call(provider, "PUT", f"{base}/values/{encode_range(cells)}", json=body,
                           params={"valueInputOption": value_input}, step=step)
    return [{"json": record} for record in written]


def sheet_structure(data: list[list[Any]]) -> list[Item]:
    """Return a prepared sheet's rows as n8n's read without filters makes them (``structureArrayDataByColumn``)."""
    if not data:
        return []
    longest = max(len(row) for row in data)
    keys = [data[0][c] if c < len(data[0]) and _truthy(data[0][c]) else f"col_{c}" for c in range(longest)]
    items: list[Item] = []
    for row in data[1:]:
        record = {text(keys[c]): "" if row[c] is None else row[c] for c in range(len(row))}
        if record:
            items.append({"json": record})
    return items


async def sheet_read(ctx: Any, provider: str, document: Any, locator: tuple[str, Any],
                     lookups: Sequence[Sequence[dict[str, Any]]], *, render: str, dates: str, all_matches: bool,
                     combine: str, version: float, step: str) -> list[Item]:
    """Run n8n's *Get Row(s)* for each entry of ``lookups`` (an item's row filters; empty: every row).

    The sheet's properties are read once, then the whole sheet once per entry (n8n's read takes
    no range from ``options.range``); the rows are n8n's (``prepare_sheet``, then the filters'
    matches or every row). An empty sheet gives no items at all, as n8n's read returns.
    """
    properties = await sheet_properties(ctx, provider, document, locator[0], locator[1], step=step)
    url = f"{SHEETS}{text(document)}/values/{encode_range(str(properties['title']))}"
    out: list[Item] = []
    for filters in lookups:
        response = await ctx.call(provider, "GET", url, params={"valueRenderOption": render,
                                                                 "dateTimeRenderOption": dates}, step=step)
        values = (response.json() or {}).get("values") or []
        if not values:
            return []
        if filters:
            out += sheet_lookup(response, filters, all_matches=all_matches, combine=combine, version=version)
        else:
            out += sheet_structure(prepare_sheet([list(row) for row in values]))
    return out

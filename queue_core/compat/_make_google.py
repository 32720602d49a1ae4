"""Make's Google Sheets modules at run time (``make.google.add_row(…)``): the Sheets API v4 call and Make's bundles.

Each helper makes the module's request through ``ctx.call`` and returns the bundle(s) Make outputs:

- Add a row (``addRow``): ``POST values/'<sheet>'!A1:append`` with the row's cells (the mapper's
  ``values`` keyed by column index ``"0"``, ``"1"``… or letter; a column not mapped is an empty
  cell); its bundle is the append's ``updates`` (``spreadsheetId``, ``updatedRange``,
  ``updatedRows``, ``updatedColumns``, ``updatedCells``).
- Update a row (``updateRow``): ``PUT values/'<sheet>'!A<n>:<last><n>`` where a column not mapped is
  ``null`` (the Sheets API leaves that cell as it is); its bundle is the update's answer.
- Search rows (``filterRows``) and Get range values (``getSheetContent``): ``GET values/<range>``;
  one bundle per row kept, the cells under ``"0"``, ``"1"``… with ``__ROW_NUMBER__``,
  ``__SPREADSHEET_ID__``, ``__SHEET__`` and Make's ``__IMTINDEX__`` / ``__IMTLENGTH__``. Search rows
  keeps the rows its filter passes (Make's filter: OR of AND groups, each condition's ``a`` a
  column letter, compared with Make's operators), in the sort order asked, up to its limit.

- Clear a row / Clear a cell (``values/<range>:clear``), Update a cell (``PUT values/<cell>``) and Delete
  a row (the sheet's numeric id read, then ``spreadsheets:batchUpdate`` ``deleteDimension``): their
  bundle is the API's answer.

In a shadow replay the gateway answers with the legacy module's recorded output bundle(s)
(``_n8n_records.offline``): that answer is taken as it is, and no further call is made.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from ..errors import ModuleFailed
from ._make_filter import condition, number, text
from ._n8n_records import offline

SHEETS = "https://sheets.googleapis.com/v4/spreadsheets"

__all__ = ["SHEETS", "add_row", "bundles_of", "cell_value", "clear_cell", "clear_row", "column_index", "column_letter", "delete_row",
           "filter_rows", "get_range", "update_cell",
           "read_values", "recorded", "row_bundles", "sheet_range", "spreadsheet_id", "start_row", "update_row"]


def spreadsheet_id(value: Any) -> str:
    """Return the spreadsheet's id: Make's picker writes a Drive path (``/folder/…/<id>``), its last part."""
    found = text(value).strip()
    if "/" in found:
        found = [part for part in found.split("/") if part][-1] if found.strip("/") else ""
    if not found:
        raise ModuleFailed("Google Sheets: the spreadsheet ID is empty")
    return found


def column_index(key: Any) -> int:
    """Return a column's index from 0: a mapper key ``"3"`` is column D, a letter ``"D"`` too."""
    name = text(key).strip()
    if name.isdigit():
        return int(name)
    if re.fullmatch(r"[A-Za-z]{1,3}", name):
        index = 0
        for char in name.upper():
            index = index * 26 + ord(char) - 64
        return index - 1
    raise ModuleFailed(f"Google Sheets: {name!r} is not a column (an index from 0 or a letter)")


def column_letter(index: int) -> str:
    """Return the letter(s) of column ``index`` (from 0): 0 is A, 26 is AA."""
    letters, n = "", index + 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def sheet_range(sheet: Any, cells: str = "") -> str:
    """Return ``'<sheet>'!<cells>`` as a values URL path part (the title quoted, then URL-encoded)."""
    title = "'" + text(sheet).replace("'", "''") + "'"
    return quote(f"{title}!{cells}" if cells else title, safe="!'():")


def recorded(response: Any) -> Any:
    """Return a shadow answer (the module's recorded output) as it is, or None for a live answer."""
    if not offline(response):
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def bundles_of(body: Any) -> list[Any]:
    """Return a recorded output as bundles: one bundle as it is, a list one per element."""
    if body is None:
        return []
    return [b for b in body] if isinstance(body, list) else [body]


def _json(response: Any, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ModuleFailed(f"Google Sheets {what}: the answer is not JSON ({response.text[:200]!r})") from None


def cell_value(value: Any) -> Any:
    """Return a mapped value as a cell gets it: a date as Make writes it (ISO 8601 text), null as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, datetime | Decimal):
        return text(value) if isinstance(value, datetime) else (int(value) if value == value.to_integral_value() else float(value))
    return value


def _cells(values: dict[str, Any] | None, gap: Any) -> list[Any]:
    by_index = {column_index(k): v for k, v in (values or {}).items()}
    if not by_index:
        return []
    return [cell_value(by_index[i]) if i in by_index else gap for i in range(max(by_index) + 1)]


async def _by_header(ctx: Any, provider: str, step: str, spreadsheet: Any, sheet: Any, values: dict[str, Any] | None,
                     what: str) -> tuple[Any, dict[str, Any]]:
    """Read the header row (``GET values/'<sheet>'!1:1``) and key ``values`` by column index instead of header
    text; (the shadow answer, {}) when the read is answered from the recording."""
    response = await ctx.call(provider, "GET", f"{SHEETS}/{spreadsheet_id(spreadsheet)}/values/{sheet_range(sheet, '1:1')}",
                              step=step)
    found = recorded(response)
    if found is not None:
        return found, {}
    head = (_json(response, what).get("values") or [[]])[0]
    names = {text(h): i for i, h in reversed(list(enumerate(head)))}
    missing = [k for k in values or {} if k not in names]
    if missing:
        raise ModuleFailed(f"Google Sheets {what}: no column headed {missing[0]!r} in row 1 of {text(sheet)!r}")
    return None, {str(names[k]): v for k, v in (values or {}).items()}


async def add_row(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, values: dict[str, Any] | None,
                  value_input: Any = None, insert_data: Any = None, by_header: bool = False) -> dict[str, Any]:
    """Add a row: append the row's cells after the sheet's table; Make's bundle of the append.

    ``by_header`` (Make's "Use column headers as IDs of the columns"): the values are keyed by the
    header row's texts, read first (``GET values/'<sheet>'!1:1``); a header not in it fails the module.
    """
    if by_header:
        found, values = await _by_header(ctx, provider, step, spreadsheet, sheet, values, "Add a row")
        if found is not None:
            return found  # type: ignore[no-any-return]
    params = {k: text(v) for k, v in (("valueInputOption", value_input or "USER_ENTERED"),
                                      ("insertDataOption", insert_data)) if v}
    url = f"{SHEETS}/{spreadsheet_id(spreadsheet)}/values/{sheet_range(sheet, 'A1')}:append"
    response = await ctx.call(provider, "POST", url, step=step, params=params, json={"values": [_cells(values, "")]})
    found = recorded(response)
    if found is not None:
        return found  # type: ignore[no-any-return]
    body = _json(response, "Add a row")
    updates = body.get("updates") if isinstance(body, dict) else None
    if not isinstance(updates, dict):
        raise ModuleFailed(f"Google Sheets Add a row: the answer has no updates: {str(body)[:200]}")
    return {k: updates.get(k) for k in ("spreadsheetId", "updatedRange", "updatedRows", "updatedColumns", "updatedCells")}


async def update_row(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, row: Any,
                     values: dict[str, Any] | None, value_input: Any = None, by_header: bool = False,
                     first_row: Any = None) -> dict[str, Any]:
    """Update a row: write the mapped cells of row ``row`` (the others left as they are); the update's answer.
    ``by_header``: the values are keyed by the header row's texts, read first. ``first_row`` (the column
    range, ``B1:Z1``): column index 0 is its first column."""
    row_number = number(row)
    if row_number is None or row_number != row_number.to_integral_value() or row_number < 1:
        raise ModuleFailed(f"Google Sheets Update a row: row number {text(row)!r} is not a row number")
    if by_header:
        found, values = await _by_header(ctx, provider, step, spreadsheet, sheet, values, "Update a row")
        if found is not None:
            return found  # type: ignore[no-any-return]
    cells = _cells(values, None)
    if not cells:
        raise ModuleFailed("Google Sheets Update a row: no column is mapped")
    n = int(row_number)
    offset = _first_column(text(first_row).split(":")[0]) if text(first_row) else 0
    cells_range = f"{column_letter(offset)}{n}:{column_letter(offset + len(cells) - 1)}{n}"
    url = f"{SHEETS}/{spreadsheet_id(spreadsheet)}/values/{sheet_range(sheet, cells_range)}"
    response = await ctx.call(provider, "PUT", url, step=step, params={"valueInputOption": text(value_input or "USER_ENTERED")},
                              json={"values": [cells]})
    found = recorded(response)
    if found is not None:
        return found  # type: ignore[no-any-return]
    body = _json(response, "Update a row")
    return body if isinstance(body, dict) else {"value": body}


def row_bundles(rows: list[tuple[int, list[Any]]], spreadsheet: str, sheet: str) -> list[dict[str, Any]]:
    """Return Make's bundles of sheet rows ``(row number, cells)``: cells under ``"0"``, ``"1"``…, and the row's place."""
    out = []
    for position, (number_, cells) in enumerate(rows, 1):
        bundle: dict[str, Any] = {"__IMTLENGTH__": len(rows), "__IMTINDEX__": position, "__ROW_NUMBER__": number_,
                                  "__SPREADSHEET_ID__": spreadsheet, "__SHEET__": sheet}
        bundle.update({str(i): cell for i, cell in enumerate(cells)})
        out.append(bundle)
    return out


def start_row(cells: str) -> int:
    """Return the first row number of an A1 range (``B3:D`` is 3; no row is 1)."""
    match = re.match(r"[A-Za-z]*(\d+)", cells)
    return int(match.group(1)) if match else 1


def _first_column(cells: str) -> int:
    match = re.match(r"([A-Za-z]+)", cells)
    return column_index(match.group(1)) if match else 0


async def read_values(ctx: Any, provider: str, step: str, spreadsheet: Any, sheet: Any, cells: str,
                      render: Any, dates: Any) -> tuple[Any, str, list[list[Any]]]:
    """Read ``'<sheet>'!<cells>``: (the shadow answer or None, the spreadsheet id, the rows read)."""
    params = {k: text(v) for k, v in (("valueRenderOption", render), ("dateTimeRenderOption", dates)) if v}
    sid = spreadsheet_id(spreadsheet)
    response = await ctx.call(provider, "GET", f"{SHEETS}/{sid}/values/{sheet_range(sheet, cells)}", step=step,
                              params=params)
    found = recorded(response)
    if found is not None:
        return found, sid, []
    body = _json(response, "read")
    values = body.get("values") if isinstance(body, dict) else None
    return None, sid, values if isinstance(values, list) else []


async def get_range(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, cells: Any,
                    headers: bool = False, render: Any = None, dates: Any = None) -> list[dict[str, Any]]:
    """Get range values: one bundle per row of the range (the first left out when it holds headers)."""
    area = text(cells).strip()
    found, sid, values = await read_values(ctx, provider, step, spreadsheet, sheet, area, render, dates)
    if found is not None:
        return bundles_of(found)
    first = start_row(area)
    rows = [(first + i, row) for i, row in enumerate(values)][1 if headers else 0:]
    return row_bundles(rows, sid, text(sheet))


def _passes(groups: Any, cells: list[Any], offset: int) -> bool:
    if not groups:
        return True
    for group in groups if isinstance(groups, list) else []:
        if all(condition(text(c.get("o") or "text:equal"), _cell(cells, text(c.get("a")), offset), c.get("b"))
               for c in group if isinstance(c, dict)):
            return True
    return False


def _cell(cells: list[Any], column: str, offset: int) -> Any:
    index = column_index(column) - offset
    return cells[index] if 0 <= index < len(cells) else ""


async def filter_rows(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, first_row: Any,
                      headers: bool = True, filter: Any = None, sort: Any = None, order_by: Any = None, limit: Any = None,
                      render: Any = None, dates: Any = None) -> list[dict[str, Any]]:
    """Search rows: the sheet's rows under the column range that the filter passes, sorted, up to ``limit``."""
    area = text(first_row or "A1:Z1").strip()
    start, end = (area.split(":") + [""])[:2]
    row1 = start_row(start)
    cells = f"{re.sub(r'[0-9]', '', start)}{row1}:{re.sub(r'[0-9]', '', end) or re.sub(r'[0-9]', '', start)}"
    found, sid, values = await read_values(ctx, provider, step, spreadsheet, sheet, cells, render, dates)
    if found is not None:
        return bundles_of(found)
    offset = _first_column(start)
    rows = [(row1 + i, row) for i, row in enumerate(values)][1 if headers else 0:]
    kept = [(n, row) for n, row in rows if _passes(filter, row, offset)]
    if order_by not in (None, ""):
        column = text(order_by)
        kept.sort(key=lambda r: _sort_key(_cell(r[1], column, offset)), reverse=text(sort) == "desc")
    elif text(sort) == "desc":
        kept.reverse()
    top = number(limit)
    if top is not None and top > 0:
        kept = kept[:int(top)]
    return row_bundles(kept, sid, text(sheet))


def _sort_key(value: Any) -> tuple[int, Any]:
    found = number(value)
    return (0, found) if found is not None else (1, text(value))


async def _answer(ctx: Any, provider: str, step: str, method: str, url: str, what: str, **kwargs: Any) -> Any:
    response = await ctx.call(provider, method, url, step=step, **kwargs)
    found = recorded(response)
    if found is not None:
        return found
    body = _json(response, what)
    return body if isinstance(body, dict) else {"value": body}


def _row_number(row: Any, what: str) -> int:
    found = number(row)
    if found is None or found != found.to_integral_value() or found < 1:
        raise ModuleFailed(f"Google Sheets {what}: row number {text(row)!r} is not a row number")
    return int(found)


async def clear_row(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, row: Any) -> Any:
    """Clear a row: ``POST values/'<sheet>'!<n>:<n>:clear``; the clear's answer (``spreadsheetId``, ``clearedRange``)."""
    n = _row_number(row, "Clear a row")
    url = f"{SHEETS}/{spreadsheet_id(spreadsheet)}/values/{sheet_range(sheet, f'{n}:{n}')}:clear"
    return await _answer(ctx, provider, step, "POST", url, "Clear a row", json={})


async def clear_cell(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, cell: Any) -> Any:
    """Clear a cell: ``POST values/'<sheet>'!<cell>:clear``; the clear's answer."""
    url = f"{SHEETS}/{spreadsheet_id(spreadsheet)}/values/{sheet_range(sheet, _cell_name(cell))}:clear"
    return await _answer(ctx, provider, step, "POST", url, "Clear a cell", json={})


def _cell_name(cell: Any) -> str:
    name = text(cell).strip().upper()
    if not re.fullmatch(r"[A-Z]{1,3}[1-9][0-9]*", name):
        raise ModuleFailed(f"Google Sheets: {text(cell)!r} is not a cell (A1 notation)")
    return name


async def update_cell(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, cell: Any, value: Any,
                      value_input: Any = None) -> Any:
    """Update a cell: ``PUT values/'<sheet>'!<cell>`` with the one value; the update's answer."""
    url = f"{SHEETS}/{spreadsheet_id(spreadsheet)}/values/{sheet_range(sheet, _cell_name(cell))}"
    return await _answer(ctx, provider, step, "PUT", url, "Update a cell",
                         params={"valueInputOption": text(value_input or "USER_ENTERED")},
                         json={"values": [[cell_value(value)]]})


async def delete_row(ctx: Any, provider: str, *, step: str, spreadsheet: Any, sheet: Any, row: Any) -> Any:
    """Delete a row: the sheet's id read (``GET spreadsheets/{id}``), then a ``deleteDimension`` of the row;
    the batch update's answer."""
    n = _row_number(row, "Delete a row")
    sid = spreadsheet_id(spreadsheet)
    response = await ctx.call(provider, "GET", f"{SHEETS}/{sid}", step=step, params={"fields": "sheets.properties"})
    found = recorded(response)
    if found is not None:
        return found
    sheets = (_json(response, "Delete a row") or {}).get("sheets") or []
    gid = next((s["properties"].get("sheetId") for s in sheets
                if isinstance(s, dict) and text((s.get("properties") or {}).get("title")) == text(sheet)), None)
    if gid is None:
        raise ModuleFailed(f"Google Sheets Delete a row: the spreadsheet has no sheet {text(sheet)!r}")
    request = {"deleteDimension": {"range": {"sheetId": gid, "dimension": "ROWS", "startIndex": n - 1, "endIndex": n}}}
    return await _answer(ctx, provider, step, "POST", f"{SHEETS}/{sid}:batchUpdate", "Delete a row",
                         json={"requests": [request]})

"""Google Sheets steps of scaffolded Zaps (Lookup Spreadsheet Row, Update Spreadsheet Row, Create Spreadsheet Row).

A Zap's Google Sheets step names its columns by letter, ``COL$A``, ``COL$B``… (the export's params:
``lookup_key: "COL$B"``, ``"COL$B": "Yes"``), the spreadsheet by id and the worksheet by its id, with
the worksheet's title beside it in the node's ``meta.parammap`` (what the editor showed). The row a
step finds is output as Zapier maps it on: the columns as ``COL$A``… and the row's number as ``id``
(a real export maps ``{{<lookup>__COL$A}}`` into a message and ``{{<lookup>__id}}`` into Update
Spreadsheet Row's ``row``), also as ``row``. The calls are the Sheets API v4's (the catalogue's
``google-sheets`` rows), values written as typed (``USER_ENTERED``, so a formula typed in a field
is a formula), read as shown (``FORMATTED_VALUE``). Row 1 is the header row.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from ..errors import TerminalError

_COLUMN = re.compile(r"^COL\$([A-Z]{1,3})$")


def column_index(key: str) -> int:
    """Return the 0-based index of ``COL$A`` (0), ``COL$AA`` (26); raise TerminalError for anything else."""
    match = _COLUMN.match(str(key))
    if not match:
        raise TerminalError(f"Google Sheets: {key!r} is not a column (COL$A, COL$B, …)")
    index = 0
    for letter in match.group(1):
        index = index * 26 + ord(letter) - 64
    return index - 1


def letter(index: int) -> str:
    """Return the column letters of a 0-based index (0 → A, 26 → AA)."""
    out, n = "", index + 1
    while n:
        n, rest = divmod(n - 1, 26)
        out = chr(65 + rest) + out
    return out


def a1(worksheet: str, cells: str = "") -> str:
    """Return an A1 range on a worksheet, its title quoted as Sheets quotes it (``'Q1 ''24'!B7``)."""
    title = "'" + str(worksheet).replace("'", "''") + "'"
    return f"{title}!{cells}" if cells else title


def _values_path(spreadsheet: str, where: str) -> str:
    return f"/v4/spreadsheets/{quote(str(spreadsheet), safe='')}/values/{quote(where, safe='')}"


def _json(response: Any, step: str) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise TerminalError(f"Google Sheets {step!r}: the answer is not a JSON object")
    return body


def row_output(number: int, cells: list[Any], width: int) -> dict[str, Any]:
    """Return a row as a Zap step outputs it: ``id`` and ``row`` (its number), each column as ``COL$<letter>``."""
    out: dict[str, Any] = {"id": number, "row": number}
    for index in range(max(width, len(cells))):
        out[f"COL${letter(index)}"] = cells[index] if index < len(cells) else ""
    return out


async def lookup_row(ctx: Any, provider: str, *, step: str, spreadsheet: str, worksheet: str, column: str,
                     value: Any, bottom_up: bool = False) -> dict[str, Any]:
    """Lookup Spreadsheet Row: the first row below the header whose ``column`` reads ``value`` (the last
    with ``bottom_up``), compared as text. None found: the run stops there ``filtered``, as a Zap's search that
    finds nothing halts the run ("Stopped / Halted", help.zapier.com's "Review Zap run statuses")."""
    from ._zapier_filter import text

    index = column_index(column)
    response = await ctx.call(provider, "GET", _values_path(spreadsheet, a1(worksheet)), step=step,
                              params={"valueRenderOption": "FORMATTED_VALUE"})
    rows = _json(response, step).get("values") or []
    width = len(rows[0]) if rows else 0
    wanted = text(value)
    found = [(n, r) for n, r in enumerate(rows[1:], start=2) if index < len(r) and text(r[index]) == wanted]
    if not found:
        ctx.filter(f"Google Sheets {step!r}: no row has {column} = {wanted!r} (the search found nothing)")
    number, cells = found[-1] if bottom_up else found[0]
    return row_output(number, list(cells), width)


async def update_row(ctx: Any, provider: str, *, step: str, spreadsheet: str, worksheet: str, row: Any,
                     columns: dict[str, Any]) -> dict[str, Any]:
    """Update Spreadsheet Row: write the mapped columns of row ``row`` (the others kept); the API's answer."""
    from ._zapier_filter import number, text

    at = number(row)
    if at is None or int(at) != at or at < 1:
        raise TerminalError(f"Google Sheets {step!r}: row {text(row)!r} is not a row number")
    data = [{"range": a1(worksheet, f"{letter(column_index(key))}{int(at)}"), "values": [[text(value)]]}
            for key, value in sorted(columns.items(), key=lambda kv: column_index(kv[0]))]
    response = await ctx.call(provider, "POST", f"/v4/spreadsheets/{quote(str(spreadsheet), safe='')}/values:batchUpdate",
                              step=step, json={"valueInputOption": "USER_ENTERED", "data": data})
    return _json(response, step)


async def add_row(ctx: Any, provider: str, *, step: str, spreadsheet: str, worksheet: str,
                  columns: dict[str, Any]) -> dict[str, Any]:
    """Create Spreadsheet Row: append one row, the mapped columns in place (the others blank); the API's answer."""
    from ._zapier_filter import text

    width = max((column_index(k) for k in columns), default=-1) + 1
    cells = [""] * width
    for key, value in columns.items():
        cells[column_index(key)] = text(value)
    response = await ctx.call(provider, "POST", _values_path(spreadsheet, a1(worksheet)) + ":append", step=step,
                              params={"valueInputOption": "USER_ENTERED", "insertDataOption": "INSERT_ROWS"},
                              json={"values": [cells]})
    return _json(response, step)


def _row_id(row: dict[str, Any]) -> Any:
    return row["id"]


async def poll_rows(ctx: Any, provider: str, target: str, *, step: str, spreadsheet: str, worksheet: str,
                    keep_last: int = 10_000) -> list[str]:
    """New Spreadsheet Row as a live poller: read the worksheet, start one ``target`` run per new row.

    Zapier's deduplication (docs.zapier.com/platform/build/deduplication): "When a Zap is first turned
    on, Zapier makes an initial call ... and caches and stores each id"; later polls "trigger on new
    items". So the first poll starts nothing and keeps the last row number in the cursor; each later
    poll hands the rows below it (non-blank, as ``row_output``: ``id`` the row number) to
    ``ctx.start_new``, deduped on ``id``. Returns the ids started.
    """
    from ._zapier_filter import text

    cursor = await ctx.poll_cursor(default=None)
    response = await ctx.call(provider, "GET", _values_path(spreadsheet, a1(worksheet)), step=step,
                              params={"valueRenderOption": "FORMATTED_VALUE"})
    rows = _json(response, step).get("values") or []
    width = len(rows[0]) if rows else 0
    items = [row_output(n, list(cells), width) for n, cells in enumerate(rows[1:], start=2)
             if any(text(c) for c in cells)]
    if not isinstance(cursor, dict) or "after" not in cursor:
        last = max((i["id"] for i in items), default=1)
        return list(await ctx.start_new(target, [], id_of=_row_id, cursor={"after": last}, keep_last=keep_last))
    new = [i for i in items if i["id"] > int(cursor["after"])]
    return list(await ctx.start_new(target, new, id_of=_row_id, cursor=cursor, keep_last=keep_last))

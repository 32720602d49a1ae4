"""Make's Google Sheets modules: each becomes one ``make.google.<module>(…)`` call (``queue_core/compat/_make_google.py``).

Add a row, Update a row, Search rows, Get range values, Clear a row, Delete a row, Update a cell, Clear a cell.

The mapper's fields map onto the catalogue's ``google-sheets`` operations (``sheet.append``,
``sheet.read``, ``sheet.updateRow``: Sheets API v4 ``values``): ``spreadsheetId`` (an id, or the
Drive path Make's picker writes), ``sheetId`` (the sheet's title), ``values`` (cells by column
index or letter), ``valueInputOption``, ``insertDataOption``, ``rowNumber``, ``range``,
``tableFirstRow``, ``filter``, ``sortOrder``, ``orderBy``, ``limit`` and the render options. The
connection (``__IMTCONN__``) is not read: the provider's token is configured on the new side.
The other Google areas are ``google_mail.py`` (Gmail, Email) and ``google_drive.py`` (Drive,
Docs, Calendar); the polling Watch triggers are in ``..triggers``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps.google_common import awaited, only, required
from harness.platforms.make.translate.base import Gen, ModuleCode
from harness.platforms.make.translate.triggers import TRIGGER_TRANSLATORS

__all__ = ["OPERATIONS", "TRANSLATORS"]

SHEETS = "https://sheets.googleapis.com"


def _where(module: Module) -> dict[str, Any]:
    required(module, "spreadsheetId", "sheetId")
    return {"spreadsheet": module.mapper["spreadsheetId"], "sheet": module.mapper["sheetId"]}


def _values(module: Module) -> dict[str, Any]:
    values = module.mapper.get("values")
    if not isinstance(values, dict) or not values:
        raise Untranslatable("no column's value is mapped (values)")
    return values


def add_row(module: Module, gen: Gen) -> ModuleCode:
    """Add a row: ``POST values/'<sheet>'!A1:append``; the cells by column (by header name: the header row read first)."""
    mapper = module.mapper
    only(module, "mode", "from", "spreadsheetId", "sheetId", "includesHeaders", "useColumnHeaders", "values",
         "valueInputOption", "insertDataOption", "insertUnformatted", "select")
    if mapper.get("insertUnformatted"):
        raise Untranslatable("the Unformatted option (insertUnformatted) is not translated")
    headers = bool(mapper.get("useColumnHeaders")) and mapper.get("includesHeaders") not in (False, "false")
    return awaited(module, gen, "google.add_row", SHEETS, **_where(module), values=_values(module),
                   value_input=mapper.get("valueInputOption"), insert_data=mapper.get("insertDataOption"),
                   by_header=headers)


def update_row(module: Module, gen: Gen) -> ModuleCode:
    """Update a row: ``PUT values/'<sheet>'!A<n>:<last><n>`` with the mapped cells (the others left as they are);
    by header name: the header row read first."""
    mapper = module.mapper
    only(module, "mode", "from", "spreadsheetId", "sheetId", "includesHeaders", "useColumnHeaders", "values",
         "valueInputOption", "rowNumber", "tableFirstRow", "select")
    required(module, "rowNumber")
    headers = bool(mapper.get("useColumnHeaders")) and mapper.get("includesHeaders") not in (False, "false")
    return awaited(module, gen, "google.update_row", SHEETS, **_where(module), row=mapper["rowNumber"],
                   values=_values(module), value_input=mapper.get("valueInputOption"), by_header=headers,
                   first_row=mapper.get("tableFirstRow") or "")


def filter_rows(module: Module, gen: Gen) -> ModuleCode:
    """Search rows: read the sheet under the column range; one bundle per row the filter passes."""
    mapper = module.mapper
    only(module, "mode", "from", "spreadsheetId", "sheetId", "includesHeaders", "tableFirstRow", "filter", "sortOrder",
         "orderBy", "limit", "valueRenderOption", "dateTimeRenderOption", "select")
    return awaited(module, gen, "google.filter_rows", SHEETS, many=True, **_where(module),
                   first_row=mapper.get("tableFirstRow") or "A1:Z1",
                   headers=mapper.get("includesHeaders") not in (False, "false"), filter=mapper.get("filter"),
                   sort=mapper.get("sortOrder"), order_by=mapper.get("orderBy"), limit=mapper.get("limit"),
                   render=mapper.get("valueRenderOption"), dates=mapper.get("dateTimeRenderOption"))


def get_sheet_content(module: Module, gen: Gen) -> ModuleCode:
    """Get range values: ``GET values/'<sheet>'!<range>``; one bundle per row."""
    mapper = module.mapper
    only(module, "mode", "from", "select", "spreadsheetId", "sheetId", "range", "includesHeaders", "valueRenderOption",
         "dateTimeRenderOption")
    required(module, "range")
    return awaited(module, gen, "google.get_range", SHEETS, many=True, **_where(module), cells=mapper["range"],
                   headers=mapper.get("includesHeaders") in (True, "true"), render=mapper.get("valueRenderOption"),
                   dates=mapper.get("dateTimeRenderOption"))


_ROW = ("mode", "from", "select", "spreadsheetId", "sheetId", "rowNumber", "includesHeaders")
_CELL = ("mode", "from", "select", "spreadsheetId", "sheetId", "cell")


def clear_row(module: Module, gen: Gen) -> ModuleCode:
    """Clear a row: ``POST values/'<sheet>'!<n>:<n>:clear``."""
    only(module, *_ROW)
    required(module, "rowNumber")
    return awaited(module, gen, "google.clear_row", SHEETS, **_where(module), row=module.mapper["rowNumber"])


def delete_row(module: Module, gen: Gen) -> ModuleCode:
    """Delete a row: the sheet's id read, then ``spreadsheets:batchUpdate`` ``deleteDimension`` of the row."""
    only(module, *_ROW)
    required(module, "rowNumber")
    return awaited(module, gen, "google.delete_row", SHEETS, **_where(module), row=module.mapper["rowNumber"])


def update_cell(module: Module, gen: Gen) -> ModuleCode:
    """Update a cell: ``PUT values/'<sheet>'!<cell>`` with its value."""
    only(module, *_CELL, "value", "valueInputOption")
    required(module, "cell")
    return awaited(module, gen, "google.update_cell", SHEETS, **_where(module), cell=module.mapper["cell"],
                   value=module.mapper.get("value", ""), value_input=module.mapper.get("valueInputOption"))


def clear_cell(module: Module, gen: Gen) -> ModuleCode:
    """Clear a cell: ``POST values/'<sheet>'!<cell>:clear``."""
    only(module, *_CELL)
    required(module, "cell")
    return awaited(module, gen, "google.clear_cell", SHEETS, **_where(module), cell=module.mapper["cell"])


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    "google-sheets:addRow": add_row, "google-sheets:updateRow": update_row, "google-sheets:filterRows": filter_rows,
    "google-sheets:getSheetContent": get_sheet_content, "google-sheets:clearRow": clear_row,
    "google-sheets:deleteRow": delete_row, "google-sheets:updateCell": update_cell, "google-sheets:clearCell": clear_cell,
    **TRIGGER_TRANSLATORS,
}

# module type -> (catalogue app, operation): the call each makes, for the catalogue's table (operation x platform)
OPERATIONS: dict[str, tuple[str, str]] = {
    "google-sheets:addRow": ("google-sheets", "sheet.append"), "google-sheets:updateRow": ("google-sheets", "sheet.updateRow"),
    "google-sheets:filterRows": ("google-sheets", "sheet.readRange"),
    "google-sheets:getSheetContent": ("google-sheets", "sheet.readRange"),
    "google-sheets:clearRow": ("google-sheets", "sheet.clear"), "google-sheets:clearCell": ("google-sheets", "sheet.clear"),
    "google-sheets:deleteRow": ("google-sheets", "sheet.delete"),
    "google-sheets:updateCell": ("google-sheets", "sheet.updateRow"),
    "google-sheets:watchRows": ("google-sheets", "sheet.readRange"),
    "google-email:triggerWatchNewEmails": ("gmail", "message.getAll"),
    "google-drive:watchFilesInAFolder": ("google-drive", "fileFolder.search"),
}

"""What scaffolded n8n app nodes (HubSpot, Stripe, Google Sheets) need at run time.

Each helper builds a request body or reads a response the way the n8n node does, so the
generated code stays a few lines per node (see ``harness.platforms.n8n.translate.apps``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from ._n8n_js import text, truthy

Item = dict[str, Any]


def epoch_ms(value: Any) -> Any:
    """Return ``new Date(value).getTime()`` for an ISO date text or a number (other values as they are)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return value
    if isinstance(value, int | float):
        return int(value)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def properties(pairs: Sequence[tuple[str, Any]], key: str = "property") -> list[dict[str, Any]]:
    """Return HubSpot's v1 ``properties`` list: one ``{key: name, "value": v}`` per truthy value.

    The n8n node adds a property only ``if (additionalFields.x)``: a field set to ``""``, 0 or
    null is not sent.
    """
    return [{key: name, "value": value} for name, value in pairs if truthy(value)]


def form_fields(body: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Flatten a body into Stripe's form fields: ``metadata[plan]=pro``, ``items[0][price]=…``.

    The result is the flat mapping ``ctx.call(..., data=...)`` sends as a form. None values are
    left out; booleans are ``true``/``false`` as Stripe's libraries send them.
    """
    fields: dict[str, str] = {}
    for name, value in body.items():
        key = f"{prefix}[{name}]" if prefix else str(name)
        if value is None:
            continue
        if isinstance(value, dict):
            fields.update(form_fields(value, key))
        elif isinstance(value, list):
            fields.update(form_fields({str(i): v for i, v in enumerate(value)}, key))
        else:
            fields[key] = text(value)
    return fields


def _cell(value: Any) -> Any:
    """Return a value as n8n writes it into a cell: objects and arrays as JSON text."""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return value


def sheet_row(columns: Sequence[str], values: dict[str, Any]) -> list[Any]:
    """Return one row for ``spreadsheets.values.append``: the values in column order, ``""`` when unset."""
    return ["" if values.get(column) is None else _cell(values[column]) for column in columns]


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def sheet_updates(response: Any, sheet: str, key: str, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``values:batchUpdate`` data for n8n's *Update Row*: one cell range per changed column.

    ``response`` is the sheet as read (header row first). Each record's row is the first data row
    whose ``key`` column holds the record's key (compared as text), or its ``row_number`` when
    ``key`` is ``row_number``; a record with no key or no matching row changes nothing. The key
    column itself is not written, nor a column the record leaves null, as in n8n.
    """
    values = (response.json() or {}).get("values") or [[]]
    header = [text(cell) for cell in values[0]] if values else []
    keys = [row[header.index(key)] if key in header and header.index(key) < len(row) else None for row in values[1:]]
    data: list[dict[str, Any]] = []
    for record in records:
        wanted = record.get(key)
        if wanted is None:
            continue
        if key == "row_number":
            row = int(wanted)
        else:
            matches = [n for n, cell in enumerate(keys) if cell is not None and text(cell) == text(wanted)]
            if not matches:
                continue
            row = matches[0] + 2
        for index, column in enumerate(header):
            if column != key and record.get(column) is not None:
                data.append({"range": f"{sheet}!{_column_letter(index)}{row}", "values": [[_cell(record[column])]]})
    return data


def quote_path(value: Any) -> str:
    """Return a value as one URL path segment (a sheet title: ``Q1 leads`` → ``Q1%20leads``)."""
    return quote(text(value), safe="")


class _Answered:
    """A response whose JSON object has had fields added (what a node outputs after adding them)."""

    def __init__(self, body: Any) -> None:
        self._body = body
        self.text = ""

    def json(self) -> Any:
        """Return the body."""
        return self._body


def with_fields(response: Any, fields: dict[str, Any]) -> Any:
    """Return ``response`` with ``fields`` set on its JSON object (HubSpot's upsert keeps ``isNew``)."""
    body = response.json()
    if not isinstance(body, dict):
        return response
    return _Answered({**body, **fields})

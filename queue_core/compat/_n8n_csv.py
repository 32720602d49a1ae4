"""Convert to File *Convert to CSV*, as n8n 1.123 makes it (``convertJsonToSpreadsheetBinary`` with SheetJS 0.18).

Each item's json flattened (``a.b`` for nested keys, ``b.0`` for a list's entries; an empty object
or list leaves no column), the columns in the order keys first appear (JavaScript's key order),
a header row unless ``headerRow`` is off; a cell as SheetJS's General format writes it (``TRUE``,
``FALSE``, numbers in at most 11 characters: ``0.3``, ``0.333333333``, ``1E+21``), quoted when it
holds the delimiter's first character, a newline or ``"``; rows joined by ``\\n`` after a UTF-8
byte-order mark. The file is ``File.csv`` unless named.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

from ._n8n_binary import entry
from ._n8n_convert import _key_order, _number

Item = dict[str, Any]
_EXACT = Context(prec=800, rounding=ROUND_HALF_UP)  # a double's exact decimal value fits


def flatten(data: dict[str, Any]) -> dict[str, Any]:
    """n8n's ``flattenObject``: nested objects and lists as dotted keys, null kept."""
    out: dict[str, Any] = {}
    named = {str(k): v for k, v in data.items()}
    for key in _key_order(list(named)):
        value = named[key]
        if isinstance(value, dict | list):
            inner = flatten({str(i): v for i, v in enumerate(value)} if isinstance(value, list) else value)
            out.update({f"{key}.{k}": v for k, v in inner.items()})
        else:
            out[key] = value
    return out


def _fixed(v: float, digits: int) -> str:  # Number.prototype.toFixed
    return format(Decimal(v).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_EXACT), "f")


def _exponential(v: float, digits: int) -> str:  # Number.prototype.toExponential
    d = Decimal(v)
    exponent = d.adjusted()
    mantissa = d.scaleb(-exponent, _EXACT).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_EXACT)
    if abs(mantissa) >= 10:
        exponent += 1
        mantissa = d.scaleb(-exponent, _EXACT).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP,
                                                         context=_EXACT)
    return f"{format(mantissa, 'f')}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _precision(v: float, digits: int) -> str:  # Number.prototype.toPrecision
    exponent = Decimal(v).adjusted()
    rounded = Decimal(v).quantize(Decimal(1).scaleb(exponent - digits + 1), rounding=ROUND_HALF_UP, context=_EXACT)
    if rounded.adjusted() != exponent:
        exponent = rounded.adjusted()
    if exponent < -6 or exponent >= digits:
        return _exponential(v, digits - 1)
    return _fixed(v, max(digits - 1 - exponent, 0))


def _strip_decimal(text: str) -> str:
    if "." not in text:
        return text
    head, tail = text.split(".", 1)
    tail = tail.rstrip("0")
    return f"{head}.{tail}" if tail else head


def _normalize_exp(text: str) -> str:
    if "E" not in text:
        return text
    mantissa, exponent = text.split("E")
    sign, digits = exponent[0], exponent[1:]
    return f"{_strip_decimal(mantissa)}E{sign}{digits.zfill(2)}"


def general(v: float) -> str:
    """Return a number as SheetJS's General format writes it (``SSF_general``)."""
    if isinstance(v, int) and -2 ** 31 <= v < 2 ** 31 or isinstance(v, float) and v.is_integer() and -2 ** 31 <= v < 2 ** 31:
        return str(int(v))
    if not math.isfinite(v):
        return _number(v) if not math.isnan(v) else "NaN"
    v = float(v)
    power = math.floor(math.log10(abs(v)))
    if -4 <= power <= -1:
        shown = _precision(v, 10 + power)
    elif abs(power) <= 9:
        width = 12 if v < 0 else 11
        shown = _strip_decimal(_fixed(v, 12))
        if len(shown) > width:
            shown = _precision(v, 10)
            if len(shown) > width:
                shown = _exponential(v, 5)
    elif power == 10:
        shown = _fixed(v, 10)[:12]
    else:
        shown = _strip_decimal(_fixed(v, 11))
        if len(shown) > (12 if v < 0 else 11) or shown in ("0", "-0"):
            shown = _precision(v, 6)
    return _strip_decimal(_normalize_exp(shown.upper()))


def _cell(value: Any, separator: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, int | float):
        text = general(value)
    else:
        text = str(value)
    if any(c in text for c in (separator[:1] or ",", "\n", '"')):
        text = '"' + text.replace('"', '""') + '"'
    return '"ID"' if text == "ID" else text


def csv_text(items: list[Item], *, delimiter: str = ",", header: bool = True) -> str:
    """Return the CSV text (no byte-order mark) of the items' flattened json."""
    rows = [flatten(item.get("json") or {}) for item in items]
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    lines = [delimiter.join(_cell(c, delimiter) for c in columns)] if header else []
    lines += [delimiter.join(_cell(row.get(c), delimiter) for c in columns) for row in rows]
    if not columns:  # SheetJS's empty sheet still has its cell A1: one empty row per row of its range
        lines = [""] * max(len(rows) + (1 if header else 0), 1)
    return "\n".join(lines)


def to_csv_file(items: list[Item], *, output: str, options: dict[str, Any]) -> list[Item]:
    """Return *Convert to CSV*'s one item: every item's json as one CSV file (n8n reads the first item's options)."""
    delimiter = str(options.get("delimiter") or ",")
    data = "\ufeff" + csv_text(items, delimiter=delimiter, header=options.get("headerRow", True) is not False)
    name = options.get("fileName") if options.get("fileName") is not None else "File.csv"
    return [{"json": {}, "binary": {output: entry(data.encode("utf-8"), file_path=str(name) if name != "" else None)}}]

"""Make's IML functions (the ``{{fn(a; b)}}`` of a mapping), with Make's documented semantics.

Paths are Make's: dot notation, and the first element of an array is index 1 (``get(array; 1)``
is the first element). ``null`` and ``""`` are *empty* (``ifempty``). Values are JSON values;
text conversion is ``_make_filter.text`` (``toString``). ``FUNCTIONS`` maps each IML name to
its Python implementation; generated code calls ``make.fn("name", …)``.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from ._make_filter import empty, get, instant, number, text
from ..errors import MakeFunctionError
from ._make_functions_more import MORE
from ._make_functions_bin import BINARY, zone_of


def truth(value: Any) -> bool:
    """Return how ``if`` reads a condition: booleans, ``true``/``false`` text, non-zero numbers, else filled-in."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int | float):
        return value != 0
    return not empty(value)


def _map(array: Any, key: Any, filter_key: Any = None, *allowed: Any) -> list[Any]:
    out = []
    wanted = {text(a) for a in allowed}
    for element in array if isinstance(array, list) else []:
        if filter_key is not None and allowed and text(get(element, filter_key)) not in wanted:
            continue
        out.append(get(element, key))
    return out


def _switch(value: Any, *pairs: Any) -> Any:
    for index in range(0, len(pairs) - 1, 2):
        if text(pairs[index]) == text(value):
            return pairs[index + 1]
    return pairs[-1] if len(pairs) % 2 else None


def _contains(haystack: Any, needle: Any) -> bool:
    if isinstance(haystack, list):
        return text(needle) in [text(e) for e in haystack]
    return text(needle) in text(haystack)


def _replace(value: Any, search: Any, replacement: Any) -> str:
    source, pattern = text(value), text(search)
    regex = re.fullmatch(r"/(.*)/([gimsu]*)", pattern, re.S)
    if regex is None:
        return source.replace(pattern, text(replacement))
    flags = (re.I if "i" in regex.group(2) else 0) | (re.M if "m" in regex.group(2) else 0)
    count = 0 if "g" in regex.group(2) else 1
    target = re.sub(r"\$(\d)", r"\\\1", text(replacement))
    return re.sub(regex.group(1), target, source, count=count, flags=flags)


def _numeric(value: Any) -> Decimal:
    parsed = number(value)
    if parsed is None:
        raise MakeFunctionError(f"{text(value)!r} is not a number")
    return parsed


def _plain(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def parse_number(value: Any, decimal_separator: Any = ".") -> int | float | None:
    """Return ``parseNumber(text; [decimal separator])``: thousands separators dropped; None if not a number."""
    raw = text(value).strip()
    separator = text(decimal_separator) or "."
    thousands = "," if separator == "." else "."
    raw = raw.replace(thousands, "").replace(" ", "").replace(separator, ".")
    parsed = number(raw)
    return None if parsed is None else _plain(parsed)


_TOKENS = re.compile(r"\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|HH|H|hh|h|mm|m|ss|s|SSS|A|a|X|x|Z")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]


def format_date(value: Any, pattern: Any, zone: Any = None) -> str:
    """Return ``formatDate(date; format; [timezone])`` for the common moment.js tokens (UTC by default)."""
    moment = instant(value)
    if moment is None:
        raise MakeFunctionError(f"formatDate: {text(value)!r} is not a date")
    if zone:
        moment = moment.astimezone(zone_of(zone))  # a name Make does not recognise: the organisation's (UTC)
    else:
        moment = moment.astimezone(UTC)
    hour12 = moment.hour % 12 or 12
    offset = moment.strftime("%z")
    values = {
        "YYYY": f"{moment.year:04d}", "YY": f"{moment.year % 100:02d}", "MMMM": _MONTHS[moment.month - 1],
        "MMM": _MONTHS[moment.month - 1][:3], "MM": f"{moment.month:02d}", "M": str(moment.month),
        "DD": f"{moment.day:02d}", "D": str(moment.day), "HH": f"{moment.hour:02d}", "H": str(moment.hour),
        "hh": f"{hour12:02d}", "h": str(hour12), "mm": f"{moment.minute:02d}", "m": str(moment.minute),
        "ss": f"{moment.second:02d}", "s": str(moment.second), "SSS": f"{moment.microsecond // 1000:03d}",
        "A": "AM" if moment.hour < 12 else "PM", "a": "am" if moment.hour < 12 else "pm",
        "X": str(int(moment.timestamp())), "x": str(int(moment.timestamp() * 1000)),
        "Z": f"{offset[:3]}:{offset[3:]}",
    }
    return _TOKENS.sub(lambda m: m.group(1) if m.group(1) is not None else values[m.group(0)], text(pattern))


def _shift(unit: str) -> Callable[[Any, Any], datetime]:
    def shift(value: Any, amount: Any) -> datetime:
        moment = instant(value)
        if moment is None:
            raise MakeFunctionError(f"add{unit.title()}: {text(value)!r} is not a date")
        return moment + timedelta(**{unit: float(_numeric(amount))})

    return shift


def _slice(array: Any, start: Any, end: Any = None) -> list[Any]:
    items = array if isinstance(array, list) else []
    return items[int(_numeric(start)):None if end is None else int(_numeric(end))]


def _distinct(array: Any, key: Any = None) -> list[Any]:
    seen: set[str] = set()
    out = []
    for element in array if isinstance(array, list) else []:
        mark = text(get(element, key) if key is not None else element)
        if mark not in seen:
            seen.add(mark)
            out.append(element)
    return out


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "get": get, "if": lambda cond, a, b=None: a if truth(cond) else b,
    "ifempty": lambda a, b: b if empty(a) else a, "switch": _switch,
    "lower": lambda v: text(v).lower(), "upper": lambda v: text(v).upper(), "trim": lambda v: text(v).strip(),
    "capitalize": lambda v: text(v)[:1].upper() + text(v)[1:], "toString": text,
    "length": lambda v: len(v) if isinstance(v, list | dict) else len(text(v)),
    "join": lambda array, sep="": text(sep).join(text(e) for e in (array if isinstance(array, list) else [array])),
    "split": lambda v, sep: text(v).split(text(sep)) if text(sep) else list(text(v)),
    "map": _map, "first": lambda a: a[0] if isinstance(a, list) and a else None,
    "last": lambda a: a[-1] if isinstance(a, list) and a else None, "contains": _contains,
    "replace": _replace, "substring": lambda v, start, end=None: text(v)[int(_numeric(start)):None if end is None else int(_numeric(end))],
    "indexOf": lambda v, s, start=0: text(v).find(text(s), int(_numeric(start))),
    "startcase": lambda v: " ".join(w[:1].upper() + w[1:].lower() for w in text(v).split(" ")),
    "keys": lambda v: list(v) if isinstance(v, dict) else [str(i) for i in range(len(v))] if isinstance(v, list) else [],
    "slice": _slice, "merge": lambda *arrays: [e for a in arrays for e in (a if isinstance(a, list) else [a])],
    "add": lambda array, *values: [*(array if isinstance(array, list) else []), *values],
    "remove": lambda array, *values: [e for e in (array if isinstance(array, list) else [])
                                      if text(e) not in {text(v) for v in values}],
    "reverse": lambda a: list(reversed(a)) if isinstance(a, list) else a, "distinct": _distinct,
    "parseNumber": parse_number, "toNumber": lambda v: parse_number(v),
    "round": lambda v: _plain(Decimal(math.floor(_numeric(v) + Decimal("0.5")))),
    "floor": lambda v: _plain(Decimal(math.floor(_numeric(v)))), "ceil": lambda v: _plain(Decimal(math.ceil(_numeric(v)))),
    "min": lambda *v: _plain(min(_numeric(x) for x in _flat(v))), "max": lambda *v: _plain(max(_numeric(x) for x in _flat(v))),
    "sum": lambda *v: _plain(sum((_numeric(x) for x in _flat(v)), Decimal(0))),
    "formatDate": format_date, "addDays": _shift("days"), "addHours": _shift("hours"),
    "addMinutes": _shift("minutes"), "addSeconds": _shift("seconds"),
}
FUNCTIONS.update(MORE)  # _make_functions_more: dates, hashes, arrays, omit/pick
FUNCTIONS.update(BINARY)  # _make_functions_bin: binary data (toBinary, toString), ascii, keyed hashes


def _flat(values: tuple[Any, ...]) -> list[Any]:
    return [e for v in values for e in (v if isinstance(v, list) else [v])]


def fn(name: str, *args: Any) -> Any:
    """Call the IML function ``name``; raise MakeFunctionError for one that is not implemented."""
    function = FUNCTIONS.get(name)
    if function is None:
        raise MakeFunctionError(f"IML function {name!r} is not implemented")
    try:
        inspect.signature(function).bind(*args)
    except TypeError as exc:  # Make fails the module on a call it cannot evaluate: name it, no traceback
        raise MakeFunctionError(f"IML function {name}() does not take {len(args)} argument(s)") from exc
    except ValueError:  # a builtin without a signature: called as it is
        pass
    return function(*args)

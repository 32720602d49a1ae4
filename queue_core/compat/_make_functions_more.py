"""More of Make's IML functions (https://www.make.com/en/help/functions): dates (``parseDate``,
``addMonths``, ``setHour`` …), text (hashes, ``base64``, ``encodeURL``, ``stripHTML`` …), arrays
(``flatten``, ``sort``, ``deduplicate``, ``toCollection`` …) and general ones (``omit``, ``pick``).

Dates without a timezone argument are read and written in UTC (Make uses the timezone of the
scenario's organisation: set it as the argument where it matters).
"""

from __future__ import annotations

import base64
import calendar
import hashlib
import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import quote, unquote

from ..errors import MakeFunctionError
from ._make_filter import get, instant, number, text
from ._make_functions_bin import zone_of

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_PARSE = {
    "YYYY": r"(?P<Y>\d{4})", "YY": r"(?P<y>\d{2})", "MMMM": r"(?P<B>[A-Za-z]+)", "MMM": r"(?P<b>[A-Za-z]{3})",
    "MM": r"(?P<m>\d{2})", "M": r"(?P<m>\d{1,2})", "DD": r"(?P<d>\d{2})", "D": r"(?P<d>\d{1,2})",
    "Do": r"(?P<d>\d{1,2})(?:st|nd|rd|th)", "HH": r"(?P<H>\d{2})", "H": r"(?P<H>\d{1,2})", "hh": r"(?P<I>\d{2})",
    "h": r"(?P<I>\d{1,2})", "mm": r"(?P<M>\d{2})", "m": r"(?P<M>\d{1,2})", "ss": r"(?P<S>\d{2})",
    "s": r"(?P<S>\d{1,2})", "SSS": r"(?P<f>\d{3})", "A": r"(?P<p>AM|PM|am|pm)", "a": r"(?P<p>am|pm|AM|PM)",
    "X": r"(?P<X>-?\d+(?:\.\d+)?)", "x": r"(?P<x>-?\d+)", "Z": r"(?P<z>Z|[+-]\d{2}:?\d{2})",
    "ZZ": r"(?P<z>Z|[+-]\d{2}:?\d{2})",
}
_PARSE_TOKENS = re.compile(r"\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|HH|H|hh|h|mm|m|ss|s|SSS|A|a|X|x|ZZ|Z")


def parse_date(value: Any, pattern: Any = None, zone: Any = None) -> datetime:
    """Return ``parseDate(text; format; [timezone])``: the moment.js tokens of ``format`` read from ``text``."""
    if isinstance(value, datetime):
        return value
    raw = text(value).strip()
    if pattern is None or text(pattern) == "":
        moment = instant(raw)
        if moment is None:
            raise MakeFunctionError(f"parseDate: {raw!r} is not a date")
        return moment
    seen: set[str] = set()

    def token(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return re.escape(match.group(1))
        piece = _PARSE[match.group(0)]
        group = piece[4]
        if group in seen:  # a field written twice: the second must only match
            return re.sub(r"\(\?P<\w>", "(?:", piece)
        seen.add(group)
        return piece

    source, pos, parts = text(pattern), 0, []
    for match in _PARSE_TOKENS.finditer(source):
        parts += [re.escape(source[pos:match.start()]), token(match)]
        pos = match.end()
    parts.append(re.escape(source[pos:]))
    found = re.fullmatch("".join(parts), raw)
    if found is None:
        raise MakeFunctionError(f"parseDate: {raw!r} does not have the format {source!r}")
    g = found.groupdict()
    if g.get("X"):
        return datetime.fromtimestamp(float(g["X"]), UTC)
    if g.get("x"):
        return datetime.fromtimestamp(int(g["x"]) / 1000, UTC)
    month = int(g["m"]) if g.get("m") else 1
    for key, size in (("B", None), ("b", 3)):
        if g.get(key):
            names = [n[:size] if size else n for n in _MONTHS]
            if g[key].lower() not in names:
                raise MakeFunctionError(f"parseDate: {g[key]!r} is not a month")
            month = names.index(g[key].lower()) + 1
    year = int(g["Y"]) if g.get("Y") else (2000 + int(g["y"]) if int(g["y"]) < 69 else 1900 + int(g["y"])) \
        if g.get("y") else datetime.now(UTC).year
    hour = int(g["H"]) if g.get("H") else int(g["I"]) % 12 if g.get("I") else 0
    if g.get("p") and g["p"].lower() == "pm" and g.get("I"):
        hour += 12
    try:
        naive = datetime(year, month, int(g["d"]) if g.get("d") else 1, hour, int(g.get("M") or 0),
                         int(g.get("S") or 0), int(g.get("f") or 0) * 1000)
    except ValueError as exc:
        raise MakeFunctionError(f"parseDate: {raw!r}: {exc}") from None
    if g.get("z"):
        offset = g["z"]
        if offset == "Z":
            return naive.replace(tzinfo=UTC)
        sign = -1 if offset[0] == "-" else 1
        digits = offset[1:].replace(":", "")
        return (naive - sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))).replace(tzinfo=UTC)
    if zone:  # a name Make does not recognise: the organisation's timezone (UTC here)
        return naive.replace(tzinfo=zone_of(zone)).astimezone(UTC)
    return naive.replace(tzinfo=UTC)


def _date(value: Any, name: str) -> datetime:
    moment = instant(value)
    if moment is None:
        raise MakeFunctionError(f"{name}: {text(value)!r} is not a date")
    return moment


def _int(value: Any, name: str) -> int:
    parsed = number(value)
    if parsed is None:
        raise MakeFunctionError(f"{name}: {text(value)!r} is not a number")
    return int(parsed)


def _add_months(value: Any, months: Any, name: str = "addMonths") -> datetime:
    moment = _date(value, name)
    total = moment.month - 1 + _int(months, name)
    year, month = moment.year + total // 12, total % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def _setter(field: str) -> Callable[[Any, Any], datetime]:
    def set_field(value: Any, amount: Any) -> datetime:
        moment = _date(value, f"set{field.title()}")
        if field == "day":  # setDay: the day of the week, 1 Monday … 7 Sunday (a name too)
            raw = text(amount).strip().lower()
            names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
            day = names.index(raw) + 1 if raw in names else _int(amount, "setDay")
            return moment + timedelta(days=day - moment.isoweekday())
        if field == "date":
            return moment.replace(day=_int(amount, "setDate"))
        if field == "month":
            raw = text(amount).strip().lower()
            month = _MONTHS.index(raw) + 1 if raw in _MONTHS else _int(amount, "setMonth")
            return moment.replace(month=month)
        value = _int(amount, f"set{field.title()}")
        if field == "year":
            return moment.replace(year=value)
        if field == "hour":
            return moment.replace(hour=value)
        if field == "minute":
            return moment.replace(minute=value)
        return moment.replace(second=value)

    return set_field


def _hash(algorithm: str) -> Callable[..., str]:
    def digest(value: Any, encoding: Any = "hex") -> str:
        raw = hashlib.new(algorithm, text(value).encode("utf-8")).digest()
        return base64.b64encode(raw).decode("ascii") if text(encoding) == "base64" else raw.hex()

    return digest


def _flatten(array: Any, depth: Any = 1) -> list[Any]:
    items = array if isinstance(array, list) else [array]
    levels = _int(depth, "flatten") if depth is not None else 1
    for _ in range(levels):
        if not any(isinstance(e, list) for e in items):
            break
        items = [x for e in items for x in (e if isinstance(e, list) else [e])]
    return items


def _sort(array: Any, order: Any = "asc", key: Any = None) -> list[Any]:
    items = list(array) if isinstance(array, list) else []
    mode = text(order).lower() or "asc"

    def sort_key(element: Any) -> tuple[int, Any, str]:
        value = get(element, key) if key not in (None, "") else element
        if isinstance(value, int | float) and not isinstance(value, bool):
            return (0, Decimal(str(value)), "")
        return (1, 0, text(value).lower() if mode.endswith("ci") else text(value))

    return sorted(items, key=sort_key, reverse=mode.startswith("desc"))


def _to_collection(array: Any, key: Any, value: Any) -> dict[str, Any]:
    return {text(get(e, key)): get(e, value) for e in (array if isinstance(array, list) else [])}


def _format_number(value: Any, decimals: Any = 0, decimal_sep: Any = ",", thousands: Any = ".") -> str:
    parsed = number(value)
    if parsed is None:
        raise MakeFunctionError(f"formatNumber: {text(value)!r} is not a number")
    places = _int(decimals, "formatNumber")
    rounded = parsed.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    whole, _, fraction = f"{abs(rounded):f}".partition(".")
    grouped = f"{int(whole):,}".replace(",", text(thousands))
    sign = "-" if rounded < 0 else ""
    return sign + grouped + (text(decimal_sep) + fraction if places > 0 else "")


def _average(*values: Any) -> int | float:
    items = [v for x in values for v in (x if isinstance(x, list) else [x])]
    numbers = [n for n in (number(v) for v in items) if n is not None]
    if not numbers or len(numbers) != len(items):
        raise MakeFunctionError("average: every value must be a number")
    result: Decimal = sum(numbers, Decimal(0)) / len(numbers)
    return int(result) if result == result.to_integral_value() else float(result)


def _strip_html(value: Any) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", text(value)))


MORE: dict[str, Callable[..., Any]] = {
    "parseDate": parse_date, "addMonths": _add_months,
    "addYears": lambda v, n: _add_months(v, _int(n, "addYears") * 12, "addYears"),
    "setSecond": _setter("second"), "setMinute": _setter("minute"), "setHour": _setter("hour"),
    "setDay": _setter("day"), "setDate": _setter("date"), "setMonth": _setter("month"), "setYear": _setter("year"),
    "md5": _hash("md5"), "sha1": _hash("sha1"), "sha256": _hash("sha256"), "sha512": _hash("sha512"),
    "base64": lambda v: base64.b64encode(v if isinstance(v, bytes) else text(v).encode("utf-8")).decode("ascii"),
    "encodeURL": lambda v: quote(text(v), safe="-_.!~*'()"), "decodeURL": lambda v: unquote(text(v)),
    "escapeHTML": lambda v: html.escape(text(v), quote=True).replace("&#x27;", "&#39;"),
    "stripHTML": _strip_html, "ascii": lambda v, *_: text(v).encode("ascii", "ignore").decode("ascii"),
    "flatten": _flatten, "sort": _sort, "toCollection": _to_collection,
    "deduplicate": lambda a: [e for i, e in enumerate(a if isinstance(a, list) else []) if e not in a[:i]],
    "toArray": lambda c: [{"key": k, "value": v} for k, v in c.items()] if isinstance(c, dict) else
    (c if isinstance(c, list) else [c]),
    "arrayDifference": lambda a, b, mode="classic": [e for e in (a if isinstance(a, list) else [])
                                                     if e not in (b if isinstance(b, list) else [])] +
    ([e for e in (b if isinstance(b, list) else []) if e not in (a if isinstance(a, list) else [])]
     if text(mode) == "symmetric" else []),
    "omit": lambda c, *keys: {k: v for k, v in c.items() if k not in {text(x) for x in keys}} if isinstance(c, dict) else c,
    "pick": lambda c, *keys: {k: v for k, v in c.items() if k in {text(x) for x in keys}} if isinstance(c, dict) else c,
    "formatNumber": _format_number, "average": _average,
}

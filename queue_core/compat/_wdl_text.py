"""WDL string, logical comparison and math functions, with the reference's semantics.

Each function is named as WDL names it (a Python keyword or builtin gets a trailing ``_``:
``if_``, ``and_``, ``max_``). Documented behaviour kept here: ``indexOf``, ``lastIndexOf``,
``startsWith`` and ``endsWith`` ignore case, ``replace`` and ``contains`` do not; ``substring``
fails past the end where ``slice`` clamps; ``div`` of two integers is an integer (truncated, as
.NET divides), ``mod`` takes the sign of the dividend; ``rand`` and ``guid`` are random, as in
Power Automate (a shadow replay cannot reproduce the recorded value).
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ._wdl_values import (Number, bool_arg, comparable, equal, fail, int_arg, is_number, kind, number_arg,
                          string_arg, text)

# -- string functions -----------------------------------------------------------------------


def concat(first: Any, *rest: Any) -> str:
    """Return ``concat(a, b, …)``: the texts of the values joined (null adds nothing)."""
    return "".join(text(v) for v in (first, *rest))


def substring(value: Any, start: Any, length: Any = None) -> str:
    """Return ``substring(text, startIndex, length?)``; fails when the range passes the end."""
    whole, begin = string_arg("substring", value), int_arg("substring", start)
    if begin < 0 or begin > len(whole):
        fail("substring", f"parameter 'startIndex' ({begin}) must be between 0 and the length of the string "
                          f"({len(whole)}).")
    if length is None:
        return whole[begin:]
    size = int_arg("substring", length)
    if size < 0 or begin + size > len(whole):
        fail("substring", f"parameters 'startIndex' ({begin}) plus 'length' ({size}) must not exceed the length "
                          f"of the string ({len(whole)}).")
    return whole[begin:begin + size]


def slice(value: Any, start: Any, end: Any = None) -> str:  # noqa: A001 - the WDL name
    """Return ``slice(text, startIndex, endIndex?)``: negative indexes count from the end, clamped."""
    whole = string_arg("slice", value)
    begin = int_arg("slice", start)
    stop = len(whole) if end is None else int_arg("slice", end)
    return whole[begin:stop]


def replace(value: Any, old: Any, new: Any) -> str:
    """Return ``replace(text, oldText, newText)``: every occurrence, case-sensitive."""
    whole, found = string_arg("replace", value), string_arg("replace", old)
    if found == "":
        fail("replace", "expects its 'oldText' parameter to be a non-empty string.")
    return whole.replace(found, text(new))


def toLower(value: Any) -> str:  # noqa: N802 - the WDL name
    """Return ``toLower(text)``."""
    return string_arg("toLower", value).lower()


def toUpper(value: Any) -> str:  # noqa: N802
    """Return ``toUpper(text)``."""
    return string_arg("toUpper", value).upper()


def trim(value: Any) -> str:
    """Return ``trim(text)``: leading and trailing whitespace removed."""
    return string_arg("trim", value).strip()


def split(value: Any, delimiter: Any) -> list[str]:
    """Return ``split(text, delimiter)`` (an empty delimiter leaves the text whole)."""
    whole, sep = string_arg("split", value), string_arg("split", delimiter)
    return [whole] if sep == "" else whole.split(sep)


def indexOf(value: Any, search: Any) -> int:  # noqa: N802
    """Return ``indexOf(text, searchText)``: the first position, ignoring case; -1 when absent."""
    return string_arg("indexOf", value).lower().find(string_arg("indexOf", search).lower())


def lastIndexOf(value: Any, search: Any) -> int:  # noqa: N802
    """Return ``lastIndexOf(text, searchText)``, with the reference's rules for empty strings."""
    whole, wanted = string_arg("lastIndexOf", value), string_arg("lastIndexOf", search)
    if wanted == "":
        return 0 if whole == "" else len(whole) - 1
    return whole.lower().rfind(wanted.lower())


def nthIndexOf(value: Any, search: Any, occurrence: Any) -> int:  # noqa: N802
    """Return ``nthIndexOf(text, searchText, n)``: the nth occurrence (from the end when n < 0); -1 if fewer."""
    whole, wanted = string_arg("nthIndexOf", value), string_arg("nthIndexOf", search)
    n = int_arg("nthIndexOf", occurrence)
    if n == 0:
        fail("nthIndexOf", "expects its 'occurrence' parameter to be a non-zero integer.")
    places = [i for i in range(len(whole) - len(wanted) + 1) if whole.startswith(wanted, i)]
    if len(places) < abs(n):
        return -1
    return places[n - 1] if n > 0 else places[n]


def startsWith(value: Any, search: Any) -> bool:  # noqa: N802
    """Return ``startsWith(text, searchText)``, ignoring case."""
    return string_arg("startsWith", value).lower().startswith(string_arg("startsWith", search).lower())


def endsWith(value: Any, search: Any) -> bool:  # noqa: N802
    """Return ``endsWith(text, searchText)``, ignoring case."""
    return string_arg("endsWith", value).lower().endswith(string_arg("endsWith", search).lower())


_GUID_FORMATS = {"N": "{hex}", "D": "{d}", "B": "{{{d}}}", "P": "({d})"}


def guid(fmt: Any = "D") -> str:
    """Return ``guid(format?)``: a random GUID as "N", "D", "B", "P" or "X" formats it."""
    value, spec = uuid.uuid4(), text(fmt).upper() or "D"
    if spec == "X":
        h = value.hex
        tail = ",".join(f"0x{h[i:i + 2]}" for i in range(16, 32, 2))
        return f"{{0x{h[:8]},0x{h[8:12]},0x{h[12:16]},{{{tail}}}}}"
    if spec not in _GUID_FORMATS:
        fail("guid", f"expects a format of 'N', 'D', 'B', 'P' or 'X', not {text(fmt)!r}.")
    return _GUID_FORMATS[spec].format(hex=value.hex, d=str(value))


# -- logical comparison functions -----------------------------------------------------------


def and_(first: Any, *rest: Any) -> bool:
    """Return ``and(a, b, …)``: every expression true (each must be a Boolean)."""
    return all([bool_arg("and", v) for v in (first, *rest)])


def or_(first: Any, *rest: Any) -> bool:
    """Return ``or(a, b, …)``: at least one expression true."""
    return any([bool_arg("or", v) for v in (first, *rest)])


def not_(value: Any) -> bool:
    """Return ``not(expression)``."""
    return not bool_arg("not", value)


def if_(condition: Any, when_true: Any, when_false: Any) -> Any:
    """Return ``if(expression, valueIfTrue, valueIfFalse)`` (both values are evaluated, left to right)."""
    return when_true if bool_arg("if", condition) else when_false


def equals(left: Any, right: Any) -> bool:
    """Return ``equals(a, b)``."""
    return equal(left, right)


def _order(function: str, left: Any, right: Any) -> int:
    left, right = comparable(left), comparable(right)
    if is_number(left) and is_number(right):
        return (left > right) - (left < right)  # type: ignore[no-any-return]
    if isinstance(left, str) and isinstance(right, str):
        return (left > right) - (left < right)
    if isinstance(left, bool) and isinstance(right, bool):
        return int(left) - int(right)
    fail(function, f"expects two parameters of matching types (numbers or strings), not '{kind(left)}' "
                   f"and '{kind(right)}'.")


def greater(value: Any, other: Any) -> bool:
    """Return ``greater(value, compareTo)``."""
    return _order("greater", value, other) > 0


def greaterOrEquals(value: Any, other: Any) -> bool:  # noqa: N802
    """Return ``greaterOrEquals(value, compareTo)``."""
    return _order("greaterOrEquals", value, other) >= 0


def less(value: Any, other: Any) -> bool:
    """Return ``less(value, compareTo)``."""
    return _order("less", value, other) < 0


def lessOrEquals(value: Any, other: Any) -> bool:  # noqa: N802
    """Return ``lessOrEquals(value, compareTo)``."""
    return _order("lessOrEquals", value, other) <= 0


def coalesce(first: Any, *rest: Any) -> Any:
    """Return ``coalesce(a, b, …)``: the first value that is not null (empty strings are not null)."""
    return next((v for v in (first, *rest) if v is not None), None)


def coalesce_lazy(*values: Callable[[], Any]) -> Any:
    """Return ``coalesce(a, b, …)`` reading each operand only until one is not null (as Logic Apps does)."""
    for value in values:
        found = value()
        if found is not None:
            return found
    return None


# -- math functions -------------------------------------------------------------------------


def _pair(function: str, a: Any, b: Any) -> tuple[Number, Number]:
    x, y = number_arg(function, a), number_arg(function, b)
    if isinstance(x, Decimal) != isinstance(y, Decimal):   # the other operand becomes a decimal, as .NET converts
        x, y = (_decimal_of(v) for v in (x, y))
    return x, y


_INT64 = (-(2**63), 2**63 - 1)


def _checked(function: str, result: Number) -> Number:
    if isinstance(result, int) and not _INT64[0] <= result <= _INT64[1]:
        fail(function, "overflowed: the result is outside the 64-bit integer range.")
    return result


def _decimal_of(value: Number) -> Decimal:
    if isinstance(value, float):
        return Decimal(repr(value)).normalize()
    return Decimal(value)


def add(a: Any, b: Any) -> Number:
    """Return ``add(a, b)``: an integer for two integers (64-bit: overflow fails), else a float."""
    x, y = _pair("add", a, b)
    return _checked("add", x + y)  # type: ignore[operator]


def sub(a: Any, b: Any) -> Number:
    """Return ``sub(minuend, subtrahend)``."""
    x, y = _pair("sub", a, b)
    return _checked("sub", x - y)  # type: ignore[operator]


def mul(a: Any, b: Any) -> Number:
    """Return ``mul(a, b)``."""
    x, y = _pair("mul", a, b)
    return _checked("mul", x * y)  # type: ignore[operator]


def div(a: Any, b: Any) -> Number:
    """Return ``div(dividend, divisor)``: integer division (towards zero) for two integers."""
    x, y = _pair("div", a, b)
    if y == 0:
        fail("div", "cannot divide by zero.")
    if isinstance(x, int) and isinstance(y, int):
        quotient = abs(x) // abs(y)
        return quotient if (x >= 0) == (y >= 0) else -quotient
    return x / y  # type: ignore[operator]


def mod(a: Any, b: Any) -> Number:
    """Return ``mod(dividend, divisor)``: the remainder, with the sign of the dividend."""
    x, y = _pair("mod", a, b)
    if y == 0:
        fail("mod", "cannot divide by zero.")
    if isinstance(x, int) and isinstance(y, int):
        remainder = abs(x) % abs(y)
        return remainder if x >= 0 else -remainder
    if isinstance(x, Decimal):
        return x % y  # type: ignore[operator]  # Decimal's % keeps the dividend's sign
    return math.fmod(x, y)


def _numbers(function: str, values: tuple[Any, ...]) -> list[Number]:
    items = values[0] if len(values) == 1 and isinstance(values[0], list) else list(values)
    if not items:
        fail(function, "expects at least one number.")
    return [number_arg(function, v) for v in items]


def max_(first: Any, *rest: Any) -> Number:
    """Return ``max(a, b, …)`` or ``max([…])``."""
    return max(_numbers("max", (first, *rest)))


def min_(first: Any, *rest: Any) -> Number:
    """Return ``min(a, b, …)`` or ``min([…])``."""
    return min(_numbers("min", (first, *rest)))


def rand(low: Any, high: Any) -> int:
    """Return ``rand(minValue, maxValue)``: a random integer, ``maxValue`` excluded."""
    lo, hi = int_arg("rand", low), int_arg("rand", high)
    if lo > hi:
        fail("rand", f"expects 'minValue' ({lo}) not greater than 'maxValue' ({hi}).")
    return lo if lo == hi else random.randrange(lo, hi)


def range_(start: Any, count: Any) -> list[int]:
    """Return ``range(startIndex, count)``: ``count`` integers from ``startIndex``."""
    first, n = int_arg("range", start), int_arg("range", count)
    if n < 0 or n > 100_000:
        fail("range", f"expects 'count' ({n}) between 0 and 100000.")
    return list(range(first, first + n))

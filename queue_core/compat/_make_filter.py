"""Make's filter semantics: the operators of a filter or route condition, as Make applies them.

A Make filter is ``conditions: [[{a, o, b}, ...], ...]``: the outer list is OR, each inner list
AND, and a filter with no condition lets every bundle through. Operands are mapped values
(``{{1.score}}`` or literal text) and each operator converts them to its own type first:

- ``text:*`` compares text: ``null`` is ``""``, numbers are written as JavaScript writes them
  (``5``, ``1.5``), booleans as ``true``/``false``, arrays of plain values joined with ``, ``.
  Case-sensitive, unless the operator ends in ``:ci`` (both sides lower-cased). ``text:pattern``
  is a regular-expression *search* (not anchored); ``:ci`` adds the ignore-case flag.
- ``number:*`` parses both sides as numbers (text is trimmed: ``" 50 "`` is 50); when either
  side is not a number (empty, ``null``, ``"abc"``, a boolean) the condition is false, whatever
  the operator, ``number:notequal`` included.
- ``date:*`` compares instants (ISO 8601 text, with ``Z`` or an offset; a date alone is its
  midnight UTC; a number is epoch milliseconds); an unreadable date makes the condition false.
- ``boolean:equal``/``notequal`` read ``true``/``false`` (any case), 1/0 and booleans.
- ``array:contain``/``notcontain`` (``:ci``) look for the value among the array's elements as
  text; ``array:equal``/``notequal``/``greater``/``less``/``greaterorequal``/``lessorequal``
  compare the array's *length* with the number ``b``.
- ``exist``/``notexist`` ask whether the item is filled in: ``null``, ``""`` and ``[]`` are not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import MakeConditionError


def empty(value: Any) -> bool:
    """Return whether Make counts ``value`` as not filled in: null, empty text, an empty array."""
    return value is None or value == "" or (isinstance(value, list) and not value)


def text(value: Any) -> str:
    """Return ``value`` as Make writes it into text (``toString``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return ", ".join(text(v) for v in value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def number(value: Any) -> Decimal | None:
    """Return ``value`` as a number, or None when Make would not read it as one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return Decimal(str(value))
    if isinstance(value, str) and value.strip():
        try:
            parsed = Decimal(value.strip())
        except InvalidOperation:
            return None
        return parsed if parsed.is_finite() else None
    return None


def get(value: Any, path: Any) -> Any:
    """Return ``get(object or array; path)``: dot notation, array indexes from 1; None when absent."""
    current = value
    for part in [p for p in re.split(r"\.", text(path)) if p != ""]:
        key = part.strip("`")
        if isinstance(current, list):
            index = number(key)
            current = current[int(index) - 1] if index is not None and 1 <= index <= len(current) else None
        elif isinstance(current, dict):
            current = current.get(key)
        else:
            return None
    return current


def instant(value: Any) -> datetime | None:
    """Return ``value`` as an aware datetime, or None when it is not a date Make reads."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    raw = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def boolean(value: Any) -> bool | None:
    """Return ``value`` as a boolean (true/false text, 1/0, a boolean), else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    n = number(value)
    return None if n is None or n not in (0, 1) else n == 1


def _ordered(compare: Callable[[Any, Any], bool], convert: Callable[[Any], Any]) -> Callable[[Any, Any], bool]:
    def check(a: Any, b: Any) -> bool:
        left, right = convert(a), convert(b)
        return left is not None and right is not None and compare(left, right)

    return check


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "equal": lambda x, y: x == y, "notequal": lambda x, y: x != y, "greater": lambda x, y: x > y,
    "less": lambda x, y: x < y, "greaterorequal": lambda x, y: x >= y, "lessorequal": lambda x, y: x <= y,
}


def _pattern(a: str, b: str, ci: bool) -> bool:
    try:
        return re.search(b, a, re.IGNORECASE if ci else 0) is not None
    except re.error as exc:
        raise MakeConditionError(f"text:pattern: {b!r} is not a regular expression ({exc})") from None


_TEXT: dict[str, Callable[[str, str, bool], bool]] = {
    "equal": lambda a, b, _: a == b, "notequal": lambda a, b, _: a != b,
    "contain": lambda a, b, _: b in a, "notcontain": lambda a, b, _: b not in a,
    "startwith": lambda a, b, _: a.startswith(b), "notstartwith": lambda a, b, _: not a.startswith(b),
    "endwith": lambda a, b, _: a.endswith(b), "notendwith": lambda a, b, _: not a.endswith(b),
    "pattern": _pattern, "notpattern": lambda a, b, ci: not _pattern(a, b, ci),
}


def _elements(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _array(op: str, a: Any, b: Any, ci: bool) -> bool:
    if op in ("contain", "notcontain"):
        def fold(v: Any) -> str:
            return text(v).lower() if ci else text(v)

        found = fold(b) in [fold(e) for e in _elements(a)]
        return found if op == "contain" else not found
    length, right = len(_elements(a)), number(b)
    return right is not None and _COMPARISONS[op](Decimal(length), right)


OPERATORS = (
    ["exist", "notexist"]
    + [f"text:{op}{ci}" for op in _TEXT for ci in ("", ":ci")]
    + [f"{kind}:{op}" for kind in ("number", "date") for op in _COMPARISONS]
    + ["boolean:equal", "boolean:notequal"]
    + [f"array:{op}{ci}" for op in ("contain", "notcontain") for ci in ("", ":ci")]
    + [f"array:{op}" for op in _COMPARISONS]
)


def condition(operator: str, a: Any, b: Any = None) -> bool:
    """Return whether one condition ``{a, o: operator, b}`` holds, with Make's conversions.

    Raises MakeConditionError for an operator Make does not have.
    """
    if operator == "exist":
        return not empty(a)
    if operator == "notexist":
        return empty(a)
    kind, _, rest = operator.partition(":")
    op, _, ci = rest.partition(":")
    if ci not in ("", "ci") or operator not in OPERATORS:
        raise MakeConditionError(f"unknown filter operator {operator!r}")
    if kind == "text":
        left, right = text(a), text(b)
        if ci and op not in ("pattern", "notpattern"):
            left, right = left.lower(), right.lower()
        return _TEXT[op](left, right, bool(ci))
    if kind == "number":
        return _ordered(_COMPARISONS[op], number)(a, b)
    if kind == "date":
        return _ordered(_COMPARISONS[op], instant)(a, b)
    if kind == "boolean":
        first, second = boolean(a), boolean(b)
        return first is not None and second is not None and (first == second) == (op == "equal")
    return _array(op, a, b, bool(ci))


def passes(conditions: Sequence[Sequence[tuple[str, Any, Any]]] | None) -> bool:
    """Return whether a filter lets a bundle through: any AND-group whose conditions all hold.

    ``conditions`` is ``[[(operator, a, b), ...], ...]``; an empty filter lets everything through.
    """
    groups = [group for group in conditions or [] if group]
    if not groups:
        return True
    return any(all(condition(op, a, b) for op, a, b in group) for group in groups)

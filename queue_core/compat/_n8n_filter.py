"""n8n's condition semantics (IF v2, Filter v2, Switch v3 rules), as n8n applies them.

One condition is ``(type, operation, left, right)`` under the filter's options:
- ``case_sensitive``: when false, string operands are lower-cased (not for regex, which gets
  the ``i`` flag instead) and array ``contains`` compares strings case-insensitively;
- ``strict``: with strict type validation a value of the wrong JavaScript type fails the node
  ("Wrong type: '5' is a string but was expecting a number"); loose validation converts it
  (``"10"`` → 10, ``"true"``/``1`` → true) and fails only when it cannot be converted;
- ``version``: the filter's own version (1, or 2 from IF/Filter 2.2 on: booleans convert
  through the validator first; 3: empty strings and arrays count as empty numbers).
``None`` stands for both ``null`` and ``undefined``: it passes any type check, and ``exists``
is false for it (and for NaN). IF v1's older conditions model is ``if_v1`` below.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from typing import Any

from ..errors import N8nConditionError
from ._n8n_js import json_text, num, strict_eq, text, truthy

_MISSING = object()


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _to_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not (isinstance(value, str) and value.strip() == ""):
        n = num(value)
        if n == 0:
            return False
        if n == 1:
            return True
    return _MISSING


def _to_datetime(value: Any) -> Any:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    raw = text(value).strip()
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return _MISSING
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _to_array(value: Any) -> Any:
    if isinstance(value, list):
        return value
    for candidate in (text(value), text(value).replace("'", '"')):
        try:
            parsed = json.loads(candidate)
        except ValueError:
            continue
        return parsed if isinstance(parsed, list) else _MISSING
    return _MISSING


def _to_object(value: Any) -> Any:
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(text(value))
    except ValueError:
        return _MISSING
    return parsed if isinstance(parsed, dict) else _MISSING


def _validate(value: Any, kind: str, strict: bool) -> Any:
    """Return the value converted to ``kind``, or _MISSING when it is invalid for it."""
    if value is None:
        return None
    if kind == "string":
        if strict and not isinstance(value, str):
            return _MISSING
        return value if isinstance(value, str) else json_text(value)
    if kind == "number":
        if strict and (isinstance(value, bool) or not isinstance(value, int | float)):
            return _MISSING
        converted = num(value)
        return _MISSING if isinstance(converted, float) and math.isnan(converted) else converted
    if kind == "boolean":
        if strict and not isinstance(value, bool):
            return _MISSING
        return _to_bool(value)
    if kind == "dateTime":
        parsed = _to_datetime(value)
        if parsed is _MISSING and isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return datetime.fromtimestamp(value / 1000, UTC)  # n8n reads a number as epoch milliseconds
        return parsed
    if kind == "array":
        if strict and not isinstance(value, list):
            return _MISSING
        return _to_array(value)
    if kind == "object":
        if strict and not isinstance(value, dict | list):
            return _MISSING
        return _to_object(value)
    return value


def _parse(value: Any, kind: str, strict: bool, version: int) -> Any:
    if kind == "any" or value is None:
        return value
    if kind == "boolean" and not strict:
        if version >= 2:
            converted = _validate(value, kind, False)
            if converted is not _MISSING:
                return converted
        return truthy(value)
    if kind == "number":
        if isinstance(value, float) and math.isnan(value):
            return value
        empty = (isinstance(value, str) and value.strip() == "") or value == []
        if empty and version >= 3:
            return None
    return _validate(value, kind, strict)


def _article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _type_error(kind: str, value: Any, strict: bool, where: str) -> N8nConditionError:
    found = _js_type(value)
    shown = text(value)
    if strict:
        return N8nConditionError(f"Wrong type: '{shown}' is {_article(found)} but was expecting {_article(kind)} {where}")
    return N8nConditionError(f"Conversion error: the {found} '{shown}' can't be converted to {_article(kind)} {where}")


def _regex(pattern: Any, ignore_case: bool) -> re.Pattern[str]:
    source = text(pattern)
    flags = 0
    match = re.match(r"^/(.*?)/([gimusy]*)$", source, re.S)
    if match:
        source, given = match.group(1), match.group(2)
        flags |= re.I if "i" in given else 0
        flags |= re.M if "m" in given else 0
        flags |= re.S if "s" in given else 0
    if ignore_case:
        flags |= re.I
    return re.compile(source, flags)


def check(kind: str, operation: str, left: Any, right: Any = None, *, case_sensitive: bool = True,
          strict: bool = False, version: int = 1, right_type: str | None = None, single_value: bool = False,
          where: str = "") -> bool:
    """Evaluate one n8n condition; raise N8nConditionError where n8n would fail the node."""
    rtype = right_type or kind
    lv, rv = _parse(left, kind, strict, version), _parse(right, rtype, strict, version)
    if lv is _MISSING:
        raise _type_error(kind, left, strict, where)
    if rv is _MISSING and not single_value:
        raise _type_error(rtype, right, strict, where)
    rv = None if rv is _MISSING else rv
    exists = lv is not None and not (isinstance(lv, float) and math.isnan(lv))
    if operation == "exists":
        return exists
    if operation == "notExists":
        return not exists
    handler = _HANDLERS.get(kind)
    return handler(operation, lv, rv, exists, not case_sensitive) if handler else False


def _string(op: str, left: Any, right: Any, exists: bool, ignore_case: bool) -> bool:
    if ignore_case and op not in ("regex", "notRegex"):
        left = left.lower() if isinstance(left, str) else left
        right = right.lower() if isinstance(right, str) else right
    a, b = left if left is not None else "", right if right is not None else ""
    a, b = text(a), text(b)
    table = {
        "empty": lambda: len(a) == 0, "notEmpty": lambda: len(a) != 0,
        "equals": lambda: a == b, "notEquals": lambda: a != b,
        "contains": lambda: b in a, "notContains": lambda: b not in a,
        "startsWith": lambda: a.startswith(b), "notStartsWith": lambda: not a.startswith(b),
        "endsWith": lambda: a.endswith(b), "notEndsWith": lambda: not a.endswith(b),
        "regex": lambda: _regex(b, ignore_case).search(a) is not None,
        "notRegex": lambda: _regex(b, ignore_case).search(a) is None,
    }
    fn = table.get(op)
    return bool(fn()) if fn else False


def _number(op: str, left: Any, right: Any, exists: bool, ignore_case: bool) -> bool:
    if op == "empty":
        return not exists
    if op == "notEmpty":
        return exists
    if op in ("equals", "notEquals"):
        same = left == right and left is not None and right is not None or (left is None and right is None)
        return same if op == "equals" else not same
    if left is None or right is None:
        return False
    return bool({"gt": left > right, "lt": left < right, "gte": left >= right, "lte": left <= right}.get(op, False))


def _datetime(op: str, left: Any, right: Any, exists: bool, ignore_case: bool) -> bool:
    if op == "empty":
        return not exists
    if op == "notEmpty":
        return exists
    if left is None or right is None:
        return False
    return bool({"equals": left == right, "notEquals": left != right, "after": left > right, "before": left < right,
                 "afterOrEquals": left >= right, "beforeOrEquals": left <= right}.get(op, False))


def _boolean(op: str, left: Any, right: Any, exists: bool, ignore_case: bool) -> bool:
    table = {"empty": not exists, "notEmpty": exists, "true": truthy(left), "false": not truthy(left),
             "equals": left is right or left == right and type(left) is type(right),
             "notEquals": not (left is right or left == right and type(left) is type(right))}
    return bool(table.get(op, False))


def _array_contains(array: list[Any], value: Any, ignore_case: bool) -> bool:
    if ignore_case and isinstance(value, str):
        return any(isinstance(item, str) and item.lower() == value.lower() for item in array)
    return any(item == value and type(item) is type(value) for item in array)


def _array(op: str, left: Any, right: Any, exists: bool, ignore_case: bool) -> bool:
    items = left if isinstance(left, list) else []
    if op == "contains":
        return _array_contains(items, right, ignore_case)
    if op == "notContains":
        return not _array_contains(items, right, ignore_case)
    n = len(items)
    table = {"lengthEquals": n == right, "lengthNotEquals": n != right, "empty": n == 0, "notEmpty": n != 0}
    if op in table:
        return bool(table[op])
    if right is None:
        return False
    return bool({"lengthGt": n > right, "lengthLt": n < right, "lengthGte": n >= right,
                 "lengthLte": n <= right}.get(op, False))


def _object(op: str, left: Any, right: Any, exists: bool, ignore_case: bool) -> bool:
    if op == "empty":
        return not left or len(left) == 0
    if op == "notEmpty":
        return bool(left) and len(left) != 0
    return False


_HANDLERS = {"string": _string, "number": _number, "dateTime": _datetime, "boolean": _boolean,
             "array": _array, "object": _object}


def if_v1(kind: str, operation: str, value1: Any, value2: Any = None) -> bool:
    """Evaluate one condition of IF v1's older model (``conditions.<type>[]``)."""
    if kind == "boolean":  # n8n compares with === : a missing field or 1 is not true, "" is not false
        same = strict_eq(value1, value2)
        return bool({"equal": same, "notEqual": not same}.get(operation, False))
    if kind == "number":
        x, y = num(value1), num(value2)
        table = {"smaller": x < y, "smallerEqual": x <= y, "equal": x == y, "notEqual": x != y,
                 "larger": x > y, "largerEqual": x >= y, "isEmpty": value1 in (None, ""),
                 "isNotEmpty": value1 not in (None, "")}
        return bool(table.get(operation, False))
    if kind == "dateTime":
        d1, d2 = _to_datetime(value1), _to_datetime(value2)
        if d1 is _MISSING or d2 is _MISSING:
            raise N8nConditionError(f"The value '{text(value1)}' or '{text(value2)}' is not a valid date")
        return bool({"after": d1 > d2, "before": d1 < d2}.get(operation, False))
    return _if_v1_string(operation, value1, value2)


# The string operations IF v1 runs as a method of value1 itself: on a value that is no string
# (a missing field, null, a number) n8n's node fails, as JavaScript does.
_STRING_METHODS = {"startsWith": "startsWith", "notStartsWith": "startsWith", "endsWith": "endsWith",
                   "notEndsWith": "endsWith"}


def _if_v1_string(operation: str, value1: Any, value2: Any) -> bool:
    method = _STRING_METHODS.get(operation)
    if method is not None and not isinstance(value1, str):
        if value1 is None:
            raise N8nConditionError(f"Cannot read properties of undefined (reading '{method}')")
        raise N8nConditionError(f"value1.{method} is not a function (value1 is {text(value1)!r})")
    a = "" if value1 is None else text(value1)
    b = "" if value2 is None else text(value2)
    table = {
        "contains": lambda: b in a, "notContains": lambda: b not in a,
        "endsWith": lambda: a.endswith(b), "notEndsWith": lambda: not a.endswith(b),
        "equal": lambda: strict_eq(value1, value2), "notEqual": lambda: not strict_eq(value1, value2),
        "regex": lambda: _regex(b, False).search(a) is not None,
        "notRegex": lambda: _regex(b, False).search(a) is None,
        "startsWith": lambda: a.startswith(b), "notStartsWith": lambda: not a.startswith(b),
        "isEmpty": lambda: value1 in (None, ""), "isNotEmpty": lambda: value1 not in (None, ""),
    }
    fn = table.get(operation)
    return bool(fn()) if fn else False

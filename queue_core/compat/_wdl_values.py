"""The values Workflow Definition Language functions take and give, and how they convert.

WDL values are JSON values (``None`` is ``null``), plus ``Decimal`` for ``decimal()``. These are
the rules every function of ``_wdl`` shares:

- ``text(value)`` is ``string()``: null is ``""``, a Boolean ``True``/``False`` (.NET's
  ``Boolean.ToString``), a whole float without ``.0`` (``sub(10.3, .3)`` is ``10``), an object or
  array its compact JSON; ``@{…}`` interpolation converts the same way.
- binary content is the ``{"$content-type": "application/octet-stream", "$content": base64}``
  envelope Logic Apps passes between actions; its text is its bytes read as UTF-8.
- comparisons read null as ``""`` (the reference's note on logical comparison functions);
  ``equals(true, 1)`` is true.
- a function given values it cannot take fails the action, as Logic Apps fails it with
  ``InvalidTemplate``: ``fail(fn, why)`` raises ``TerminalError`` naming the function.
"""

from __future__ import annotations

import base64 as b64
import binascii
import json as jsonlib
from decimal import Decimal
from typing import Any, NoReturn

from ..errors import TerminalError

Number = int | float | Decimal


def fail(function: str, reason: str) -> NoReturn:
    """Raise the error of WDL function ``function`` called on values it cannot take."""
    raise TerminalError(f"The template language function '{function}' {reason}")


def kind(value: Any) -> str:
    """Return the WDL type name of ``value`` (as Logic Apps' errors name it)."""
    if value is None:
        return "Null"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, float | Decimal):
        return "Float"
    if isinstance(value, str):
        return "String"
    if isinstance(value, list):
        return "Array"
    if isinstance(value, dict):
        return "Object"
    return type(value).__name__


def number_text(value: Number) -> str:
    """Return a number as .NET writes it: ``10``, ``2.5``, ``1E+21``-free Python digits."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return _double_text(value)
    return str(value)


def _double_text(value: float) -> str:
    """Return a double as .NET's shortest round-trip text: fixed from 0.0001 to below 1E+15, else ``d.dddE+XX``."""
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    body = "".join(map(str, digits)) or "0"
    power = len(body) - 1 + int(exponent)  # the decimal exponent of the first digit
    head = "-" if sign else ""
    if value == 0:
        return "0"
    if -5 < power < 15:
        return head + format(abs(Decimal(repr(value))).normalize(), "f")
    mantissa = body[0] + ("." + body[1:] if len(body) > 1 else "")
    return f"{head}{mantissa}E{'+' if power >= 0 else '-'}{abs(power):02d}"


def to_json(value: Any) -> str:
    """Return ``value`` as compact JSON (``Decimal`` as its digits)."""
    return jsonlib.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def binary_content(value: Any) -> bytes | None:
    """Return the bytes of binary content (``{"$content-type", "$content": base64}``), None for other values."""
    if isinstance(value, dict) and set(value) >= {"$content-type", "$content"} and isinstance(value["$content"], str):
        try:
            return b64.b64decode(value["$content"], validate=True)
        except binascii.Error:
            return None
    return None


def text(value: Any) -> str:
    """Return ``string(value)``: the text WDL makes of any value (null is empty, binary content its UTF-8 text)."""
    if value is None:
        return ""
    content = binary_content(value)
    if content is not None:
        return content.decode("utf-8", errors="replace")
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float | Decimal):
        return number_text(value)
    return to_json(value)


def is_number(value: Any) -> bool:
    """Return whether ``value`` is a WDL number (a Boolean is not)."""
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def string_arg(function: str, value: Any) -> str:
    """Return ``value`` if it is a string, else fail as Logic Apps does for a non-string parameter."""
    if isinstance(value, str):
        return value
    fail(function, f"expects its parameter to be a string. The provided value is of type '{kind(value)}'.")


def int_arg(function: str, value: Any) -> int:
    """Return ``value`` if it is an integer (a whole float is one), else fail."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float | Decimal) and value == int(value):
        return int(value)
    fail(function, f"expects an integer parameter. The provided value is of type '{kind(value)}'.")


def number_arg(function: str, value: Any) -> Number:
    """Return ``value`` if it is a number, else fail."""
    if is_number(value):
        return value  # type: ignore[no-any-return]
    fail(function, f"expects its parameters to be numbers. The provided value is of type '{kind(value)}'.")


def bool_arg(function: str, value: Any) -> bool:
    """Return ``value`` if it is a Boolean, else fail."""
    if isinstance(value, bool):
        return value
    fail(function, f"expects its parameter to be a boolean. The provided value is of type '{kind(value)}'.")


def comparable(value: Any) -> Any:
    """Return ``value`` as logical comparisons read it: null is ``""``."""
    return "" if value is None else value


def equal(left: Any, right: Any) -> bool:
    """Return ``equals(left, right)``: deep equality, numbers by value, ``true`` equal to ``1``."""
    left, right = comparable(left), comparable(right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    if isinstance(left, str) != isinstance(right, str):
        return False
    if isinstance(left, list | dict) or isinstance(right, list | dict):
        return False
    return bool(left == right)

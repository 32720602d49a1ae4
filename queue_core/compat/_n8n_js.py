"""JavaScript value semantics that n8n expressions rely on, as plain Python functions.

Scaffolded automations (``cutover scaffold n8n``) translate n8n's ``{{ … }}`` expressions into
calls of these functions, so that ``$json.a + 1`` or ``title.toLowerCase()`` mean in Python what
they meant in n8n. JavaScript's ``undefined`` and ``null`` are both ``None`` here; reading a
missing property gives ``None`` instead of raising (n8n fails the node on ``undefined.x``; the
scaffolded code reads on, and the shadow run shows any difference).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from ..errors import UndefinedRead, UnsupportedMethod

_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|0x[0-9a-f]+|Infinity)\s*$", re.I)


def get(value: Any, *path: Any) -> Any:
    """Return ``value.a.b…`` (objects by key, arrays by index, ``length``); None when missing."""
    for key in path:
        if value is None:
            return None
        if isinstance(value, dict):
            value = value.get(key if isinstance(key, str) else text(key))
        elif isinstance(value, list | str):
            if key == "length":
                value = len(value)
            else:
                index = _index(key)
                value = value[index] if index is not None and 0 <= index < len(value) else None
        else:
            return None
    return value


def read(value: Any, *path: Any) -> Any:
    """Return ``get(value, *path)`` where reading a property of undefined or null raises
    UndefinedRead, as JavaScript does (used inside ``part``; a missing last field is None)."""
    for key in path:
        if value is None:
            raise UndefinedRead(f"Cannot read properties of undefined (reading {key!r})")
        value = get(value, key)
    return value


def call_method(value: Any, name: str, *args: Any) -> Any:
    """Return ``method(value, name, *args)``; of undefined or null raise UndefinedRead (inside ``part``)."""
    if value is None:
        raise UndefinedRead(f"Cannot read properties of undefined (reading {name!r})")
    return method(value, name, *args)


def array_of(value: Any) -> list[Any]:
    """Return an array for its callback methods (``.map(x => …)``); anything else raises UndefinedRead
    (inside ``part``), as JavaScript's TypeError for ``undefined.map`` or ``'text'.map``."""
    if not isinstance(value, list):
        raise UndefinedRead("the value has no array methods (map, filter, find, some, every)")
    return value


def part(compute: Callable[[], Any]) -> Any:
    """Return one ``{{ }}`` part's value: None when it read through undefined (n8n's template engine
    makes a part that throws JavaScript's TypeError undefined)."""
    try:
        return compute()
    except UndefinedRead:
        return None


class _Missing:
    """A field that is not there (JavaScript's undefined), where a node tells it from null."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "undefined"


MISSING = _Missing()


def as_json(value: Any) -> Any:
    """Return ``value`` as n8n's item JSON holds it: keys holding undefined (MISSING) left out, undefined in a
    list null (``JSON.stringify``'s rule)."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items() if v is not MISSING}
    if isinstance(value, list):
        return [None if v is MISSING else as_json(v) for v in value]
    return value


def field(value: Any, *path: Any) -> Any:
    """Return ``get(value, *path)``, or MISSING when a step of the path finds no field.

    Only a node that treats undefined and null differently reads a field this way (Edit Fields
    v3.0 writes ``"undefined"`` for the one and ``"null"`` for the other).
    """
    for key in path:
        if isinstance(value, dict):
            name = key if isinstance(key, str) else text(key)
            if name not in value:
                return MISSING
            value = value[name]
        elif isinstance(value, list | str) and key != "length":
            index = _index(key)
            if index is None or not 0 <= index < len(value):
                return MISSING
            value = value[index]
        elif isinstance(value, list | str):
            value = len(value)
        else:
            return MISSING
    return value


def _index(key: Any) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    if isinstance(key, float) and key.is_integer():
        return int(key)
    if isinstance(key, str) and key.isdigit():
        return int(key)
    return None


def as_list(value: Any) -> list[Any]:
    """Return an array value as a list (a string's characters; anything else: empty)."""
    if isinstance(value, list):
        return value
    return list(value) if isinstance(value, str) else []


def truthy(value: Any) -> bool:
    """Return JavaScript's truthiness: ``[]`` and ``{}`` are true, ``0``, ``""``, NaN, null false."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def text(value: Any) -> str:
    """Return JavaScript's ``String(value)``: an object is ``[object Object]``, an array its items
    joined by ``,`` (a null item as nothing), as ``+``, ``join`` and a template's parts render them.

    ``None`` (JavaScript's null and undefined alike) is ``""``, as a template renders both.
    """
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _number_text(value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join(text(item) for item in value)
    return str(value)


def json_text(value: Any) -> str:
    """Return a value as n8n's type validation makes a string of it: objects and arrays as JSON."""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text(value)


def _number_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)


def num(value: Any) -> float | int:
    """Return ``Number(value)``: NaN for what JavaScript cannot convert."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if value is None:
        return 0
    if isinstance(value, str):
        if value.strip() == "":
            return 0
        if not _NUMBER.match(value):
            return math.nan
        cleaned = value.strip()
        if cleaned.lower().startswith("0x"):
            return int(cleaned, 16)
        parsed = float(cleaned)
        return int(parsed) if parsed.is_integer() and "." not in cleaned and "e" not in cleaned.lower() else parsed
    if isinstance(value, list) and len(value) <= 1:
        return num(value[0]) if value else 0
    return math.nan


def parse_int(value: Any, radix: int = 10) -> float | int:
    """Return ``parseInt(value)``: the leading integer of the text, NaN when there is none."""
    match = re.match(r"^\s*([+-]?)(\d+)", text(value)) if radix == 10 else None
    if match is None:
        return math.nan
    return int(match.group(1) + match.group(2))


def parse_float(value: Any) -> float | int:
    """Return ``parseFloat(value)``: the leading number of the text, NaN when there is none."""
    match = re.match(r"^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+)", text(value))
    if match is None:
        return math.nan
    parsed = float(match.group(0))
    return int(parsed) if parsed.is_integer() and "." not in match.group(0) else parsed


def add(left: Any, right: Any) -> Any:
    """Return ``left + right``: string concatenation when either side is a string or object."""
    if isinstance(left, str | dict | list) or isinstance(right, str | dict | list):
        return text(left) + text(right)
    return num(left) + num(right)


def arith(op: str, left: Any, right: Any) -> float | int:
    """Return ``left <op> right`` for ``- * / %`` with JavaScript's number coercion."""
    a, b = num(left), num(right)
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
        return a / b
    if b == 0:
        return math.nan
    return math.fmod(a, b)


def strict_eq(left: Any, right: Any) -> bool:
    """Return ``left === right`` (same type and value; objects by identity)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return left is right
    return type(left) is type(right) and left == right


def loose_eq(left: Any, right: Any) -> bool:
    """Return ``left == right``: null equals only null; numbers compare with converted strings."""
    if left is None or right is None:
        return left is None and right is None
    if type(left) is type(right) or isinstance(left, dict | list) or isinstance(right, dict | list):
        return strict_eq(left, right)
    return num(left) == num(right)


def compare(op: str, left: Any, right: Any) -> bool:
    """Return ``left <op> right`` for ``< <= > >=``: strings by code unit, otherwise as numbers."""
    if isinstance(left, str) and isinstance(right, str):
        a: Any = left
        b: Any = right
    else:
        a, b = num(left), num(right)
        if math.isnan(a) or math.isnan(b):
            return False
    return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])


def either(left: Any, right: Callable[[], Any]) -> Any:
    """Return ``left || right``: ``left`` when truthy, else the value of ``right()``."""
    return left if truthy(left) else right()


def both(left: Any, right: Callable[[], Any]) -> Any:
    """Return ``left && right``: ``left`` when falsy, else the value of ``right()``."""
    return right() if truthy(left) else left


def coalesce(left: Any, right: Callable[[], Any]) -> Any:
    """Return ``left ?? right``."""
    return right() if left is None else left


def concat(*parts: Any) -> str:
    """Return a template's text as n8n's expression engine joins its parts.

    Each ``{{ … }}`` part that is falsy, other than ``0`` and ``false`` (null, undefined, NaN,
    ``""``), renders as nothing; every other part as ``String(part)`` (``text``), so an object
    is ``[object Object]`` and an array ``a,b``. A whole-expression value (``={{ $json.obj }}``)
    is not a template: it keeps its type, and a node converts it (Set: objects as JSON).
    """
    return "".join(text(part) if truthy(part) or part == 0 or part is False else "" for part in parts)


def method(value: Any, name: str, *args: Any) -> Any:
    """Call the JavaScript method ``name`` of a string or array value (of null or undefined: None).

    Raises ``UnsupportedMethod`` for a method this module does not implement (the scaffold
    only emits the ones in METHODS).
    """
    handler = METHODS.get(name)
    if handler is None:
        raise UnsupportedMethod(name)
    if value is None:  # a method of undefined or null: JavaScript throws, and n8n makes the expression undefined
        return None
    return handler(value, *args)


def _includes(value: Any, needle: Any) -> bool:
    if isinstance(value, str):
        return text(needle) in value
    if isinstance(value, list):
        return any(strict_eq(item, needle) for item in value)
    return False


def _index_of(value: Any, needle: Any) -> int:
    if isinstance(value, str):
        return value.find(text(needle))
    if isinstance(value, list):
        return next((i for i, item in enumerate(value) if strict_eq(item, needle)), -1)
    return -1


def _slice(value: Any, start: Any = 0, end: Any = None) -> Any:
    if not isinstance(value, str | list):
        return None
    return value[int(num(start)): None if end is None else int(num(end))]


def _substring(value: Any, start: Any = 0, end: Any = None) -> str:
    s = text(value)
    a = max(0, int(num(start)))
    b = len(s) if end is None else max(0, int(num(end)))
    return s[min(a, b): max(a, b)]


def _split(value: Any, separator: Any = None) -> list[str]:
    s = text(value)
    if separator is None:
        return [s]
    sep = text(separator)
    return list(s) if sep == "" else s.split(sep)


def _join(value: Any, separator: Any = ",") -> str:
    return text(separator).join(text(item) for item in value) if isinstance(value, list) else text(value)


METHODS: dict[str, Callable[..., Any]] = {
    "toLowerCase": lambda v: text(v).lower(),
    "toUpperCase": lambda v: text(v).upper(),
    "trim": lambda v: text(v).strip(),
    "trimStart": lambda v: text(v).lstrip(),
    "trimEnd": lambda v: text(v).rstrip(),
    "toString": lambda v: text(v),
    "includes": _includes,
    "indexOf": _index_of,
    "startsWith": lambda v, s: text(v).startswith(text(s)),
    "endsWith": lambda v, s: text(v).endswith(text(s)),
    "split": _split,
    "join": _join,
    "slice": _slice,
    "substring": _substring,
    "replace": lambda v, old, new: text(v).replace(text(old), text(new), 1),
    "replaceAll": lambda v, old, new: text(v).replace(text(old), text(new)),
    "padStart": lambda v, n, fill=" ": text(v).rjust(int(num(n)), (text(fill) or " ")[0]),
    "padEnd": lambda v, n, fill=" ": text(v).ljust(int(num(n)), (text(fill) or " ")[0]),
    "toFixed": lambda v, digits=0: f"{num(v):.{int(num(digits))}f}",
    "concat": lambda v, *more: (v + [x for m in more for x in (m if isinstance(m, list) else [m])]
                                if isinstance(v, list) else concat(v, *more)),
}

GLOBALS: dict[str, Callable[..., Any]] = {
    "parseInt": parse_int,
    "parseFloat": parse_float,
    "Number": num,
    "String": text,
    "Boolean": truthy,
    "Math.max": lambda *xs: max((num(x) for x in xs), default=-math.inf),
    "Math.min": lambda *xs: min((num(x) for x in xs), default=math.inf),
    "Math.abs": lambda x: abs(num(x)),
    "Math.round": lambda x: math.floor(num(x) + 0.5),
    "Math.floor": lambda x: math.floor(num(x)),
    "Math.ceil": lambda x: math.ceil(num(x)),
    "JSON.stringify": lambda x: json.dumps(x, separators=(",", ":"), ensure_ascii=False),
    "JSON.parse": lambda x: json.loads(text(x)),
    "Object.keys": lambda x: list(x) if isinstance(x, dict) else [],
    "Object.values": lambda x: list(x.values()) if isinstance(x, dict) else [],
    "Array.isArray": lambda x: isinstance(x, list),
}


def call(name: str, *args: Any) -> Any:
    """Call the JavaScript global function ``name`` (``parseInt``, ``Math.max``, …)."""
    return GLOBALS[name](*args)

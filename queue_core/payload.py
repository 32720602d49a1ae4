"""Check JSON values before Postgres sees them: what jsonb, text and integer columns can hold.

Postgres refuses some JSON that Python accepts, and when it does, its error message quotes the
offending text into the server log. So every value bound for a job row is checked here first,
and a refusal names the place (a JSON path such as ``$.a[3].b``) and the problem, never the value.

What is refused (the bounds are documented in docs/control-plane.md):

- a NUL character (``\\u0000``) in any string or object key: jsonb and text cannot hold it;
- a lone surrogate (``\\ud800``): not encodable as UTF-8;
- an integer literal of more than :data:`MAX_INT_DIGITS` digits (decoding never calls ``int()``
  on a longer one, so a 5,000-digit literal costs nothing and never meets Python's limit);
- a number that is not finite (``1e400`` overflows to infinity; ``NaN``, ``Infinity``);
- nesting deeper than :data:`MAX_DEPTH` arrays/objects (checked without recursion);
- text that is not JSON at all (:func:`loads` only).

:func:`loads` decodes and checks text or bytes; :func:`check` checks a value built in Python;
:func:`check_priority` and :func:`check_int4` check what an ``integer`` column can hold. Each
raises :class:`PayloadError` (an ``EnqueueError``, so under ``QueueError``). Pure: no I/O.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .errors import EnqueueError, PayloadError
from .job import JobSpec

MAX_DEPTH = 256
MAX_INT_DIGITS = 64
_INT_LIMIT = 10**MAX_INT_DIGITS
INT4_MAX = 2**31 - 1  # Postgres ``integer``: jobs.priority, max_attempts, max_claims
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


class _Unstorable:
    """What the decoder puts in place of a literal it refuses, so the walk can name its path."""

    __slots__ = ("problem", "message")

    def __init__(self, problem: str, message: str) -> None:
        self.problem = problem
        self.message = message


_TOO_LONG = _Unstorable("integer_too_long", f"is an integer of more than {MAX_INT_DIGITS} digits")
_NOT_FINITE = _Unstorable("not_finite", "is a number that is not finite (NaN, Infinity or out of range)")


def _parse_int(text: str) -> Any:
    return _TOO_LONG if len(text) - text.startswith("-") > MAX_INT_DIGITS else int(text)


def _parse_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _NOT_FINITE


def _parse_constant(text: str) -> Any:
    return _NOT_FINITE


def json_type(value: Any) -> str:
    """Return the JSON name of ``value``'s type (``"an array"``), for a message that must not quote
    the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return "an object" if isinstance(value, Mapping) else f"a {type(value).__name__}"


def loads(data: str | bytes, *, where: str = "payload") -> Any:
    """Decode JSON ``data`` and :func:`check` it; raise PayloadError naming the path at fault.

    Bytes must be UTF-8 (a BOM-less UTF-16/32 body is also accepted, as ``json.loads`` does).
    """
    try:
        value = json.loads(data, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except RecursionError:
        raise PayloadError(f"is nested deeper than {MAX_DEPTH} levels", field="$", problem="too_deep",
                           where=where) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        at = f" (line {exc.lineno}, column {exc.colno}: {exc.msg})" if isinstance(exc, json.JSONDecodeError) else ""
        raise PayloadError(f"is not JSON{at}", field="$", problem="not_json", where=where) from None
    check(value, where=where)
    return value


def check(value: Any, *, where: str = "payload") -> None:
    """Raise PayloadError when ``value`` (decoded JSON or built in Python) cannot be stored.

    Walks without recursion, so any depth is refused cleanly. Values of other types (a date, a
    set) are left to the JSON encoder, which refuses them with its own error.
    """
    for problem, message, path in _faults(value):
        raise PayloadError(message, field=_render(path), problem=problem, where=where)


Path = tuple[Any, ...] | None  # (parent path, key or index), linked so that only a fault renders one


def _faults(root: Any) -> Iterator[tuple[str, str, Path]]:
    # Order of checks follows frequency: strings, then containers, then numbers.
    stack: list[tuple[Any, int, Path]] = [(root, 0, None)]
    pop, push, bad_text = stack.pop, stack.append, _BAD_TEXT.search
    while stack:
        value, depth, path = pop()
        kind = type(value)
        if kind is str:
            if bad_text(value):
                yield _text_fault(value, path)
        elif kind is dict or kind is list or kind is tuple:
            if depth >= MAX_DEPTH:
                yield "too_deep", f"is nested deeper than {MAX_DEPTH} levels", path
            elif kind is dict:
                for key, item in value.items():
                    if type(key) is str and bad_text(key):
                        problem, message, _ = _text_fault(key, path)
                        yield problem, f"has a key that {message}", (path, key)
                    push((item, depth + 1, (path, key)))
            else:
                for i, item in enumerate(value):
                    push((item, depth + 1, (path, i)))
        elif value is None or kind is bool:
            continue
        elif isinstance(value, int):
            if abs(value) >= _INT_LIMIT:
                yield "integer_too_long", _TOO_LONG.message, path
        elif isinstance(value, float):
            if not math.isfinite(value):
                yield "not_finite", _NOT_FINITE.message, path
        elif isinstance(value, _Unstorable):
            yield value.problem, value.message, path
        elif isinstance(value, dict | list | tuple):  # subclasses, e.g. an OrderedDict
            push((dict(value) if isinstance(value, dict) else list(value), depth, path))


def _text_fault(text: str, path: Path) -> tuple[str, str, Path]:
    if "\x00" in text:
        return "nul", "holds a NUL character (\\u0000), which Postgres cannot store", path
    return "surrogate", "holds a lone surrogate (such as \\ud800), which is not valid Unicode text", path


def _render(path: Path) -> str:
    parts: list[str] = []
    while path is not None:
        path, step = path
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif isinstance(step, str) and _PLAIN_KEY.match(step):
            parts.append(f".{step}")
        else:  # a key that is not a plain name is payload content too: name its position instead
            parts.append("[<key>]")
    parts.reverse()
    if len(parts) > 16:  # a path into deep nesting: its ends say enough
        parts = [*parts[:8], f"…({len(parts) - 12} more)…", *parts[-4:]]
    return "$" + "".join(parts)


def check_int4(value: Any, name: str, *, low: int = 0) -> None:
    """Raise PayloadError unless ``value`` is an int in ``low``..INT4_MAX (a Postgres integer)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= INT4_MAX:
        shown = value if isinstance(value, int) and value.bit_length() < 128 else "out of range"
        raise PayloadError(f"must be an integer from {low} to {INT4_MAX}, got {shown}", field=name,
                           problem="out_of_range", where="job")


def check_job(spec: JobSpec, index: int | None = None) -> None:
    """Raise PayloadError unless every value of ``spec`` fits its column of ``jobs``.

    Checks the integer columns' ranges, the text columns and the JSON ones (``payload``,
    ``trigger_meta``); ``index`` (a job's place in a batch) is set on the error.
    """
    try:
        check_priority(spec.priority)
        for name in ("max_attempts", "max_claims"):
            check_int4(getattr(spec, name), name, low=1)
        for name in ("automation", "dedupe_key", "trigger_id", "recording"):
            text = getattr(spec, name)
            if isinstance(text, str) and _BAD_TEXT.search(text):
                problem, message, _ = _text_fault(text, None)
                raise PayloadError(message, field=name, problem=problem, where="job")
        check(spec.payload, where="payload")
        check(spec.trigger_meta, where="trigger_meta")
    except PayloadError as exc:
        exc.index = index
        raise


def check_priority(value: Any) -> None:
    """Raise PayloadError unless ``value`` fits ``jobs.priority`` (integer, 0 to 2**31 - 1)."""
    check_int4(value, "priority")

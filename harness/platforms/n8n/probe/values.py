"""The values a probe tries for a field, and how a mutation is applied to a recorded trigger.

Candidates come first from the conditions themselves (each constant a condition compares with,
and its neighbours: the number either side of a bound, the string in other case or with text
around it, a day either side of a date), then the trigger's own value, then plain values (empty,
zero, true/false, null, an absent field). Hypothesis draws from these before anything random,
and shrinks towards the front of the list and towards leaving a field as recorded, so the
probe a reviewer reads changes few fields, to values taken from the condition.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from harness.recording import RecordedTrigger
from harness.platforms.n8n.probe.reads import Path


class _Absent:
    """The field is removed from the trigger."""

    def __repr__(self) -> str:
        return "<absent>"


class _Keep:
    """The field is left as recorded (the shrink target)."""

    def __repr__(self) -> str:
        return "<as recorded>"


ABSENT = _Absent()
KEEP = _Keep()


def _near_string(value: str) -> list[Any]:
    out: list[Any] = [value, value.upper(), value.lower(), f"{value}-x", f"x-{value}", value[:-1]]
    try:
        number = float(value)
    except ValueError:
        number = None
    if number is not None and number == number:
        out += [number, number + 1, number - 1]
    out += _near_date(value)
    return out


def _near_date(value: str) -> list[Any]:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return []
    return [(parsed + delta).isoformat() for delta in (timedelta(days=1), timedelta(days=-1))]


def _near_number(value: float) -> list[Any]:
    return [value, value + 1, value - 1, value + 0.5, value - 0.5, value * 2, -value, str(value)]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def candidates(constants: list[Any], current: Any) -> list[Any]:
    """Return the values to try for one field, most telling first, without repeats.

    Values of the recorded value's JSON type come first (a string field stays a string where
    the condition allows it), each group in the order built here.
    """
    values: list[Any] = []
    for constant in constants:
        if isinstance(constant, bool):
            values += [constant, not constant, str(constant).lower()]
        elif isinstance(constant, int | float):
            values += _near_number(constant)
        elif isinstance(constant, str):
            values += _near_string(constant)
    values += [current] if current is not ABSENT else []
    values += [True, False, "", 0, 1, None, ABSENT, [], {}, [*constants[:2]], "true", "false"]
    if current is ABSENT or current is None:
        return _unique(values)
    return sorted(_unique(values), key=lambda v: v is ABSENT or _kind(v) != _kind(current))


def _unique(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for value in values:
        key = "absent" if value is ABSENT else f"{type(value).__name__}:{value!r}"
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def field_strategy(constants: list[Any], current: Any, header: bool) -> st.SearchStrategy[Any]:
    """Return the strategy of one field's value: as recorded (KEEP), a candidate, or anything JSON-like.

    Hypothesis shrinks a ``one_of`` towards its first strategy and a ``sampled_from`` towards
    its first element: towards leaving the field alone, then towards the condition's constants.
    """
    listed = candidates(constants, current)
    if header:
        listed = [v for v in listed if isinstance(v, str) or v is ABSENT]
        return st.one_of(st.just(KEEP), st.sampled_from(listed), st.text(max_size=12))
    return st.one_of(st.just(KEEP), st.sampled_from(listed), st.integers(-10**6, 10**6), st.text(max_size=12),
                     st.floats(-1e6, 1e6, allow_nan=False))


def mutation_strategy(fields: list[tuple[Path, list[Any], Any]]) -> st.SearchStrategy[tuple[Any, ...]]:
    """Return a strategy of one value (or KEEP) per (path, constants, recorded value) field."""
    return st.tuples(*[field_strategy(constants, current, path[0] == "headers") for path, constants, current in fields])


def read_path(record: RecordedTrigger, path: Path) -> Any:
    """Return the value at ``path`` of a trigger (``ABSENT`` when a step is missing)."""
    node: Any = {"body": record.body, "headers": record.headers}
    for key in path:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
            node = node[key]
        else:
            return ABSENT
    return node


def apply(record: RecordedTrigger, changes: list[tuple[Path, Any]], *, id: str, source: str) -> RecordedTrigger:
    """Return a copy of ``record`` with each (path, value) written (ABSENT removes the field)."""
    body = copy.deepcopy(record.body)
    headers = dict(record.headers)
    root: dict[str, Any] = {"body": body, "headers": headers}
    for path, value in changes:
        _write(root, path, value)
    return RecordedTrigger(id, record.received_at, root["headers"], root["body"], source)


def _write(root: dict[str, Any], path: Path, value: Any) -> None:
    node: Any = root
    for key in path[:-1]:
        child = node.get(key) if isinstance(node, dict) else (
            node[key] if isinstance(node, list) and isinstance(key, int) and key < len(node) else None)
        if not isinstance(child, dict | list):
            child = {}
            if isinstance(node, dict):
                node[key] = child
            else:
                return
        node = child
    last = path[-1]
    if isinstance(node, dict):
        if value is ABSENT:
            node.pop(last, None)
        else:
            node[last] = copy.deepcopy(value)
    elif isinstance(node, list) and isinstance(last, int) and last < len(node) and value is not ABSENT:
        node[last] = copy.deepcopy(value)


def show(path: Path) -> str:
    """Return a path as a reader writes it: ``body.items[0].sku``, ``headers.x-kind``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out

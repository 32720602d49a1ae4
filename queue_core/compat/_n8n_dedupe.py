"""n8n's Remove Duplicates ("remove items repeated within current input"), as the node decides it.

The fields compared are every item's flattened keys (``a.b``, ``list.0``), all of the first
item's but some, or the ones named. Items are sorted on those fields (text before numbers as
lodash's ``lt`` orders them), each field checked present and of one type in every item, and an
item equal on every field to the one kept before it in that order is removed; the others keep
their input order.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..errors import NodeFailed
from ._n8n_data import _MISSING, _get, _less

Item = dict[str, Any]


def _flat(value: Any, prefix: tuple[str, ...] = ()) -> dict[str, Any]:
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = [(str(i), v) for i, v in enumerate(value)]
    else:
        return {".".join(prefix): value}
    out: dict[str, Any] = {}
    for key, inner in items:
        out.update(_flat(inner, (*prefix, str(key))))
    return out


def _same(a: Any, b: Any) -> bool:
    """lodash ``isEqual``: deep, with a boolean never equal to a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    if a is _MISSING or b is _MISSING:
        return a is b
    return bool(a == b) and isinstance(a, int | float) == isinstance(b, int | float)


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def remove_duplicates(items: Sequence[Item], compare: str = "allFields", fields: str = "", *,
                      version: float = 2, node: str = "Remove Duplicates") -> list[Item]:
    """Return the items without the ones repeated on the compared fields (see the module docstring)."""
    records = [dict(item.get("json") or {}) for item in items]
    if not records:
        return []
    named = [f.strip() for f in fields.split(",") if f.strip()]
    keys = list(_flat(records[0]))
    if compare == "allFields":
        for record in records[1:]:
            keys += [k for k in _flat(record) if k not in keys]
    elif compare == "allFieldsExcept":
        if not named:
            raise NodeFailed(f"{node}: No fields specified. Please add a field to exclude from comparison")
        keys = [k for k in keys if k not in named]
    else:
        if not named:
            raise NodeFailed(f"{node}: No fields specified. Please add a field to compare on")
        keys = named

    def compare_items(a: int, b: int) -> int:
        for key in keys:
            left, right = _get(records[a], key), _get(records[b], key)
            if not _same(left, right):
                return -1 if _less(left, right) else 1
        return 0

    order = sorted(range(len(records)), key=functools.cmp_to_key(compare_items))
    for key in keys:
        if key == "":
            raise NodeFailed(f"{node}: Name of field to compare is blank")
        seen: str | None = None
        for index in order:
            value = _get(records[index], key)
            if value is None and version > 1:
                continue
            if value is _MISSING:
                raise NodeFailed(f"{node}: '{key}' field is missing from some input items")
            if seen is not None and seen != _js_type(value):
                raise NodeFailed(f"{node}: '{key}' isn't always the same type")
            seen = _js_type(value)
    removed: set[int] = set()
    kept = order[0]
    for index in order[1:]:
        if all(_same(_get(records[index], k), _get(records[kept], k)) for k in keys):
            removed.add(index)
        else:
            kept = index
    return [item for index, item in enumerate(items) if index not in removed]

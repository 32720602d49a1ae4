"""n8n's Set node v1 and v2 (``values.boolean`` / ``values.number`` / ``values.string``), as ``SetV1.node``.

What n8n does, per item: start from a copy of the item's json (an empty object with Keep Only
Set), then write every boolean entry (``!!value``), every number entry (v2: a string that
``Number()`` reads is that number; v1 keeps it as it is), then every string entry (the value as
it is: an expression may give a number or an object) — in that order, whatever order the export
lists them. A name left out is ``propertyName``; a value left out is ``false``, ``0`` or ``""``.
With Dot Notation (the default) ``a.b`` is a nested field (lodash ``set``). A value that is
JavaScript's ``undefined`` (an expression reading a missing field) is written as undefined, so
the key is gone from the item n8n outputs (JSON drops it), a parent object it created stays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ._n8n_js import MISSING, as_json, num, truthy

KINDS = ("boolean", "number", "string")


def legacy_value(kind: str, value: Any, version: float) -> Any:
    """Return an entry's value as Set v1/v2 writes it (``MISSING`` stays: the key is dropped)."""
    if kind == "boolean":
        return value is not MISSING and truthy(value)
    if kind == "number" and version >= 2 and isinstance(value, str):
        number = num(value)
        return value if isinstance(number, float) and math.isnan(number) else number
    return value


def legacy_fields(fields: Sequence[tuple[str, str, Any]], version: float) -> list[tuple[str, Any]]:
    """Return a Set v1/v2 node's (kind, name, value) entries as ``assign`` writes them: booleans, numbers, strings."""
    return [(name, legacy_value(kind, value, version)) for wanted in KINDS
            for kind, name, value in fields if kind == wanted]


def without_undefined(item: dict[str, Any]) -> dict[str, Any]:
    """Return the item ``assign`` wrote with every undefined (``MISSING``) value left out, as n8n's JSON leaves it."""
    return {**item, "json": as_json(item.get("json", {}))}



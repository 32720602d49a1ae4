"""Edit Fields (Set v3) in JSON mode: the ``jsonOutput`` text, its ``{{ }}`` parts resolved, read as the fields to set.

n8n resolves each ``{{ … }}`` of an expression-valued JSON Output on its own and puts its value
into the text: an object or array as JSON, anything else as JavaScript's ``String`` (null as
``null``), then parses the text as JSON; what is not JSON, or is JSON but not an object, fails
the node for that item. The object's keys are then set on the item as Edit Fields sets its
fields (dot notation, the other fields kept or not), with no type conversion.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import N8nConditionError
from ._n8n_js import text


def _part(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return "null" if value is None else text(value)


def json_output(index: int, texts: list[str], values: list[Any] | None = None) -> list[tuple[str, Any]]:
    """Return the fields a JSON Output sets for item ``index``: ``texts`` are the literal pieces
    around the ``{{ }}`` parts, ``values`` the parts' values (one fewer; None: no expression).

    Raises N8nConditionError with n8n's message when the text is not JSON or not a JSON object.
    """
    values = values or []
    source = "".join(piece + (_part(values[n]) if n < len(values) else "") for n, piece in enumerate(texts))
    try:
        data = json.loads(source)
    except ValueError:
        raise N8nConditionError(f"The item {index + 1} contains invalid JSON") from None
    if not isinstance(data, dict):
        raise N8nConditionError(f"'JSON Output' in item {index + 1} is not a valid JSON object")
    return list(data.items())

"""Edit Fields (Set v3) in JSON mode: the ``jsonOutput`` text, its ``{{ }}`` parts resolved, read as the fields to set.

n8n resolves each ``{{ … }}`` of an expression-valued JSON Output on its own and puts its value
into the text: an object or array as JSON, anything else as JavaScript's ``String`` (null as
``null``, undefined as ``undefined``), then parses the text as JSON, repairing what n8n's
``jsonrepair`` repairs most often (a bare word value, single quotes, a trailing comma); what
is still not JSON, or is JSON but not an object, fails the node for that item. The object's keys are then set on the item as Edit Fields sets its
fields (dot notation, the other fields kept or not), with no type conversion.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import N8nConditionError
from ._n8n_js import MISSING, text


def _part(value: Any) -> str:
    if value is MISSING:
        return "undefined"
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
        try:
            data = json.loads(_repaired(source))
        except ValueError:
            raise N8nConditionError(f"The 'JSON Output' in item {index} contains invalid JSON") from None
    if not isinstance(data, dict):
        raise N8nConditionError(f"The 'JSON Output' in item {index} does not contain a valid JSON object")
    return list(data.items())


_BARE_VALUE = re.compile(r"""(:[ \t]*)(?![ \t]|true\b|false\b|null\b|[-\d"'{\[])([^,:{}\[\]"\n]+?)([ \t]*)(?=[,}\]\n])""")
_SINGLE_QUOTED = re.compile(r"'((?:[^'\\\n]|\\.)*)'")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _repaired(source: str) -> str:
    """Return ``source`` with a bare word value quoted, single quotes made double, trailing commas dropped."""
    text_ = _SINGLE_QUOTED.sub(lambda m: json.dumps(m.group(1)), source)
    text_ = re.sub(r"(:\s*)undefined\b", r"\1null", text_)
    text_ = _BARE_VALUE.sub(lambda m: m.group(1) + json.dumps(m.group(2).strip()) + m.group(3), text_)
    return _TRAILING_COMMA.sub(r"\1", text_)

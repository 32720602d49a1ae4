"""HTTP Request v3+ query parameters given as JSON (``specifyQuery: json``), as n8n reads them.

n8n evaluates the ``jsonQuery`` parameter (an expression gives text), fails the node when the
text is not JSON ("JSON parameter needs to be valid JSON") and sends the object's fields as the
query. A field's text is JavaScript's (``25``, ``true``; null as empty); a list or an object
value (which n8n's ``qs`` writes with brackets) is not translated and fails naming the field.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import NodeFailed
from ._n8n_js import text


def json_query(value: Any, node: str = "HTTP Request") -> dict[str, str]:
    """Return the query of a JSON query parameter: each field of the parsed object as text."""
    try:
        document = json.loads(value) if isinstance(value, str) else json.loads(text(value))
    except ValueError:
        raise NodeFailed(f"{node}: JSON parameter needs to be valid JSON") from None
    if not isinstance(document, dict):
        raise NodeFailed(f"{node}: the JSON query is not an object (not translated)")
    query: dict[str, str] = {}
    for key, field in document.items():
        if isinstance(field, dict | list):
            raise NodeFailed(f"{node}: the query field {key!r} is a list or an object (n8n's qs brackets; not translated)")
        query[key] = "" if field is None else text(field)
    return query

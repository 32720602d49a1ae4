"""The runtime of Formatter by Zapier steps in automations scaffolded from Zapier (``cutover scaffold zapier``).

A Formatter step is a node whose ``action`` is the category (Text, Numbers, Date/Time, Utilities) and whose
``params`` name the transform (``params["transform"]``) and its fields; Formatter's backend is Zapier's open
``transformer`` service (github.com/zapier/transformer), where the Text category is called ``string`` and a
transform is addressed ``<category>.<name>`` (an export's ``date.formatting``). ``canonical`` maps those spellings
onto the keys of ``SUPPORTED``; ``format_step`` runs one step on its rendered params and returns what the step
outputs in Zapier: the result under ``output`` (zapier/transformer#8 keeps "output" as the key).

Formatter is line-item aware: a transform given a list runs on every value and returns the list
(https://zapier.com/help/how-use-line-items-formatter/).

Only transforms whose behaviour a public Zapier source states are implemented; every other pair raises
``UnsupportedTransform``, so a translator that checks ``SUPPORTED`` first emits a TODO for it instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import TodoNode
from . import _zapier_formatter_date as date
from . import _zapier_formatter_text as text
from . import _zapier_formatter_util as util

# No exception class may be defined outside queue_core/errors.py (which is full): an unknown transform is a step
# that is not translated, so it fails the run the way a TODO node does. See STATUS-zformat.md.
UnsupportedTransform = TodoNode

_TABLES: dict[str, dict[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "text": text.TRANSFORMS,
    "number": util.NUMBER_TRANSFORMS,
    "date": date.TRANSFORMS,
    "util": util.UTIL_TRANSFORMS,
}


_ACTIONS = {"text": "text", "string": "text", "number": "number", "numbers": "number", "date": "date",
            "date_time": "date", "datetime": "date", "util": "util", "utils": "util", "utilities": "util"}

_ALIASES = {
    "lower_case": "lowercase", "upper_case": "uppercase", "title_case": "titlecase", "trim": "trim_space",
    "trim_whitespace": "trim_space", "manipulate": "add_time", "lookup_table": "lookup",
    "string_to_lineitems": "line_itemizer", "string_to_lineitem": "text_to_line_items",
    "convert_s_li": "text_to_line_items", "lineitem_to_string": "line_items_to_text",
    "lineitem_to_string_v2": "line_items_to_text_v2", "convert_li_s": "line_items_to_text",
    "line_itemizer_create": "line_itemizer", "default_value_v2": "default_value", "spreadsheet_formula": "formula",
    "pick_from_list": "choose", "number_extract": "extract_number", "email_extract": "extract_email",
    "url_extract": "extract_url", "pattern_extract": "extract_pattern", "re_extract": "extract_pattern",
}

__all__ = ["SUPPORTED", "UnsupportedTransform", "canonical", "format_step"]


def canonical(action: str, transform: str) -> tuple[str, str]:
    """The (action, transform) key of ``SUPPORTED`` for a Zapfile's spelling of them. A transform written with
    its backend category (``date.formatting``) names the category itself, whatever the node's action says."""
    name = str(transform or "").strip().lower()
    category = str(action or "").strip().lower()
    if "." in name:
        prefix, name = name.rsplit(".", 1)
        category = prefix if prefix in _ACTIONS else category
    return _ACTIONS.get(category, str(action or "")), _ALIASES.get(name, name)


class _Supported(frozenset[tuple[str, str]]):
    """The canonical (action, transform) pairs; ``in`` also answers for a Zapfile's spelling of one
    (``("string", "string.replace") in SUPPORTED``), so a caller need not call ``canonical`` first."""

    def __contains__(self, pair: object) -> bool:
        if isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(part, str) for part in pair):
            return frozenset.__contains__(self, canonical(pair[0], pair[1]))
        return False


SUPPORTED: frozenset[tuple[str, str]] = _Supported(
    (action, transform) for action, table in _TABLES.items() for transform in table)


def format_step(action: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one Formatter step: ``params`` are the node's params with field references rendered to values."""
    if not isinstance(params, dict):
        raise TypeError(f"Formatter step params: expected an object, got {type(params).__name__}")
    key = canonical(action, str(params.get("transform", "")))
    transform = _TABLES.get(key[0], {}).get(key[1])
    if transform is None:
        raise UnsupportedTransform(f"Formatter by Zapier {action}:{params.get('transform', '')}",
                                   "this Formatter transform is not implemented (not in SUPPORTED)")
    return transform(params)

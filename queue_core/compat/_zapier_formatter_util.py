"""Formatter by Zapier's Numbers and Utilities transforms (``_zapier_formatter``).

Numbers: the math operation over a value or a line-item list (zapier/transformer#14 shows its params), the
spreadsheet-style formula (``_zapier_formatter_formula``). Utilities: the lookup table with its fallback
(https://zapier.com/help/create/format/create-lookup-tables-in-zaps), choose a value from a list
(zapier/transformer#7, #31), Text to Line-item, Line-item to Text (zapier/transformer#86) and the Line Itemizer
(https://help.zapier.com/hc/en-us/articles/8496275165709-Create-line-items-in-Zaps).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import reduce
from typing import Any

from ._zapier_formatter_formula import evaluate
from ._zapier_formatter_text import Params, as_text, special, value


def number(raw: Any) -> int | float:
    """A value as Formatter's math reads it: Python's float() of the text, whole numbers as int; a value that is
    not a number reads as 0 (the backend's try_parse_number: no error, 0.0)."""
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, int | float):
        return raw
    try:
        parsed = float(as_text(raw))
    except ValueError:
        return 0.0
    return int(parsed) if parsed.is_integer() else parsed


_OPERATIONS = {"add": "add", "sum": "add", "sub": "sub", "subtract": "sub", "mul": "mul", "multiply": "mul",
               "div": "div", "divide": "div", "neg": "neg", "negate": "neg"}


def _math(params: Params) -> dict[str, Any]:
    # Perform Math Operation over the values of a list field (transformer/transforms/number/math.py): add, sub,
    # mul fold left to right, div divides as floats; neg makes every value negative and returns the list.
    operation = _OPERATIONS.get(as_text(params.get("operation")).strip().lower())
    if operation is None:
        raise ValueError(f"Formatter field 'operation': {params.get('operation')!r} is not add, sub, mul, div or neg")
    given = value(params)
    values = [number(item) for item in (given if isinstance(given, list) else [given])]
    if not values:
        raise ValueError("Formatter field 'inputs': no numbers given")
    if operation == "neg":
        return {"output": [-item for item in values]}
    if operation == "div" and any(item == 0 for item in values[1:]):
        raise ValueError("Formatter math: division by zero")
    fold: Callable[[Any, Any], Any] = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                                       "mul": lambda a, b: a * b, "div": lambda a, b: float(a) / b}[operation]
    return {"output": reduce(fold, values[1:], values[0])}


_GROUPING = {"0": (",", "."), "1": (".", ","), "2": (" ", "."), "3": (" ", ",")}


def _number_formatting(params: Params) -> dict[str, Any]:
    # Format Number (transformer/transforms/number/formatting.py): split at the input's decimal mark, keep the
    # digits and "-" before it, group thousands and write the chosen marks; "does not perform any rounding or
    # padding". A value whose whole part is not a number is returned as it is.
    mark = as_text(params.get("input_decimal_mark")) or "."
    style = as_text(params.get("output_format", params.get("to_format", ""))).strip()
    if style not in _GROUPING:
        raise ValueError(f"Formatter field 'output_format': {style!r} is not 0, 1, 2 or 3")
    group, decimal = _GROUPING[style]

    def one(item: Any) -> Any:
        if item is None:
            return ""
        text = as_text(item)
        whole, _, fraction = text.rpartition(mark) if mark in text else (text, "", "")
        digits = "".join(ch for ch in whole if ch in "1234567890-")
        if digits != "-0":
            try:
                digits = f"{int(digits):,}"
            except ValueError:
                return item
        digits = digits.replace(",", group)
        return digits + decimal + fraction if fraction else digits
    given = value(params)
    return {"output": [one(item) for item in given] if isinstance(given, list) else one(given)}


def _table(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return {as_text(k): v for k, v in raw.items()}
    if isinstance(raw, str) and raw.strip().startswith("{"):
        parsed = json.loads(raw)
        if isinstance(parsed, dict):
            return {as_text(k): v for k, v in parsed.items()}
    if isinstance(raw, list) and all(isinstance(row, dict) for row in raw):  # [{"key": …, "value": …}]
        return {as_text(row.get("key")): row.get("value") for row in raw}
    raise ValueError("Formatter field 'lookup_table': expected key/value rows")


def _lookup(params: Params) -> dict[str, Any]:
    # The value beside the key in the table; a key that matches no row gives the fallback; an empty key gives
    # nothing ("The fallback value is only used for existing values that do not match any table row").
    # Fields: table, key (or the step's input), fallback (transformer/transforms/util/lookup.py).
    raw_table = params.get("table", params.get("lookup_table"))
    if raw_table is None and isinstance(params.get("inputs"), dict):
        raw_table = params["inputs"]
    table = _table(raw_table if raw_table is not None else {})
    fallback = params.get("fallback", params.get("lookup_default", ""))

    def one(key: Any) -> Any:
        text = as_text(key)
        if text == "":
            return ""
        return table.get(text, as_text(fallback))
    given = params.get("key", params.get("lookup_key", None))
    if given is None:
        given = value(params) if not isinstance(params.get("inputs"), dict) else ""
    return {"output": [one(k) for k in given] if isinstance(given, list) else one(given)}


def _formula(params: Params) -> dict[str, Any]:
    given = value(params)
    if isinstance(given, list):
        return {"output": [evaluate(as_text(item)) for item in given]}
    return {"output": evaluate(as_text(given))}


def _choose(params: Params) -> dict[str, Any]:
    # Pick from list (transformer/transforms/util/choose.py): "the first, last, random, or n-th value that is not
    # empty" — empty texts and nulls are skipped, n counts from 0 among the rest; the default (null when unset)
    # when there is none; an empty list gives the default or "".
    given = value(params)
    default = params.get("default")
    if given in ("", None) or given == []:
        return {"output": default if default is not None else ""}
    if not isinstance(given, list):
        raise ValueError("Formatter Pick from list: 'inputs' must be a list of values (map a line-item field)")
    how = as_text(params.get("operation")).strip()
    if not how:
        raise ValueError("Formatter Pick from list: no 'operation' (first, last, random or an index)")
    present = [v for v in given if v is not None and not (isinstance(v, str) and v == "")]
    if how == "random":
        return {"output": random.choice(present) if present else default}
    index = {"first": 0, "last": -1}.get(how)
    if index is None:
        try:
            index = int(float(how))
        except ValueError:
            return {"output": default}
    return {"output": present[index] if -len(present) <= index < len(present) else default}


def _line_items_to_text(params: Params) -> dict[str, Any]:
    # The values joined with the separator (whitespace codes allowed); a text given instead is output as it is.
    given = value(params)
    if not isinstance(given, list):
        return {"output": as_text(given)}
    separator = special(params.get("separator", ",")) if as_text(params.get("separator", ",")) else ","
    return {"output": separator.join(as_text(item) for item in given)}


def _line_items_to_text_v2(params: Params) -> dict[str, Any]:
    # Line-item to Text, v2 (transformer/transforms/util/lineitem_to_string_v2.py): the joined text as
    # "text_output" and every value as its own field "item 1", "item 2" …; a text given instead is both.
    given = value(params)
    if given in ("", None) or given == []:
        return {"output": {"text_output": ""}}
    if not isinstance(given, list):
        return {"output": {"text_output": given, "item 1": given}}
    separator = special(params.get("separator", ",")) if as_text(params.get("separator", ",")) else ","
    out: dict[str, Any] = {"text_output": separator.join(as_text(item) for item in given)}
    out.update({f"item {i}": item for i, item in enumerate(given, 1)})
    return {"output": out}


def _text_to_line_items(params: Params) -> dict[str, Any]:
    # Text to Line-item (transformer/transforms/util/string_to_lineitem.py): comma-separated text
    # ("apples,bananas,oranges") becomes one set of line items, split at every comma, nothing trimmed; an empty
    # text gives ""; a line-item input is split value by value.
    def one(item: Any) -> Any:
        text = as_text(item)
        return text.split(",") if text else ""
    given = value(params)
    return {"output": [one(item) for item in given] if isinstance(given, list) else one(given)}


def _line_itemizer(params: Params) -> dict[str, Any]:
    # Line Itemizer (transformer/transforms/util/line_itemizer.py): the step's input is the group name
    # ("Line-item(s)" when empty), my_dict maps property names to comma-separated values; item i has each
    # property's i-th value, a property with fewer values is left out of the later items; an unnamed property
    # is dropped.
    group_raw = params.get("inputs", params.get("line_items_group_name", params.get("group_name", "")))
    if isinstance(group_raw, dict | list):
        raise ValueError("Formatter Line Itemizer: the 'Line-item(s) Group Name' field should only contain text or "
                         "single values")
    group = as_text(group_raw) or "Line-item(s)"
    properties = params.get("my_dict", params.get("line_items", params.get("table", {})))
    if not isinstance(properties, dict):
        raise ValueError("Formatter Line Itemizer: 'my_dict' must map property names to values")
    columns = {as_text(name): (raw if isinstance(raw, list) else as_text(raw).split(","))
               for name, raw in properties.items() if as_text(name) != ""}
    size = max((len(column) for column in columns.values()), default=0)
    rows = [{name: column[i] for name, column in columns.items() if i < len(column)} for i in range(size)]
    return {"output": {group: rows}}


NUMBER_TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "math": _math,
    "formatting": _number_formatting,
    "formula": _formula,
}

UTIL_TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "lookup": _lookup,
    "choose": _choose,
    "text_to_line_items": _text_to_line_items,
    "line_items_to_text": _line_items_to_text,
    "line_items_to_text_v2": _line_items_to_text_v2,
    "line_itemizer": _line_itemizer,
}

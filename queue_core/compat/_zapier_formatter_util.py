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


def number(raw: Any, field: str = "input", decimal_mark: str = ".") -> int | float:
    """A numeric field's value, read with its decimal mark ("." or ","; the other mark groups thousands);
    a value that is not a number is an error naming the field."""
    if isinstance(raw, bool):
        raise ValueError(f"Formatter field {field!r}: {raw!r} is not a number")
    if isinstance(raw, int | float):
        return raw
    text = as_text(raw).strip().replace(" ", "")
    if decimal_mark == ",":
        text = text.replace(".", "").replace(",", ".")
    else:
        text = text.replace(",", "")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"Formatter field {field!r}: {text!r} is not a number") from None


_OPERATIONS = {"add": "add", "sum": "add", "sub": "sub", "subtract": "sub", "mul": "mul", "multiply": "mul",
               "div": "div", "divide": "div", "neg": "neg", "negate": "neg"}


def _math(params: Params) -> dict[str, Any]:
    # Add: the sum of the values; subtract: the first minus the rest; multiply: the product; divide: the first
    # divided by each of the rest in turn; negate: every value with its sign flipped (a list stays a list).
    operation = _OPERATIONS.get(as_text(params.get("operation")).strip().lower())
    if operation is None:
        raise ValueError(f"Formatter field 'operation': {params.get('operation')!r} is not add, subtract, multiply, "
                         "divide or negate")
    given = value(params)
    mark = as_text(params.get("input_decimal_mark")).strip() or "."
    values = [number(item, "input", mark) for item in (given if isinstance(given, list) else [given])]
    if not values:
        raise ValueError("Formatter field 'input': no numbers given")
    if operation == "neg":
        negated = [-item for item in values]
        return {"output": negated if isinstance(given, list) else negated[0]}
    if operation == "div" and any(item == 0 for item in values[1:]):
        raise ValueError("Formatter math: division by zero")
    fold: Callable[[Any, Any], Any] = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                                       "mul": lambda a, b: a * b, "div": lambda a, b: a / b}[operation]
    return {"output": reduce(fold, values)}


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
    table = _table(params.get("lookup_table", {}))
    fallback = params.get("lookup_default", params.get("fallback", ""))

    def one(key: Any) -> Any:
        text = as_text(key)
        if text == "":
            return ""
        return table.get(text, as_text(fallback))
    given = params.get("lookup_key", value(params))
    return {"output": [one(k) for k in given] if isinstance(given, list) else one(given)}


def _items(raw: Any) -> list[str]:
    if isinstance(raw, list):
        return [as_text(item) for item in raw]
    text = as_text(raw)
    return text.split(",") if text != "" else []


def _formula(params: Params) -> dict[str, Any]:
    given = value(params)
    if isinstance(given, list):
        return {"output": [evaluate(as_text(item)) for item in given]}
    return {"output": evaluate(as_text(given))}


def _choose(params: Params) -> dict[str, Any]:
    # First, last or a random non-empty value of the list, or the value at an index (from 0); the default when
    # there is none (zapier/transformer#7: an empty text is skipped; #31: item indexing).
    given = value(params)
    values = given if isinstance(given, list) else [given]
    default = params.get("default", "")
    how = as_text(params.get("operation", "first")).strip().lower() or "first"
    present = [v for v in values if not (isinstance(v, str) and v == "") and v is not None]
    if how in {"first", "last", "random"}:
        if not present:
            return {"output": default}
        return {"output": present[0] if how == "first" else present[-1] if how == "last" else random.choice(present)}
    try:
        index = int(how)
    except ValueError:
        raise ValueError(f"Formatter field 'operation': {how!r} is not first, last, random or an index") from None
    return {"output": values[index] if -len(values) <= index < len(values) else default}


def _line_items_to_text(params: Params) -> dict[str, Any]:
    # The values joined with the separator (whitespace codes allowed); a text given instead is output as it is.
    given = value(params)
    if not isinstance(given, list):
        return {"output": as_text(given)}
    separator = special(params.get("separator", ",")) if as_text(params.get("separator", ",")) else ","
    return {"output": separator.join(as_text(item) for item in given)}


def _text_to_line_items(params: Params) -> dict[str, Any]:
    # Comma-separated text ("apples,bananas,oranges") becomes one set of line items.
    return {"output": _items(value(params))}


def _line_itemizer(params: Params) -> dict[str, Any]:
    # Each property holds comma-separated values; item i has every property's i-th value ("" where a property has
    # fewer), under the group name, "Line-item(s)" when none is set (zapier/transformer#87's tests).
    group = as_text(params.get("line_items_group_name", params.get("group_name", ""))).strip() or "Line-item(s)"
    properties = params.get("line_items", params.get("table", params.get("properties", {})))
    if not isinstance(properties, dict):
        raise ValueError("Formatter Line Itemizer: 'line_items' must map property names to values")
    columns = {as_text(name): _items(raw) for name, raw in properties.items()}
    size = max((len(column) for column in columns.values()), default=0)
    rows = [{name: column[i] if i < len(column) else "" for name, column in columns.items()} for i in range(size)]
    return {"output": {group: rows}}


NUMBER_TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "math": _math,
    "formula": _formula,
}

UTIL_TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "lookup": _lookup,
    "choose": _choose,
    "text_to_line_items": _text_to_line_items,
    "line_items_to_text": _line_items_to_text,
    "line_itemizer": _line_itemizer,
}

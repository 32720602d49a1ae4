"""Utilities transforms (action ``util``)."""

from __future__ import annotations

from . import CREATE_LINE_ITEMS, LOOKUP, FormatterCase

C = FormatterCase

TABLE = {"Jane Doe": "cus_001", "Bob Roe": "cus_002"}

CASES = [
    # "The right column is what the Zap will output if the lookup key matches the value."
    C("util", {"transform": "lookup", "lookup_key": "Bob Roe", "lookup_table": TABLE, "lookup_default": "cus_000"},
      {"output": "cus_002"}, LOOKUP),
    # "if the lookup key does not match any values in the lookup table … return a backup value."
    C("util", {"transform": "lookup", "lookup_key": "Ann Poe", "lookup_table": TABLE, "lookup_default": "cus_000"},
      {"output": "cus_000"}, LOOKUP),
    # "If the mapped field for the lookup key has no value, nothing will be sent by the lookup table."
    C("util", {"transform": "lookup", "lookup_key": "", "lookup_table": TABLE, "lookup_default": "cus_000"},
      {"output": ""}, LOOKUP),
    # Text to Line-item: comma-separated values ("apples,bananas,oranges").
    C("util", {"transform": "text_to_line_items", "input": "apples,bananas,oranges"},
      {"output": ["apples", "bananas", "oranges"]}, CREATE_LINE_ITEMS),
    # Line Itemizer: a group name, and properties each mapped to comma-separated values.
    C("util", {"transform": "line_itemizer", "line_items_group_name": "Fruit",
               "line_items": {"name": "apples,bananas", "price": "1.20,0.50"}},
      {"Fruit": [{"name": "apples", "price": "1.20"}, {"name": "bananas", "price": "0.50"}]}, CREATE_LINE_ITEMS),
]

"""Utilities transforms (action ``util``)."""

from __future__ import annotations

from . import CHOOSE, CHOOSE_INDEX, CREATE_LINE_ITEMS, ITEMIZER_TESTS, LINE_ITEMS_TO_TEXT, LOOKUP, FormatterCase

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
      {"output": {"Fruit": [{"name": "apples", "price": "1.20"}, {"name": "bananas", "price": "0.50"}]}},
      CREATE_LINE_ITEMS),
    # with no group name the group is "Line-item(s)"; values are not trimmed, a missing one is "".
    C("util", {"transform": "line_itemizer", "table": {"price": "a, ", "name": ",two"}},
      {"output": {"Line-item(s)": [{"price": "a", "name": ""}, {"price": " ", "name": "two"}]}}, ITEMIZER_TESTS),
    # "choose first, last, or random non-empty value from a list of values"
    C("util", {"transform": "util.choose", "inputs": ["", "b", "c", ""], "operation": "first", "default": "-"},
      {"output": "b"}, CHOOSE),
    C("util", {"transform": "choose", "inputs": ["", "b", "c", ""], "operation": "last", "default": "-"},
      {"output": "c"}, CHOOSE),
    C("util", {"transform": "choose", "inputs": ["", ""], "operation": "first", "default": "-"}, {"output": "-"},
      CHOOSE),
    C("util", {"transform": "choose", "inputs": ["a", "b", "c"], "operation": "2", "default": "-"}, {"output": "c"},
      CHOOSE_INDEX),
    # Line-item to Text: ['a','b','c','d'] with "[:space:]" or "[:s:]" -> 'a b c d', with ";" -> 'a;b;c;d';
    # "if inputs is a string, just output it".
    C("util", {"transform": "util.lineitem_to_string", "inputs": ["a", "b", "c", "d"], "separator": "[:space:]"},
      {"output": "a b c d"}, LINE_ITEMS_TO_TEXT),
    C("util", {"transform": "lineitem_to_string", "inputs": ["a", "b", "c", "d"], "separator": ";"},
      {"output": "a;b;c;d"}, LINE_ITEMS_TO_TEXT),
    C("util", {"transform": "lineitem_to_string", "inputs": "a b", "separator": ";"}, {"output": "a b"},
      LINE_ITEMS_TO_TEXT),
]

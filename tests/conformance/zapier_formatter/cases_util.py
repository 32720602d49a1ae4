"""Utilities transforms (action ``util``)."""

from __future__ import annotations

from . import CHOOSE, CHOOSE_INDEX, CREATE_LINE_ITEMS, ITEMIZER_TESTS, LINE_ITEMS_TO_TEXT, LOOKUP, FormatterCase, backend

C = FormatterCase
LOOKUP_CODE = backend("transforms/util/lookup.py")
CHOOSE_CODE = backend("transforms/util/choose.py")
ITEMIZER_CODE = backend("transforms/util/line_itemizer.py")
TO_TEXT_V2 = backend("transforms/util/lineitem_to_string_v2.py")
TO_LINE_ITEM = backend("transforms/util/string_to_lineitem.py")

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
    # the backend's fields: the key as the step's input, "table", "fallback"
    C("util", {"transform": "util.lookup", "inputs": "Jane Doe", "table": TABLE, "fallback": "cus_000"},
      {"output": "cus_001"}, LOOKUP_CODE),
    # Text to Line-item: comma-separated values ("apples,bananas,oranges").
    C("util", {"transform": "text_to_line_items", "input": "apples,bananas,oranges"},
      {"output": ["apples", "bananas", "oranges"]}, CREATE_LINE_ITEMS),
    # split at every comma, nothing trimmed; empty text gives ""
    C("util", {"transform": "util.string_to_lineitem", "inputs": "a, b,"}, {"output": ["a", " b", ""]}, TO_LINE_ITEM),
    C("util", {"transform": "util.string_to_lineitem", "inputs": ""}, {"output": ""}, TO_LINE_ITEM),
    # Line Itemizer: a group name, and properties each mapped to comma-separated values.
    C("util", {"transform": "line_itemizer", "inputs": "Fruit",
               "my_dict": {"name": "apples,bananas", "price": "1.20,0.50"}},
      {"output": {"Fruit": [{"name": "apples", "price": "1.20"}, {"name": "bananas", "price": "0.50"}]}},
      CREATE_LINE_ITEMS),
    # with no group name the group is "Line-item(s)"; values are not trimmed.
    C("util", {"transform": "line_itemizer", "my_dict": {"price": "a, ", "name": ",two"}},
      {"output": {"Line-item(s)": [{"price": "a", "name": ""}, {"price": " ", "name": "two"}]}}, ITEMIZER_TESTS),
    # the docstring's example; a property with fewer values is left out of the later items.
    C("util", {"transform": "util.line_itemizer", "inputs": "Order Lines",
               "my_dict": {"Price": "5,3.5,4", "Description": "Hat,Shoes,Shirt", "Quantity": "1,2"}},
      {"output": {"Order Lines": [{"Price": "5", "Description": "Hat", "Quantity": "1"},
                                  {"Price": "3.5", "Description": "Shoes", "Quantity": "2"},
                                  {"Price": "4", "Description": "Shirt"}]}}, ITEMIZER_CODE),
    # "choose first, last, or random non-empty value from a list of values"
    C("util", {"transform": "util.choose", "inputs": ["", "b", "c", ""], "operation": "first", "default": "-"},
      {"output": "b"}, CHOOSE),
    C("util", {"transform": "choose", "inputs": ["", "b", "c", ""], "operation": "last", "default": "-"},
      {"output": "c"}, CHOOSE),
    C("util", {"transform": "choose", "inputs": ["", ""], "operation": "first", "default": "-"}, {"output": "-"},
      CHOOSE),
    C("util", {"transform": "choose", "inputs": ["a", "b", "c"], "operation": "2", "default": "-"}, {"output": "c"},
      CHOOSE_INDEX),
    # "the first, last, random, or n-th value that is not empty": n counts among the non-empty values; an index
    # it cannot read gives the default.
    C("util", {"transform": "choose", "inputs": ["", "b", "", "d"], "operation": "1", "default": "-"},
      {"output": "d"}, CHOOSE_CODE),
    C("util", {"transform": "choose", "inputs": ["a"], "operation": "middle", "default": "-"}, {"output": "-"},
      CHOOSE_CODE),
    C("util", {"transform": "choose", "inputs": ["x", "", "x"], "operation": "random"}, {"output": "x"}, CHOOSE_CODE),
    # Line-item to Text: ['a','b','c','d'] with "[:space:]" or "[:s:]" -> 'a b c d', with ";" -> 'a;b;c;d';
    # "if inputs is a string, just output it".
    C("util", {"transform": "util.lineitem_to_string", "inputs": ["a", "b", "c", "d"], "separator": "[:space:]"},
      {"output": "a b c d"}, LINE_ITEMS_TO_TEXT),
    C("util", {"transform": "lineitem_to_string", "inputs": ["a", "b", "c", "d"], "separator": ";"},
      {"output": "a;b;c;d"}, LINE_ITEMS_TO_TEXT),
    C("util", {"transform": "lineitem_to_string", "inputs": "a b", "separator": ";"}, {"output": "a b"},
      LINE_ITEMS_TO_TEXT),
    # v2: the text as "text_output" and each value as "item N" (default separator ",")
    C("util", {"transform": "util.lineitem_to_string_v2", "inputs": ["a", "b"]},
      {"output": {"text_output": "a,b", "item 1": "a", "item 2": "b"}}, TO_TEXT_V2),
    C("util", {"transform": "util.lineitem_to_string_v2", "inputs": "solo"},
      {"output": {"text_output": "solo", "item 1": "solo"}}, TO_TEXT_V2),
]

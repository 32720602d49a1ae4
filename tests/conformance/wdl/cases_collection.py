"""Collection and JSON manipulation functions: the reference's examples."""

from __future__ import annotations

from tests.conformance.wdl._case import Case

CASES = [
    Case("@contains('hello world', 'world')", True, "#contains example 1"),
    Case("@contains('hello world', 'universe')", False, "#contains example 2"),
    Case("@empty('')", True, "#empty"),
    Case("@empty('abc')", False, "#empty"),
    Case("@first('hello')", "h", "#first"),
    Case("@first(createArray(0, 1, 2))", 0, "#first"),
    Case("@last('abcd')", "d", "#last"),
    Case("@last(createArray(0, 1, 2, 3))", 3, "#last"),
    Case("@intersection(createArray(1, 2, 3), createArray(101, 2, 1, 10), createArray(6, 8, 1, 2))", [1, 2],
         "#intersection"),
    Case("@join(createArray('a', 'b', 'c'), '.')", "a.b.c", "#join"),
    Case("@skip(createArray(0, 1, 2, 3), 1)", [1, 2, 3], "#skip"),
    Case("@take('abcde', 3)", "abc", "#take"),
    Case("@take(createArray(0, 1, 2, 3, 4), 3)", [0, 1, 2], "#take"),
    Case("@union(createArray(1, 2, 3), createArray(1, 2, 10, 101))", [1, 2, 3, 10, 101], "#union"),
    Case("@createArray('h', 'e', 'l', 'l', 'o')", ["h", "e", "l", "l", "o"], "#createArray"),
    Case("@array('hello')", ["hello"], "#array"),
    Case("@sort(createArray(2, 1, 0, 3))", [0, 1, 2, 3], "#sort example 1"),
    Case("@sort(createArray(json('{ \"first\": \"Amalie\", \"last\": \"Rose\" }'), "
         "json('{ \"first\": \"Elise\", \"last\": \"Renee\" }')), 'last')",
         [{"first": "Elise", "last": "Renee"}, {"first": "Amalie", "last": "Rose"}], "#sort example 2"),
    Case("@reverse(createArray(0, 1, 2, 3))", [3, 2, 1, 0], "#reverse"),
    Case("@coalesce(null, true, false)", True, "#coalesce"),
    Case("@coalesce(null, 'hello', 'world')", "hello", "#coalesce"),
    Case("@coalesce(null, null, null)", None, "#coalesce"),
    # The reference's input has "lastName" (its "current object" shows "surName"): the input is pinned.
    Case("@addProperty(json('{ \"firstName\": \"Sophia\", \"lastName\": \"Owen\" }'), 'middleName', 'Anne')",
         {"firstName": "Sophia", "lastName": "Owen", "middleName": "Anne"}, "#addProperty example 1"),
    Case("@setProperty(json('{ \"customerName\": { \"firstName\": \"Sophia\", \"surName\": \"Owen\" } }'), "
         "'customerName', addProperty(json('{ \"customerName\": { \"firstName\": \"Sophia\", \"surName\": \"Owen\" } }')"
         "['customerName'], 'middleName', 'Anne'))",
         {"customerName": {"firstName": "Sophia", "surName": "Owen", "middleName": "Anne"}}, "#addProperty example 2"),
    Case("@setProperty(json('{ \"firstName\": \"Sophia\", \"surName\": \"Owen\" }'), 'surName', 'Hartnett')",
         {"firstName": "Sophia", "surName": "Hartnett"}, "#setProperty example 1"),
    Case("@setProperty(json('{ \"customerName\": { \"firstName\": \"Sophia\", \"surName\": \"Owen\" } }'), "
         "'customerName', setProperty(json('{ \"customerName\": { \"firstName\": \"Sophia\", \"surName\": \"Owen\" } }')"
         "['customerName'], 'surName', 'Hartnett'))",
         {"customerName": {"firstName": "Sophia", "surName": "Hartnett"}}, "#setProperty example 2"),
    Case("@removeProperty(json('{ \"firstName\": \"Sophia\", \"middleName\": \"Anne\", \"surName\": \"Owen\" }'), "
         "'middleName')", {"firstName": "Sophia", "surName": "Owen"}, "#removeProperty example 1"),
    Case("@removeProperty(json('{ \"customerName\": { \"firstName\": \"Sophia\", \"middleName\": \"Anne\", "
         "\"surName\": \"Owen\" } }')['customerName'], 'middleName')", {"firstName": "Sophia", "surName": "Owen"},
         "#removeProperty example 2"),
]

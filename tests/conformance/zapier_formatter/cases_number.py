"""Numbers transforms (action ``number``)."""

from __future__ import annotations

from . import FORMULA, GUIDE, LINE_ITEMS, MATH_PARAMS, FormatterCase

C = FormatterCase

CASES = [
    # "Numbers: Work with numeric data to do math operations" — over a line-item list of values.
    C("number", {"transform": "math", "operation": "add", "input": ["10", "2.5", "7"]}, {"output": 19.5}, GUIDE),
    C("number", {"transform": "math", "operation": "multiply", "input": ["3", "4"]}, {"output": 12}, LINE_ITEMS),
    C("number", {"transform": "math", "operation": "negate", "input": "5"}, {"output": -5}, GUIDE),
    # the params a real math step sends: {"inputs": [...], "input_decimal_mark": ".", "operation": "div", …}
    C("number", {"inputs": ["39.99", "45.00", "100"], "input_decimal_mark": ".", "operation": "add",
                 "transform": "number.math"}, {"output": 184.99}, MATH_PARAMS),
    C("number", {"inputs": ["10", "4"], "input_decimal_mark": ".", "operation": "div", "transform": "number.math"},
      {"output": 2.5}, MATH_PARAMS),
    # Spreadsheet-Style Formula: {"transform": "formula", "category": "number", "inputs": "IF(SIGN(-123) = -1, 100, 200)"}
    # gives 100.
    C("number", {"transform": "formula", "inputs": "IF(SIGN(-123) = -1, 100, 200)"}, {"output": 100}, FORMULA),
    C("number", {"transform": "number.formula", "inputs": "SUM(1, 2, 3) * 2"}, {"output": 12}, FORMULA),
    # "% - Unary Percentage e.g., 1% = 0.01"; "& - Concatenate text together"
    C("number", {"transform": "formula", "inputs": "1%"}, {"output": 0.01}, FORMULA),
    C("number", {"transform": "formula", "inputs": '"Total: " & MAX(3, 9, 4)'}, {"output": "Total: 9"}, FORMULA),
]

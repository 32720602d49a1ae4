"""Numbers transforms (action ``number``)."""

from __future__ import annotations

from . import FORMULA, MATH_PARAMS, FormatterCase, backend

C = FormatterCase
MATH = backend("transforms/number/math.py")
FORMAT = backend("transforms/number/formatting.py")
FORMULA_CODE = backend("transforms/number/formula.py")

CASES = [
    # the params a real math step sends: {"inputs": [...], "input_decimal_mark": ".", "operation": "div", …}
    C("number", {"inputs": ["39.99", "45.00", "100"], "input_decimal_mark": ".", "operation": "add",
                 "transform": "number.math"}, {"output": 184.99}, MATH_PARAMS),
    C("number", {"inputs": ["10", "4"], "input_decimal_mark": ".", "operation": "div", "transform": "number.math"},
      {"output": 2.5}, MATH_PARAMS),
    # add|Add, sub|Subtract, mul|Multiply, div|Divide (as floats), neg|Make Negative (a list of each negated);
    # inputs are read with float(), a value that is not a number counts as 0.
    C("number", {"transform": "math", "operation": "mul", "inputs": ["3", "4"]}, {"output": 12}, MATH),
    C("number", {"transform": "math", "operation": "sub", "inputs": ["10", "3", "2.5"]}, {"output": 4.5}, MATH),
    C("number", {"transform": "math", "operation": "div", "inputs": ["10", "5"]}, {"output": 2.0}, MATH),
    C("number", {"transform": "math", "operation": "neg", "inputs": ["5", "-2"]}, {"output": [-5, 2]}, MATH),
    C("number", {"transform": "math", "operation": "add", "inputs": ["10", "n/a"]}, {"output": 10.0}, MATH),
    # Format Number: input_decimal_mark "." or ","; output_format 0 "Comma for grouping & period for decimal",
    # 1 "Period for grouping & comma for decimal", 2 "Space … & period …", 3 "Space … & comma …"; no rounding or
    # padding; a value it cannot read is returned as it is.
    C("number", {"transform": "number.formatting", "inputs": "1234567.891", "input_decimal_mark": ".",
                 "output_format": "1"}, {"output": "1.234.567,891"}, FORMAT),
    C("number", {"transform": "formatting", "inputs": "1.234,5", "input_decimal_mark": ",", "output_format": "0"},
      {"output": "1,234.5"}, FORMAT),
    C("number", {"transform": "formatting", "inputs": "$1234567", "input_decimal_mark": ".", "output_format": "2"},
      {"output": "1 234 567"}, FORMAT),
    C("number", {"transform": "formatting", "inputs": "-0.5", "input_decimal_mark": ".", "output_format": "3"},
      {"output": "-0,5"}, FORMAT),
    C("number", {"transform": "formatting", "inputs": "n/a", "input_decimal_mark": ".", "output_format": "0"},
      {"output": "n/a"}, FORMAT),
    # Spreadsheet-Style Formula: {"transform": "formula", "category": "number", "inputs": "IF(SIGN(-123) = -1, 100, 200)"}
    # gives 100.
    C("number", {"transform": "formula", "inputs": "IF(SIGN(-123) = -1, 100, 200)"}, {"output": 100}, FORMULA),
    C("number", {"transform": "number.formula", "inputs": "SUM(1, 2, 3) * 2"}, {"output": 12}, FORMULA),
    # "% - Unary Percentage e.g., 1% = 0.01"
    C("number", {"transform": "formula", "inputs": "1%"}, {"output": 0.01}, FORMULA),
    # the help text's example `ROUNDUP(100.1231, 2) * 100`; ROUND halves away from zero; INT truncates; IF
    # without its third argument gives null; TRUE is 1.
    C("number", {"transform": "number.formula", "inputs": "ROUNDUP(100.1231, 2) * 100"}, {"output": 10013.0},
      FORMULA_CODE),
    C("number", {"transform": "number.formula", "inputs": "ROUND(2.5) + INT(-8.9)"}, {"output": -5.0}, FORMULA_CODE),
    C("number", {"transform": "number.formula", "inputs": "IF(1 > 2, 5)"}, {"output": None}, FORMULA_CODE),
    C("number", {"transform": "number.formula", "inputs": "TRUE + MEDIAN(4, 1, 3, 2)"}, {"output": 3.5},
      FORMULA_CODE),
]

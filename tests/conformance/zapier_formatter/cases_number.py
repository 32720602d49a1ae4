"""Numbers transforms (action ``number``)."""

from __future__ import annotations

from . import GUIDE, LINE_ITEMS, FormatterCase

C = FormatterCase

CASES = [
    # "Numbers: Work with numeric data to do math operations" — over a line-item list of values.
    C("number", {"transform": "math", "operation": "add", "input": ["10", "2.5", "7"]}, {"output": 19.5}, GUIDE),
    C("number", {"transform": "math", "operation": "multiply", "input": ["3", "4"]}, {"output": 12}, LINE_ITEMS),
    C("number", {"transform": "math", "operation": "negate", "input": "5"}, {"output": -5}, GUIDE),
]

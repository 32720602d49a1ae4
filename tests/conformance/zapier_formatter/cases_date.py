"""Date/Time transforms (action ``date``): formats in Arrow's tokens, the library Formatter's backend uses."""

from __future__ import annotations

from . import DATE_BLANK, DATE_FIELDS, DATE_MATH, DATE_TOKENS, DATE_UNIX, DATE_ZONES, LINE_ITEMS, FormatterCase

C = FormatterCase

CASES = [
    # ISO 8601 in, Arrow tokens out.
    C("date", {"transform": "formatting", "inputs": "2020-10-26T16:56:00+00:00", "to_format": "MM/DD/YYYY"},
      {"output": "10/26/2020"}, DATE_TOKENS),
    C("date", {"transform": "formatting", "inputs": "2020-10-26T16:56:00+00:00", "to_format": "MMMM D YYYY HH:mm:ss"},
      {"output": "October 26 2020 16:56:00"}, DATE_TOKENS),
    # "1393462573 (a UNIX timestamp)" is a date Zapier reads; "X" writes one.
    C("date", {"transform": "formatting", "inputs": "1393462573", "to_format": "YYYY-MM-DDTHH:mm:ssZ"},
      {"output": "2014-02-27T00:56:13+0000"}, DATE_FIELDS),
    C("date", {"transform": "formatting", "inputs": "2014-02-27T00:56:13+00:00", "to_format": "X"},
      {"output": "1393462573"}, DATE_UNIX),
    # a from-format for an input that is not ISO (a European date).
    C("date", {"transform": "formatting", "inputs": "26/10/2020", "from_format": "DD/MM/YYYY",
               "to_format": "YYYY-MM-DD"}, {"output": "2020-10-26"}, LINE_ITEMS),
    # the timezone to convert to; the from-timezone applies to an input that names none.
    C("date", {"transform": "formatting", "inputs": "2020-10-26T16:56:00+00:00", "to_format": "YYYY-MM-DD HH:mm ZZ",
               "to_timezone": "America/New_York"}, {"output": "2020-10-26 12:56 -04:00"}, DATE_ZONES),
    C("date", {"transform": "formatting", "inputs": "2020-10-26 09:00", "from_format": "YYYY-MM-DD HH:mm",
               "from_timezone": "Europe/Paris", "to_format": "HH:mm ZZ", "to_timezone": "UTC"},
      {"output": "08:00 +00:00"}, DATE_ZONES),
    # an optional date left empty is not turned into today's date: it stays empty.
    C("date", {"transform": "date.formatting", "inputs": "", "to_format": "YYYY-MM-DD"}, {"output": ""}, DATE_BLANK),
    # date math expressions such as "+ 8 hours", "- 1 week".
    C("date", {"transform": "add_time", "inputs": "2020-10-26T16:56:00+00:00", "expression": "+ 8 hours",
               "to_format": "YYYY-MM-DD HH:mm"}, {"output": "2020-10-27 00:56"}, DATE_MATH),
    C("date", {"transform": "add_time", "inputs": "2020-10-26T16:56:00+00:00", "expression": "- 1 week",
               "to_format": "YYYY-MM-DD"}, {"output": "2020-10-19"}, DATE_MATH),
]

"""Date/Time transforms (action ``date``): formats in Arrow's tokens, the library Formatter's backend uses."""

from __future__ import annotations

from . import DATE_BLANK, DATE_FIELDS, DATE_MATH, DATE_TOKENS, DATE_UNIX, DATE_ZONES, LINE_ITEMS, FormatterCase, backend

C = FormatterCase
FORMATTING = backend("transforms/date/formatting.py")
MANIPULATE = backend("transforms/date/manipulate.py")
PARSING = backend("util.py")

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
    # From Timezone applies to a date that reads as UTC, even one written "+00:00".
    C("date", {"transform": "date.formatting", "inputs": "2020-10-26T16:56:00+00:00", "from_timezone": "America/New_York",
               "to_timezone": "UTC", "to_format": "HH:mm"}, {"output": "20:56"}, FORMATTING),
    # one of the offered formats, 'ddd MMM DD HH:mm:ss Z YYYY'
    C("date", {"transform": "date.formatting", "inputs": "2006-01-22T23:04:05+00:00",
               "to_format": "ddd MMM DD HH:mm:ss Z YYYY"}, {"output": "Sun Jan 22 23:04:05 +0000 2006"}, FORMATTING),
    # "a sufficiently large timestamp is actually in millisecond resolution"
    C("date", {"transform": "formatting", "inputs": "1393462573000", "to_format": "YYYY-MM-DD HH:mm:ss"},
      {"output": "2014-02-27 00:56:13"}, PARSING),
    # no from-format: the backend's parser reads written dates month first, and e-mail (RFC 2822) dates
    C("date", {"transform": "date.formatting", "inputs": "October 26, 2020", "to_format": "YYYY-MM-DD"},
      {"output": "2020-10-26"}, PARSING),
    C("date", {"transform": "date.formatting", "inputs": "Mon, 26 Oct 2020 16:56:00 -0400", "to_format": "HH:mm"},
      {"output": "20:56"}, PARSING),
    # "2/13/2020 8PM EST" is one of the dates Zapier reads
    C("date", {"transform": "date.formatting", "inputs": "2/13/2020 8PM EST", "to_format": "MMMM Do, h A"},
      {"output": "February 13th, 8 PM"}, DATE_FIELDS),
    # an optional date left empty is not turned into today's date: it stays empty.
    C("date", {"transform": "date.formatting", "inputs": "", "to_format": "YYYY-MM-DD"}, {"output": ""}, DATE_BLANK),
    # date math expressions such as "+ 8 hours", "- 1 week".
    C("date", {"transform": "add_time", "inputs": "2020-10-26T16:56:00+00:00", "expression": "+ 8 hours",
               "to_format": "YYYY-MM-DD HH:mm"}, {"output": "2020-10-27 00:56"}, DATE_MATH),
    C("date", {"transform": "add_time", "inputs": "2020-10-26T16:56:00+00:00", "expression": "- 1 week",
               "to_format": "YYYY-MM-DD"}, {"output": "2020-10-19"}, DATE_MATH),
    # the help text's examples: "+8 hours 1 minute", "+1 month -2 days", "-1 day +8 hours" (months before days;
    # Jan 31 + 1 month is Feb 29 in 2020).
    C("date", {"transform": "date.manipulate", "inputs": "2020-10-26T16:56:00+00:00", "expression": "+8 hours 1 minute",
               "to_format": "YYYY-MM-DD HH:mm"}, {"output": "2020-10-27 00:57"}, MANIPULATE),
    C("date", {"transform": "date.manipulate", "inputs": "2020-01-31T10:00:00+00:00", "expression": "+1 month -2 days",
               "to_format": "YYYY-MM-DD"}, {"output": "2020-02-27"}, MANIPULATE),
    C("date", {"transform": "date.manipulate", "inputs": "2020-01-31T10:00:00+00:00", "expression": "-1 day +8 hours",
               "to_format": "YYYY-MM-DD HH:mm"}, {"output": "2020-01-30 18:00"}, MANIPULATE),
    # abbreviations sum per unit: '5 months 4 weeks 3 days -1mo' is 4 months, 4 weeks, 3 days.
    C("date", {"transform": "date.manipulate", "inputs": "2020-01-01T00:00:00+00:00",
               "expression": "5 months 4 weeks 3 days -1mo", "to_format": "YYYY-MM-DD"}, {"output": "2020-06-01"},
      PARSING),
]

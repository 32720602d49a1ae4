"""Text transforms (action ``text``; Formatter's backend calls the category ``string``)."""

from __future__ import annotations

from . import (DEFAULT_V2, EXTRACT_EMAIL, EXTRACT_NUMBER, EXTRACT_NUMBER_REGEX, EXTRACT_PATTERN, EXTRACT_URL, GUIDE,
               HELP_TEXTS, LINE_ITEMS, REPLACE_EXPORT, SPLIT, SPLIT_FIELDS, TRUNCATE, WORD_COUNT, FormatterCase,
               backend)

C = FormatterCase
CAPITALIZE = backend("transforms/string/capitalize.py")
TITLECASE = backend("transforms/string/titlecase.py")
PLURALIZE = backend("transforms/string/pluralize.py")
SPLIT_CODE = backend("transforms/string/split.py")
URL_ENCODE = backend("transforms/string/url_encode.py")
URL_DECODE = backend("transforms/string/url_decode.py")
EMAIL_CODE = backend("transforms/string/email_extract.py")
URL_PATTERN = "https://daringfireball.net/2010/07/improved_regex_for_matching_urls"
STRIP_HTML = backend("transforms/string/strip_html.py")
MANY = backend("transforms/base.py")
FIND = backend("transforms/string/find.py")
LENGTH = backend("transforms/string/length.py")

CASES = [
    # "Capitalize: Capitalize the first character of every word."
    C("text", {"transform": "capitalize", "input": "hello big world"}, {"output": "Hello Big World"}, GUIDE),
    # str.title(): the rest of each word lower case, an apostrophe starts a new word.
    C("text", {"transform": "capitalize", "inputs": "hello wORLD, they're here"},
      {"output": "Hello World, They'Re Here"}, CAPITALIZE),
    # "Titlecase: … every word, except for those with fewer than 4 characters."
    C("text", {"transform": "titlecase", "input": "return of the king"}, {"output": "Return of the King"}, GUIDE),
    # the titlecase library: small words capitalized first and last; a word with its own capitals is kept.
    C("string", {"transform": "string.titlecase", "inputs": "what is this for"}, {"output": "What Is This For"},
      TITLECASE),
    C("string", {"transform": "string.titlecase", "inputs": "an iPhone review from the USA"},
      {"output": "An iPhone Review From the USA"}, TITLECASE),
    C("text", {"transform": "uppercase", "input": "Hello World"}, {"output": "HELLO WORLD"}, GUIDE),
    C("text", {"transform": "lowercase", "input": "Hello World"}, {"output": "hello world"}, GUIDE),
    # "Pluralize any English word (eg. frog turns into frogs; child turns into children)."
    C("text", {"transform": "pluralize", "input": "frog"}, {"output": "frogs"}, GUIDE),
    C("text", {"transform": "pluralize", "input": "child"}, {"output": "children"}, GUIDE),
    # inflect's plural of ordinary nouns
    C("string", {"transform": "string.pluralize", "inputs": "box"}, {"output": "boxes"}, PLURALIZE),
    C("string", {"transform": "string.pluralize", "inputs": "city"}, {"output": "cities"}, PLURALIZE),
    C("string", {"transform": "string.pluralize", "inputs": "knife"}, {"output": "knives"}, PLURALIZE),
    # "Replace any character, word or phrase in the text with another character, word or phrase."
    C("text", {"transform": "replace", "input": "red cars and red vans", "old": "red", "new": "blue"},
      {"output": "blue cars and blue vans"}, GUIDE),
    # the params as a real step holds them: {"inputs", "new", "old", "transform": "string.replace"}; mapped line items
    # arrive as a list, and each value is replaced in (none holds a comma here, so the list comes back unaltered).
    C("string", {"inputs": "Hoon Park, Cass Hill", "new": " &", "old": ",", "transform": "string.replace"},
      {"output": "Hoon Park & Cass Hill"}, REPLACE_EXPORT),
    C("string", {"inputs": ["Hoon Park", "Cass Hill"], "new": "&", "old": ",", "transform": "string.replace"},
      {"output": ["Hoon Park", "Cass Hill"]}, REPLACE_EXPORT),
    # a category-prefixed transform key, as an export spells it
    C("string", {"transform": "string.uppercase", "input": "abc"}, {"output": "ABC"}, GUIDE),
    # "Any transform that works on one field value will now work on all values in a line-item field."
    C("text", {"transform": "capitalize", "input": ["apple pie", "banana split"]},
      {"output": ["Apple Pie", "Banana Split"]}, LINE_ITEMS),
    C("text", {"transform": "trim_space", "input": "   padded text  "}, {"output": "padded text"}, HELP_TEXTS),
    # "Truncate … with Ellipsis": the ellipsis counts toward the maximum length.
    C("text", {"transform": "truncate", "input": "Hello wonderful world", "max_length": "5"}, {"output": "Hello"},
      TRUNCATE),
    C("text", {"transform": "truncate", "input": "Hello wonderful world", "max_length": "8", "append_ellipsis": "yes"},
      {"output": "Hello..."}, TRUNCATE),
    C("text", {"transform": "word_count", "input": "the quick brown fox"}, {"output": 4}, WORD_COUNT),
    # "Find the first position of a value in the text, -1 if the value is not found"
    C("string", {"transform": "string.find", "inputs": "abcabc", "find": "c"}, {"output": 2}, FIND),
    C("string", {"transform": "string.find", "inputs": "abcabc", "find": "c", "offset": "3"}, {"output": 5}, FIND),
    C("string", {"transform": "string.find", "inputs": "abc", "find": "z"}, {"output": -1}, FIND),
    # "Count the number of characters in the text"; ignore_whitespace drops every non-word character (\W)
    C("string", {"transform": "string.length", "inputs": "hi there!"}, {"output": 9}, LENGTH),
    C("string", {"transform": "string.length", "inputs": "hi there!", "ignore_whitespace": True}, {"output": 7},
      LENGTH),
    # split: fields input, separator (default: space), index (first, second, last, second to last, all).
    C("text", {"transform": "split", "input": "Jane Q Doe", "index": "first"}, {"output": "Jane"}, SPLIT),
    C("text", {"transform": "split", "input": "Jane Q Doe", "separator": "[:space:]", "index": "last"},
      {"output": "Doe"}, SPLIT),
    C("text", {"transform": "split", "input": "a,b,c,d", "separator": ",", "index": "second to last"},
      {"output": "c"}, SPLIT),
    C("text", {"transform": "split", "input": "a,b,c", "separator": ",", "index": "all"},
      {"output": ["a", "b", "c"]}, SPLIT),
    C("text", {"transform": "split", "input": "line one\nline two", "separator": "[:newline:]", "index": "1"},
      {"output": "line two"}, SPLIT),
    # no separator splits on runs of whitespace (str.split())
    C("string", {"transform": "string.split", "inputs": "Jane   Q\tDoe", "separator": "", "index": "all"},
      {"output": ["Jane", "Q", "Doe"]}, SPLIT_CODE),
    C("string", {"transform": "string.split", "inputs": "a,b", "separator": ",", "index": "5"}, {"output": ""},
      SPLIT_CODE),
    # "All (as separate fields)": "apples,oranges,banaynays" -> {"Item 1": "apples", …}
    C("text", {"transform": "split", "input": "apples,oranges,banaynays", "separator": ",", "index": "fields"},
      {"output": {"Item 1": "apples", "Item 2": "oranges", "Item 3": "banaynays"}}, SPLIT_FIELDS),
    # "Find and copy an email address out of a text field. Finds the first email address only."
    C("text", {"transform": "extract_email", "input": "Write to jane.doe@example.com or bob@example.org"},
      {"output": "jane.doe@example.com"}, EXTRACT_EMAIL),
    C("text", {"transform": "extract_url", "input": "Docs at https://example.com/docs/start. Thanks"},
      {"output": "https://example.com/docs/start"}, EXTRACT_URL),
    # the local part: atom characters with single inner dots, or a quoted string; the domain may end in a dot.
    C("string", {"transform": "string.email_extract", "inputs": "x..y@z.com"}, {"output": "y@z.com"}, EMAIL_CODE),
    C("string", {"transform": "string.email_extract", "inputs": "mail bob@example.org."},
      {"output": "bob@example.org."}, EMAIL_CODE),
    C("string", {"transform": "string.email_extract", "inputs": 'to "a..b"@x.io'}, {"output": '"a..b"@x.io'},
      EMAIL_CODE),
    # Gruber's pattern: no scheme needed after "www."; balanced parentheses stay in the URL.
    C("string", {"transform": "string.url_extract", "inputs": "see www.example.org/a(b) now"},
      {"output": "www.example.org/a(b)"}, URL_PATTERN),
    C("string", {"transform": "string.url_extract", "inputs": "http://foo.com/blah_(wikipedia)#cite-1 ok"},
      {"output": "http://foo.com/blah_(wikipedia)#cite-1"}, URL_PATTERN),
    # "I need 5 things. and something else. ." should give only 5 (the first number).
    C("string", {"transform": "string.number_extract", "inputs": "I need 5 things. and something else. ."},
      {"output": "5"}, EXTRACT_NUMBER),
    # [+-]?[0-9]+(?:,[0-9]+)*(?:\.[0-9]+)? — commas between digits and a decimal part belong to the number, a lone
    # comma is not one, a sentence's full stop is not a decimal point.
    C("text", {"transform": "extract_number", "inputs": "Total due: -1,234.50, thanks"}, {"output": "-1,234.50"},
      EXTRACT_NUMBER_REGEX),
    C("text", {"transform": "extract_number", "inputs": "Yes, no, maybe"}, {"output": ""}, EXTRACT_NUMBER_REGEX),
    C("text", {"transform": "extract_number", "inputs": "It costs 12."}, {"output": "12"}, EXTRACT_NUMBER_REGEX),
    # "Find the first match for a regular expression … Returns all matched groups with start and end position."
    C("text", {"transform": "extract_pattern", "input": "Order #123 shipped", "pattern": r"#(\d+)"},
      {"output": {"0": "123", "_matched": True, "_start": 6, "_end": 10}}, EXTRACT_PATTERN),
    C("text", {"transform": "extract_pattern", "input": "no order here", "pattern": r"#(\d+)"},
      {"output": {"_matched": False}}, EXTRACT_PATTERN),
    # named groups by name as well; a pattern without groups gives the match's position only
    C("string", {"transform": "string.re_extract", "inputs": "from ann@x.io",
                 "pattern": r"(?P<user>\w+)@(?P<host>[\w.]+)"},
      {"output": {"_matched": True, "_start": 5, "_end": 13, "0": "ann", "1": "x.io", "user": "ann", "host": "x.io"}},
      EXTRACT_PATTERN),
    # URL Encode: quote (a "/" kept), or quote_plus with use_plus; URL Decode: unquote / unquote_plus.
    C("string", {"transform": "string.url_encode", "inputs": "a b&c/d"}, {"output": "a%20b%26c/d"}, URL_ENCODE),
    C("string", {"transform": "string.url_encode", "inputs": "a b&c/d", "use_plus": True}, {"output": "a+b%26c%2Fd"},
      URL_ENCODE),
    C("string", {"transform": "string.url_decode", "inputs": "a%20b+c"}, {"output": "a b+c"}, URL_DECODE),
    C("string", {"transform": "string.url_decode", "inputs": "a%20b+c", "use_plus": True}, {"output": "a b c"},
      URL_DECODE),
    # "Default Value: Return a default value if the text is empty."
    C("text", {"transform": "default_value", "input": "", "default_value": "n/a"}, {"output": "n/a"}, HELP_TEXTS),
    C("text", {"transform": "default_value", "input": "given", "default_value": "n/a"}, {"output": "given"},
      HELP_TEXTS),
    # "inputs if inputs is not None and inputs != '' else expand_special_chargroups(default_value)"
    C("string", {"transform": "string.default_value_v2", "inputs": None, "default_value": "none[:space:]given"},
      {"output": "none given"}, DEFAULT_V2),
    # "If a line-item field is provided, a line-item field is returned": each empty value, or [default] for none.
    C("string", {"transform": "string.default_value_v2", "inputs": ["a", "", "c"], "default_value": "-"},
      {"output": ["a", "-", "c"]}, DEFAULT_V2),
    C("string", {"transform": "string.default_value_v2", "inputs": [], "default_value": "-"}, {"output": ["-"]},
      DEFAULT_V2),
    # "… remove HTML …"
    C("text", {"transform": "strip_html", "input": "<p>Hello <b>World</b></p>"}, {"output": "Hello World"}, GUIDE),
    # BeautifulSoup's text once <script> and <style> are taken out; entities decoded.
    C("string", {"transform": "string.strip_html", "inputs": "<style>p{}</style><p>Hi <script>x()</script>you &amp; me</p>"},
      {"output": "Hi you & me"}, STRIP_HTML),
    # "{'first': a, 'second': b} -> {'first': A, 'second': B}"
    C("string", {"transform": "string.uppercase", "inputs": {"first": "a", "second": "b"}},
      {"output": {"first": "A", "second": "B"}}, MANY),
]

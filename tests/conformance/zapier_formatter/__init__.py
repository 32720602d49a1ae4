"""Pinned conformance cases for the Formatter by Zapier runtime (queue_core.compat._zapier_formatter).

Each case is a Formatter step as a Zapfile holds it (the node's ``action`` and its ``params`` after field references
were rendered), the output Zapier shows for it, and the public source that states that behaviour. Zapier has no
runnable oracle here, so these cases are the proof: ``proved.py --write`` turns the passing ones into
``harness/platforms/zapier/formatter_proved.json``.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class FormatterCase(NamedTuple):
    action: str
    params: dict[str, Any]
    expected: dict[str, Any]
    source: str


# The sources the cases cite.
GUIDE = "https://zapier.com/help/doc/how-get-started-formatter-zapier"
LINE_ITEMS = "https://zapier.com/help/how-use-line-items-formatter/"
CREATE_LINE_ITEMS = "https://help.zapier.com/hc/en-us/articles/8496275165709-Create-line-items-in-Zaps"
LOOKUP = "https://zapier.com/help/create/format/create-lookup-tables-in-zaps"
DATE_FIELDS = "https://help.zapier.com/hc/en-us/articles/8496259603341-Different-field-types-in-Zaps"
# Threads of Formatter's backend, Zapier's open `transformer` service (its field names and behaviour).
OUTPUT_KEY = "https://github.com/zapier/transformer/pull/8"
SPLIT = "https://github.com/zapier/transformer/pull/17"
SPLIT_FIELDS = "https://github.com/zapier/transformer/pull/79"
TRUNCATE = "https://github.com/zapier/transformer/pull/47"
WORD_COUNT = "https://github.com/zapier/transformer/pull/58"
EXTRACT_URL = "https://github.com/zapier/transformer/pull/35"
EXTRACT_EMAIL = "https://github.com/zapier/transformer/pull/42"
EXTRACT_NUMBER = "https://github.com/zapier/transformer/issues/40"
EXTRACT_NUMBER_REGEX = "https://github.com/zapier/transformer/pull/77"
EXTRACT_PATTERN = "https://github.com/zapier/transformer/pull/71"
DATE_TOKENS = "https://github.com/zapier/transformer/issues/10"
DATE_UNIX = "https://github.com/zapier/transformer/issues/37"
DATE_ZONES = "https://github.com/zapier/transformer/pull/30"
DATE_MATH = "https://github.com/zapier/transformer/issues/28"
DATE_BLANK = "https://github.com/zapier/transformer/pull/25"
REPLACE_EXPORT = "https://github.com/zapier/transformer/issues/67"
DEFAULT_V2 = "https://github.com/zapier/transformer/pull/105"
MATH_PARAMS = "https://github.com/zapier/transformer/issues/14"
FORMULA = "https://github.com/zapier/transformer/pull/15"
CHOOSE = "https://github.com/zapier/transformer/pull/7"
CHOOSE_INDEX = "https://github.com/zapier/transformer/pull/31"
LINE_ITEMS_TO_TEXT = "https://github.com/zapier/transformer/pull/86"
ITEMIZER_TESTS = "https://github.com/zapier/transformer/pull/87"
# The backend's own source (its transform and help texts, fields and behaviour), by path in zapier/transformer.
BACKEND = "https://github.com/zapier/transformer/blob/master/transformer/"


def backend(path: str) -> str:
    """The public URL of a file of Formatter's backend, e.g. ``backend("transforms/number/math.py")``."""
    return BACKEND + path


# Zapier's transform help texts, as a third-party page that mirrors them word for word (Zapier's own page with them
# is not in the stored corpus): "Default Value: Return a default value if the text is empty …".
HELP_TEXTS = "https://eshop.gitbook.io/app-extensions/formatters/introduction-to-formatters"

"""Formatter by Zapier's Text transforms (``_zapier_formatter``): each a function of the step's rendered params.

What each does is as Zapier's help page (https://zapier.com/help/doc/how-get-started-formatter-zapier) and
Formatter's backend (github.com/zapier/transformer: transformer/transforms/string/*.py and its threads) state it;
``tests/conformance/zapier_formatter`` pins cases per transform with their sources. A list input (a line-item field)
runs the transform on every value, an object on every value of it (the backend's transform_many).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

from ._zapier_formatter_case import capitalize, pluralize, titlecase

Params = dict[str, Any]


def value(params: Params) -> Any:
    """The step's input value: the backend's ``inputs`` field (``input`` also read); missing or null is ""."""
    for key in ("inputs", "input"):
        if key in params:
            found = params[key]
            return "" if found is None else found
    return ""


def as_text(item: Any) -> str:
    """Zapier passes everything as text: a number or a boolean is its text."""
    if item is None:
        return ""
    if isinstance(item, bool):
        return "true" if item else "false"
    return str(item)


def each(fn: Callable[[str, Params], Any]) -> Callable[[Params], dict[str, Any]]:
    """A transform of one text value, made line-item aware, returning ``{"output": …}``: a list is transformed
    value by value into a list, an object value by value into an object (the backend's transform_many)."""
    def run(params: Params) -> dict[str, Any]:
        given = value(params)
        if isinstance(given, list):
            return {"output": [fn(as_text(item), params) for item in given]}
        if isinstance(given, dict):
            return {"output": {key: fn(as_text(item), params) for key, item in given.items()}}
        return {"output": fn(as_text(given), params)}
    return run


def flag(raw: Any) -> bool:
    """A yes/no field as a Zapfile holds it ("yes", "true", "1" or a boolean)."""
    return raw is True or str(raw).strip().lower() in {"yes", "true", "1", "y"}


def integer(raw: Any, field: str) -> int:
    try:
        return int(str(raw).strip())
    except ValueError:
        raise ValueError(f"Formatter field {field!r}: {raw!r} is not a whole number") from None


# Formatter's codes for whitespace in a field (zapier/transformer#86: "[:space:]" and "[:s:]" are a space).
_SPECIAL = {"[:space:]": " ", "[:s:]": " ", "[:newline:]": "\n", "[:n:]": "\n", "[:return:]": "\r", "[:r:]": "\r",
            "[:tab:]": "\t", "[:t:]": "\t"}


def special(raw: Any) -> str:
    """A separator or search text with Formatter's codes for whitespace (``[:space:]``, ``[:newline:]`` …)."""
    out = as_text(raw)
    for code, char in _SPECIAL.items():
        out = out.replace(code, char)
    return out


def _replace(text: str, params: Params) -> str:
    # Replace (transformer/transforms/string/replace.py): every occurrence of "old" by "new", both with the
    # whitespace codes; an empty text or an empty "old" gives "".
    old = special(params.get("old", params.get("find", "")))
    new = special(params.get("new", params.get("replace", "")))
    return text.replace(old, new) if text and old else ""


def _find(text: str, params: Params) -> int:
    # Find (transformer/transforms/string/find.py): "the first position of a value in the text, -1 if the value
    # is not found", searching from "offset" (a whole number, else an error).
    needle = as_text(params.get("find", ""))
    offset = integer(params["offset"], "offset") if str(params.get("offset", "")).strip() else 0
    return text.find(needle, offset) if text and needle else -1


def _length(text: str, params: Params) -> int:
    # Length (transformer/transforms/string/length.py): characters in the text; with ignore_whitespace every
    # character that is not a letter, digit or underscore is left out of the count (the backend's \W).
    return len(re.sub(r"\W", "", text) if flag(params.get("ignore_whitespace")) else text)


def _truncate(text: str, params: Params) -> str:
    # The first max_length characters (after skipping "offset" ones); with append_ellipsis a text that was cut ends
    # in "..." within the same length (zapier/transformer#47).
    limit = integer(params.get("max_length", ""), "max_length")
    offset = integer(params["offset"], "offset") if str(params.get("offset", "")).strip() else 0
    if not text or limit <= 0:
        return ""
    short = text[offset:limit] if offset else text[:limit]
    if flag(params.get("append_ellipsis")) and len(short) != len(text) and len(short) > 3:
        short = short[:-3] + "..."
    return short


def _split(text: str, params: Params) -> Any:
    # Split Text (transformer/transforms/string/split.py): an empty text gives ""; no separator splits on runs of
    # whitespace (str.split()); index 0/1/-1/-2/… , "all" (line items) or "fields" ("Item 1", "Item 2" …).
    if not text:
        return ""
    separator = special(params.get("separator", ""))
    segments = text.split(separator) if separator else text.split()
    index = str(params.get("index", "0")).strip().lower()
    index = {"first": "0", "second": "1", "last": "-1", "second to last": "-2", "second_to_last": "-2",
             "all (as line items)": "all", "all (as separate fields)": "fields", "": "0"}.get(index, index)
    if index == "all":
        return segments
    if index == "fields":
        return {f"Item {i}": segment for i, segment in enumerate(segments, 1)}
    try:
        position = int(index)
    except ValueError:  # the backend reads an index it cannot parse as 0, the first segment
        position = 0
    return segments[position] if -len(segments) <= position < len(segments) else ""


# Extract Email Address (transformer/transforms/string/email_extract.py): a local part that is a quoted string or
# the RFC's atom characters with single inner dots, "@", then an IPv4 literal or a domain "label.rest" whose rest
# may hold dots and hyphens (so a full stop right after the address is kept with it).
_EMAIL = re.compile(r"""(?:"[A-Za-z0-9!#$%&'*/=?^_`{|}~+.,)(><-]+"|(?!\.)(?:[A-Za-z0-9!#$%&'*/=?^_`{|}~+-]|(?<!\.)\.)+(?<!\.))"""
                    r"@(?:\[?[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\]?|[A-Za-z0-9-]+\.[A-Za-z0-9.-]+)")
# "[+-]?[0-9]+(?:,[0-9]+)*(?:\.[0-9]+)?" — the first number, thousands commas and decimals kept (zapier/transformer#77).
_NUMBER = re.compile(r"[+-]?[0-9]+(?:,[0-9]+)*(?:\.[0-9]+)?")
# Extract URL: John Gruber's liberal URL pattern (daringfireball.net/2010/07/improved_regex_for_matching_urls),
# which the backend uses: a scheme, "www.", or "domain.tld/", then the URL up to a closing punctuation mark.
_URL = re.compile(r"""(?i)\b((?:[a-z][\w-]+:(?:/{1,3}|[a-z0-9%])|www\d{0,3}[.]|[a-z0-9.\-]+[.][a-z]{2,4}/)"""
                  r"""(?:[^\s()<>]+|\(([^\s()<>]+|(\([^\s()<>]+\)))*\))+"""
                  r"""(?:\(([^\s()<>]+|(\([^\s()<>]+\)))*\)|[^\s`!()\[\]{};:'".,<>?«»“”‘’]))""")


def _first(pattern: re.Pattern[str]) -> Callable[[str, Params], str]:
    def find(text: str, _: Params) -> str:
        match = pattern.search(text)
        return match.group(0) if match else ""
    return find


def _extract_pattern(text: str, params: Params) -> dict[str, Any]:
    # Extract Pattern (the backend's re_extract): the first match of a Python regular expression — "_matched",
    # its "_start" and "_end", each group by its number from 0 and each named group by its name; no match (or an
    # empty text) gives only "_matched": false.
    try:
        pattern = re.compile(as_text(params.get("pattern", "")))
    except re.error as exc:
        raise ValueError(f"Formatter field 'pattern': not a regular expression ({exc})") from None
    match = pattern.search(text) if text else None
    if match is None:
        return {"_matched": False}
    out: dict[str, Any] = {"_matched": True, "_start": match.start(), "_end": match.end()}
    out.update({str(i): group for i, group in enumerate(match.groups())})
    out.update(match.groupdict())
    return out


def _default_value(params: Params) -> dict[str, Any]:
    # "Return a default value if the text is empty. If a line-item field is provided, a line-item field is
    # returned": each empty value of a list is defaulted, an empty list gives [default]; the default may use the
    # whitespace codes (zapier/transformer#105).
    default = special(params.get("default_value", params.get("default", "")))
    given = value(params) if any(k in params for k in ("input", "inputs")) else ""
    if isinstance(given, list):
        return {"output": [item if item not in (None, "") else default for item in given] or [default]}
    return {"output": given if given not in (None, "") else default}


class _ZapierTagStripper(HTMLParser):
    """The text of an HTML document, without what <script> and <style> hold (BeautifulSoup's get_text after
    extracting them, as the backend does)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "style"}:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"} and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def _url(encode: bool) -> Callable[[str, Params], str]:
    # URL Encode / Decode: percent-encoding, "/" kept; with use_plus a space is "+" (quote_plus / unquote_plus).
    def run(text: str, params: Params) -> str:
        plus = flag(params.get("use_plus"))
        if encode:
            return quote_plus(text) if plus else quote(text)
        return unquote_plus(text) if plus else unquote(text)
    return run


def _strip_html(text: str, _: Params) -> str:
    parser = _ZapierTagStripper()
    parser.feed(text)
    parser.close()
    return "".join(parser.parts)


TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "capitalize": each(lambda text, _: capitalize(text)),
    "titlecase": each(lambda text, _: titlecase(text)),
    "uppercase": each(lambda text, _: text.upper()),
    "lowercase": each(lambda text, _: text.lower()),
    "pluralize": each(lambda text, _: pluralize(text)),
    "replace": each(_replace),
    "trim_space": each(lambda text, _: text.strip()),
    "truncate": each(_truncate),
    "word_count": each(lambda text, _: len(text.split())),
    "find": each(_find),
    "length": each(_length),
    "split": each(_split),
    "extract_email": each(_first(_EMAIL)),
    "extract_url": each(_first(_URL)),
    "extract_number": each(_first(_NUMBER)),
    "extract_pattern": each(_extract_pattern),
    "default_value": _default_value,
    "strip_html": each(_strip_html),
    "url_encode": each(_url(True)),
    "url_decode": each(_url(False)),
}

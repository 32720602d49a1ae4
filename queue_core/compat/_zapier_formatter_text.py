"""Formatter by Zapier's Text transforms (``_zapier_formatter``): each a function of the step's rendered params.

What each does is as Zapier's help page (https://zapier.com/help/doc/how-get-started-formatter-zapier) and
Formatter's backend threads (github.com/zapier/transformer) state it; ``tests/conformance/zapier_formatter`` pins a
case per transform with its source. A list input (a line-item field) runs the transform on every value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

Params = dict[str, Any]


def value(params: Params) -> Any:
    """The step's input value: Formatter's ``input`` field (``inputs`` in some exports); missing is empty text."""
    for key in ("input", "inputs"):
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
    """A transform of one text value, made line-item aware, returning ``{"output": …}``."""
    def run(params: Params) -> dict[str, Any]:
        given = value(params)
        if isinstance(given, list):
            return {"output": [fn(as_text(item), params) for item in given]}
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


def _capitalize(text: str, _: Params) -> str:
    # "Capitalize the first character of every word" — the rest of each word is left as it is.
    return re.sub(r"(^|\s)(\S)", lambda m: m.group(1) + m.group(2).upper(), text)


def _titlecase(text: str, _: Params) -> str:
    # "Capitalize the first character of every word, except for those with fewer than 4 characters"; the first
    # word of the text is capitalized whatever its length (a title starts with a capital).
    def word(m: re.Match[str]) -> str:
        token = m.group(0)
        if m.start() > 0 and len(token) < 4:
            return token.lower()
        return token[0].upper() + token[1:]
    return re.sub(r"[^\s]+", word, text)


_IRREGULAR = {"person": "people", "man": "men", "woman": "women", "child": "children", "mouse": "mice",
              "louse": "lice", "goose": "geese", "foot": "feet", "tooth": "teeth", "ox": "oxen", "move": "moves"}
_UNCOUNTABLE = {"equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "deer",
                "jeans", "police", "news"}
_RULES = [  # English plural rules, the last that matches wins (the common inflection rule set)
    (r"$", "s"), (r"s$", "s"), (r"^(ax|test)is$", r"\1es"), (r"(octop|vir)us$", r"\1i"), (r"(alias|status)$", r"\1es"),
    (r"(bu)s$", r"\1ses"), (r"(buffal|tomat|potat|her|ech)o$", r"\1oes"), (r"([ti])um$", r"\1a"), (r"sis$", "ses"),
    (r"(?:([^f])fe|([lr])f)$", r"\1\2ves"), (r"(hive)$", r"\1s"), (r"([^aeiouy]|qu)y$", r"\1ies"),
    (r"(x|ch|ss|sh|z)$", r"\1es"), (r"(matr|vert|ind)(?:ix|ex)$", r"\1ices"), (r"(quiz)$", r"\1zes"),
]


def _plural_word(word: str) -> str:
    lower = word.lower()
    if not lower or lower in _UNCOUNTABLE:
        return word
    if lower in _IRREGULAR:
        out = _IRREGULAR[lower]
    else:
        out = lower
        for pattern, repl in reversed(_RULES):
            if re.search(pattern, lower):
                out = re.sub(pattern, repl, lower, count=1)
                break
    if word.isupper() and len(word) > 1:
        return out.upper()
    return out[0].upper() + out[1:] if word[0].isupper() else out


def _pluralize(text: str, _: Params) -> str:
    # "Pluralize any English word (eg. frog turns into frogs; child turns into children)": the last word of the text.
    match = re.search(r"([A-Za-z]+)(\W*)$", text)
    if not match:
        return text
    return text[:match.start()] + _plural_word(match.group(1)) + match.group(2)


def _replace(text: str, params: Params) -> str:
    old = special(params.get("old", params.get("find", "")))
    new = special(params.get("new", params.get("replace", "")))
    return text.replace(old, new) if old else text


def _truncate(text: str, params: Params) -> str:
    limit = integer(params.get("max_length", ""), "max_length")
    if len(text) <= limit:
        return text
    if flag(params.get("append_ellipsis")):
        return text[:max(limit - 3, 0)] + "..."
    return text[:limit]


def _split(text: str, params: Params) -> Any:
    separator = special(params.get("separator", "")) or " "
    segments = text.split(separator)
    index = str(params.get("index", "0")).strip().lower()
    index = {"first": "0", "second": "1", "last": "-1", "second to last": "-2", "second_to_last": "-2",
             "all (as line items)": "all", "all (as separate fields)": "fields", "": "0"}.get(index, index)
    if index == "all":
        return segments
    if index == "fields":
        return {f"Item {i}": segment for i, segment in enumerate(segments, 1)}
    position = integer(index, "index")
    return segments[position] if -len(segments) <= position < len(segments) else ""


_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
                    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+")
# "[+-]?[0-9]+(?:,[0-9]+)*(?:\.[0-9]+)?" — the first number, thousands commas and decimals kept (zapier/transformer#77).
_NUMBER = re.compile(r"[+-]?[0-9]+(?:,[0-9]+)*(?:\.[0-9]+)?")
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"']+[^\s<>\"'.,;:!?)\]]")


def _first(pattern: re.Pattern[str]) -> Callable[[str, Params], str]:
    def find(text: str, _: Params) -> str:
        match = pattern.search(text)
        return match.group(0) if match else ""
    return find


def _extract_pattern(text: str, params: Params) -> dict[str, Any]:
    # "Find the first match for a regular expression … Returns all matched groups with start and end position"
    # (zapier/transformer#71), a Python regular expression.
    try:
        pattern = re.compile(as_text(params.get("pattern", "")))
    except re.error as exc:
        raise ValueError(f"Formatter field 'pattern': not a regular expression ({exc})") from None
    match = pattern.search(text)
    if match is None:
        return {"_matched": False}
    out: dict[str, Any] = {}
    groups = match.groups()
    if groups:
        out.update({str(i): group for i, group in enumerate(groups)})
    else:
        out["0"] = match.group(0)
    out.update(match.groupdict())
    out.update({"_matched": True, "_start": match.start(), "_end": match.end()})
    return out


def _default_value(text: str, params: Params) -> str:
    # "Return a default value if the text is empty." — the default may use the whitespace codes (zapier/transformer#105).
    return text if text != "" else special(params.get("default_value", params.get("default", "")))


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _strip_html(text: str, _: Params) -> str:
    parser = _Text()
    parser.feed(text)
    parser.close()
    return "".join(parser.parts)


TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "capitalize": each(_capitalize),
    "titlecase": each(_titlecase),
    "uppercase": each(lambda text, _: text.upper()),
    "lowercase": each(lambda text, _: text.lower()),
    "pluralize": each(_pluralize),
    "replace": each(_replace),
    "trim_space": each(lambda text, _: text.strip()),
    "truncate": each(_truncate),
    "word_count": each(lambda text, _: len(text.split())),
    "split": each(_split),
    "extract_email": each(_first(_EMAIL)),
    "extract_url": each(_first(_URL)),
    "extract_number": each(_first(_NUMBER)),
    "extract_pattern": each(_extract_pattern),
    "default_value": each(_default_value),
    "strip_html": each(_strip_html),
}

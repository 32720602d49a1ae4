"""Formatter by Zapier's case transforms (``_zapier_formatter_text``): Capitalize, Titlecase and Pluralize.

Formatter's backend (github.com/zapier/transformer, transformer/transforms/string/) does them with Python's
``str.title`` (Capitalize: "Capitalize the first character of every word", the rest lowered), the ``titlecase``
library (Titlecase: small words such as "of", "the", "a" stay lower case except first and last — the help page's
"except for those with fewer than 4 characters") and the ``inflect`` library's ``plural`` (Pluralize: "frog turns
into frogs; child turns into children"). Those libraries are no dependency of queue_core; the rules below are the
ones they apply to ordinary English words and titles (their long tails of rare words are not reproduced).
"""

from __future__ import annotations

import re

_PUNCT = r"""!"#$%&'‘()*+,\-./:;?@[\\\]_`{|}~"""
_SMALL = r"a|an|and|as|at|but|by|en|for|if|in|of|on|or|the|to|v\.?|via|vs\.?"
_SMALL_WORD = re.compile(rf"^(?:{_SMALL})$", re.I)
_SMALL_FIRST = re.compile(rf"^([{_PUNCT}]*)({_SMALL})\b", re.I)
_SMALL_LAST = re.compile(rf"\b({_SMALL})([{_PUNCT}]?)$", re.I)
_SUBPHRASE = re.compile(rf"([:.;?!][ ])({_SMALL})", re.I)
_UC_INITIALS = re.compile(r"^(?:[A-Z]\.|[A-Z]\.[A-Z])+$")
_INLINE_PERIOD = re.compile(r"[\w][.][\w]")
_UC_ELSEWHERE = re.compile(rf"^[{_PUNCT}]*?[a-zA-Z]+[A-Z]+?")
_CAPFIRST = re.compile(rf"^([{_PUNCT}]*?)([A-Za-z])")


def capitalize(text: str) -> str:
    """Formatter's Capitalize: every word's first letter upper case, the rest lower (Python's ``str.title``)."""
    return text.title()


def _cap_first(word: str) -> str:
    return _CAPFIRST.sub(lambda m: m.group(1) + m.group(2).upper(), word, count=1)


def _title_word(word: str, all_caps: bool) -> str:
    if all_caps and _UC_INITIALS.match(word):
        return word
    if _INLINE_PERIOD.search(word) or (not all_caps and _UC_ELSEWHERE.match(word)):
        return word
    if _SMALL_WORD.match(word):
        return word.lower()
    if "/" in word and "//" not in word:
        return "/".join(_title_word(part, all_caps) for part in word.split("/"))
    if "-" in word:
        return "-".join(titlecase(part) for part in word.split("-"))
    if all_caps:
        word = word.lower()
    return _cap_first(word)


def titlecase(text: str) -> str:
    """Formatter's Titlecase: every word capitalized except small words inside the title; words that carry their
    own capitals ("iPhone") or a period ("example.com") are left as written; an all-caps line is recased."""
    lines = []
    for line in re.split(r"[\r\n]+", text):
        all_caps = line.upper() == line
        words = [_title_word(word, all_caps) if word else word for word in re.split(r"[\t ]", line)]
        result = " ".join(words)
        result = _SMALL_FIRST.sub(lambda m: m.group(1) + _cap_first(m.group(2)), result)
        result = _SMALL_LAST.sub(lambda m: _cap_first(m.group(1)) + m.group(2), result)
        result = _SUBPHRASE.sub(lambda m: m.group(1) + _cap_first(m.group(2)), result)
        lines.append(result)
    return "\n".join(lines)


_UNCOUNTABLE = {"bison", "deer", "equipment", "fish", "information", "moose", "money", "news", "rice", "salmon",
                "series", "sheep", "species", "swine", "trout"}
_IRREGULAR = {"child": "children", "foot": "feet", "goose": "geese", "louse": "lice", "man": "men", "mouse": "mice",
              "ox": "oxen", "person": "people", "tooth": "teeth", "woman": "women", "quiz": "quizzes",
              "thief": "thieves", "loaf": "loaves"}
_MAN_PLURAL_S = {"human", "german", "roman", "shaman", "talisman", "caiman", "ottoman"}
_OES = {"buffalo", "domino", "echo", "embargo", "hero", "mosquito", "potato", "tomato", "torpedo", "veto",
        "volcano", "tornado"}


def _plural_lower(word: str) -> str:
    if word in _UNCOUNTABLE:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("man") and word not in _MAN_PLURAL_S:
        return word[:-3] + "men"
    if re.search(r"(?:s|sh|ch|x|z)$", word) and not word.endswith("is"):
        return word + "es"
    if word.endswith("is") and len(word) > 3:
        return word[:-2] + "es"  # analysis -> analyses, crisis -> crises
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if word.endswith("lf"):
        return word[:-1] + "ves"  # wolf, half, shelf, self
    if word.endswith("ife"):
        return word[:-2] + "ves"  # knife, wife, life
    if word.endswith("eaf"):
        return word[:-1] + "ves"  # leaf, sheaf
    if word.endswith("o") and word in _OES:
        return word + "es"
    return word + "s"


def plural_word(word: str) -> str:
    """The plural of one English word, with its capitals kept (Child -> Children, BOX -> BOXES)."""
    out = _plural_lower(word.lower())
    if word.isupper() and len(word) > 1:
        return out.upper()
    return out[0].upper() + out[1:] if word[:1].isupper() else out


def pluralize(text: str) -> str:
    """Formatter's Pluralize: the plural of the text's last word (a noun phrase's head), the rest kept."""
    match = re.search(r"([A-Za-z]+)(\W*)$", text)
    if not match:
        return text
    return text[:match.start()] + plural_word(match.group(1)) + match.group(2)

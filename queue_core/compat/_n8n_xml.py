"""XML read as n8n's RSS Read node reads it: the object tree ``xml2js`` (0.5, its defaults) builds.

``rss-parser`` (the library n8n's node parses feeds with) hands the text to ``xml2js`` with its
default options, so every element is an object whose children are *lists* under their tag name as
written (``dc:creator``: no namespace processing), its attributes a dict under ``$`` and its text
under ``_``; an element with text only is that text, an empty one ``""`` (or the whitespace it
held), and whitespace between child elements is dropped unless it was CDATA. :func:`tree` builds
that shape with the standard library's expat parser; entity declarations are refused (the guard
``defusedxml`` applies: no entity expansion bombs, no external entities), and an undefined entity
such as ``&nbsp;`` fails the parse as sax's strict mode fails it. :func:`build` writes a tree back as
``xml2js.Builder`` does (headless, not pretty), for Atom content given as markup.
"""

from __future__ import annotations

import re
from typing import Any
from xml.parsers import expat

from ..errors import NodeFailed

# JavaScript's \s (what xml2js tests text with), wider than Python's: U+FEFF is one.
_JS_BLANK = re.compile("^[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*$")
_DANGEROUS = frozenset({"__proto__", "constructor", "prototype"})  # n8n's sanitizeXmlName


def _name(name: str) -> str:
    return f"sanitized_{name}" if name in _DANGEROUS else name


class _TreeBuilder:
    """Expat's events turned into xml2js's objects (one stack frame per open element)."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, dict[str, Any], list[bool]]] = []
        self.root: dict[str, Any] | None = None
        self.in_cdata = False

    def start(self, name: str, attributes: dict[str, str]) -> None:
        node: dict[str, Any] = {"_": ""}  # xml2js makes the text key first: it keeps that place
        if attributes:
            node["$"] = {_name(k): v for k, v in attributes.items()}
        self.stack.append((_name(name), node, [False]))

    def text(self, data: str) -> None:
        if self.stack:
            self.stack[-1][1]["_"] += data
            if self.in_cdata:
                self.stack[-1][2][0] = True

    def cdata(self) -> None:
        self.in_cdata = True
        if self.stack:
            self.stack[-1][2][0] = True

    def cdata_end(self) -> None:
        self.in_cdata = False

    def end(self, _: str) -> None:
        name, node, cdata = self.stack.pop()
        value: Any = node
        empty_text = ""
        if _JS_BLANK.match(node["_"]) and not cdata[0]:
            empty_text = node.pop("_")
        elif len(node) == 1:
            value = node["_"]
        if isinstance(value, dict) and not value:
            value = empty_text
        if self.stack:
            self.stack[-1][1].setdefault(name, []).append(value)
        else:
            self.root = {name: value}


def _refuse(*_: Any) -> int:
    raise NodeFailed("the feed declares XML entities: refused (entity expansion is not read)")


def tree(text: str) -> dict[str, Any]:
    """Return the xml2js object of ``text`` (``{root tag: element}``); raise NodeFailed when it is not XML."""
    builder = _TreeBuilder()
    parser = expat.ParserCreate()  # no namespace processing: names stay as written, xmlns among attributes
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _refuse
    parser.UnparsedEntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.text
    parser.StartCdataSectionHandler = builder.cdata
    parser.EndCdataSectionHandler = builder.cdata_end
    try:
        parser.Parse(text.lstrip("\ufeff").lstrip(), True)  # xml2js strips a BOM; sax skips leading blanks
    except expat.ExpatError as exc:
        raise NodeFailed(f"the feed is not XML: {exc}") from None
    if builder.root is None:
        raise NodeFailed("Unable to parse XML.")
    return builder.root


def _escape(text: str, attribute: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    if attribute:
        return text.replace('"', "&quot;").replace("\t", "&#x9;").replace("\n", "&#xA;").replace("\r", "&#xD;")
    return text.replace(">", "&gt;").replace("\r", "&#xD;")


def _element(name: str, value: Any) -> str:
    if isinstance(value, list):
        return "".join(_element(name, v) for v in value)
    if not isinstance(value, dict):
        text = "" if value is None else str(value)
        return f"<{name}>{_escape(text)}</{name}>" if text else f"<{name}/>"
    attributes = "".join(f' {k}="{_escape(str(v), True)}"' for k, v in (value.get("$") or {}).items())
    inner = "".join(_escape(str(v)) if k == "_" else _element(k, v) for k, v in value.items() if k != "$")
    return f"<{name}{attributes}>{inner}</{name}>" if inner else f"<{name}{attributes}/>"


def build(value: Any, root: str = "div") -> str:
    """Return ``value`` written as xml2js's Builder writes it (headless, compact), under ``root``."""
    return _element(root, value)

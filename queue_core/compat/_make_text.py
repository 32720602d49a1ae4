"""Make's Text parser, JSON and webhook-reply modules at run time (``regexp:*``, ``json:CreateJSON``,
``gateway:WebhookRespond``).

- ``match_pattern``: "Match pattern" (``regexp:Parser``). One bundle per match (the first only
  unless *Global match*): ``$1``, ``$2``, … the capture groups (a group that took no part is
  left out), each named group under its name, ``i`` the match's number (from 1) and
  ``__IMTMATCH__`` ("Fallback match") the whole match. *Case sensitive* off is the ``i`` flag,
  *Multiline* ``m``, *Singleline* ``s``. No match: no bundle (the route stops there), or one
  empty bundle when *Continue the execution of the route even if the module finds no matches* is on.
  The pattern is JavaScript's: ``(?<name>…)`` is read as Python's ``(?P<name>…)``.
- ``replace``: "Replace" (``regexp:Replace``): ``$1``/``$&`` in the new value; output ``text``.
- ``html_to_text``: "HTML to text": the text of the HTML as the html-to-text formatter writes it
  (blocks on their own lines, a blank line between paragraphs, list items `` * ``, a link as
  ``text [href]``, headings upper-cased when asked); output ``text``.
- ``create_json``: "Create JSON": the data structure's fields, each converted to its type, written
  as ``JSON.stringify`` writes it (``space``: the indentation); output ``json``.
- ``switch``: "Switch" (``util:Switcher``): the first case whose pattern is the input (a regular
  expression it matches, with *Use regular expressions to match*) gives the ``output``, else the
  *Else* output.
- ``transform_json``: "Transform to JSON": the mapped value as JSON text; output ``json``.
- ``respond``: "Webhook response": ``ctx.respond(status, body, headers)``; outputs nothing.
"""

from __future__ import annotations

import html as htmllib
import json as jsonlib
import re
from html.parser import HTMLParser
from typing import Any

from ..errors import ModuleFailed
from ._make_filter import number, text

__all__ = ["create_json", "html_to_text", "match_pattern", "replace", "respond", "stringify", "switch", "transform_json",
           "typed_fields"]


def _compile(pattern: Any, *, sensitive: bool = True, multiline: bool = False, singleline: bool = False,
             module: str = "") -> re.Pattern[str]:
    source = re.sub(r"\(\?<(?![=!])", "(?P<", text(pattern))
    flags = (0 if sensitive else re.I) | (re.M if multiline else 0) | (re.S if singleline else 0)
    try:
        return re.compile(source, flags)
    except re.error as exc:
        raise ModuleFailed(f"{module}: the pattern {text(pattern)!r} is not a regular expression here ({exc})") from None


def match_pattern(value: Any, pattern: Any, *, global_match: bool = False, sensitive: bool = True,
                  multiline: bool = False, singleline: bool = False, continue_when_none: bool = False,
                  module: str = "") -> list[dict[str, Any]]:
    """Return "Match pattern"'s bundles for ``value`` (see the module docstring)."""
    regex = _compile(pattern, sensitive=sensitive, multiline=multiline, singleline=singleline, module=module)
    subject = text(value)
    found = list(regex.finditer(subject)) if global_match else [m for m in [regex.search(subject)] if m]
    bundles: list[dict[str, Any]] = []
    for index, match in enumerate(found, 1):
        bundle: dict[str, Any] = {}
        for group in range(1, (regex.groups or 0) + 1):
            if match.group(group) is not None:
                bundle[f"${group}"] = match.group(group)
        for name in regex.groupindex:
            if match.group(name) is not None:
                bundle[name] = match.group(name)
        bundle["i"] = index
        bundle["__IMTMATCH__"] = match.group(0)
        bundles.append(bundle)
    if not bundles and continue_when_none:
        return [{}]
    return bundles


def replace(value: Any, pattern: Any, new: Any, *, global_match: bool = False, sensitive: bool = True,
            multiline: bool = False, singleline: bool = False, module: str = "") -> dict[str, str]:
    """Return "Replace"'s bundle: ``{"text": …}`` with the matches replaced (``$1``, ``$&`` in ``new``)."""
    regex = _compile(pattern, sensitive=sensitive, multiline=multiline, singleline=singleline, module=module)

    def substitute(match: re.Match[str]) -> str:
        def group(ref: re.Match[str]) -> str:
            token = ref.group(1)
            if token == "$":
                return "$"
            if token == "&":
                return match.group(0)
            n = int(token)
            return (match.group(n) or "") if n <= (regex.groups or 0) else ref.group(0)

        return re.sub(r"\$(\$|&|\d{1,2})", group, text(new))

    return {"text": regex.sub(substitute, text(value), count=0 if global_match else 1)}


_BLOCKS = {"p": 2, "div": 1, "h1": 2, "h2": 2, "h3": 2, "h4": 2, "h5": 2, "h6": 2, "ul": 2, "ol": 2, "li": 1,
           "table": 2, "tr": 1, "blockquote": 2, "pre": 2, "section": 1, "article": 1, "header": 1, "footer": 1,
           "nav": 1, "main": 1, "aside": 1, "form": 1, "hr": 2, "dl": 2, "dt": 1, "dd": 1, "figure": 1}
_SKIP = {"script", "style", "head", "title", "noscript", "template", "svg"}
_NEWLINES = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}


class _MakeTextParser(HTMLParser):
    """Collect the text of an HTML document as html-to-text lays it out."""

    def __init__(self, uppercase_headings: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.upper = uppercase_headings
        self.lines: list[str] = [""]
        self.breaks = 0  # line breaks wanted before the next text
        self.skip = 0
        self.heading = 0
        self.links: list[str | None] = []
        self.link_text: list[str] = []
        self.pre = 0

    def _want(self, count: int) -> None:
        if self.lines != [""]:
            self.breaks = max(self.breaks, count)

    def _write(self, chunk: str, prefix: bool = False) -> None:
        if self.links and self.links[-1] is not None:
            self.link_text.append(chunk)
        if self.heading and self.upper:
            chunk = chunk.upper()
        if self.breaks:
            self.lines[-1] = self.lines[-1].rstrip(" ")
            self.lines += [""] * self.breaks
            self.breaks = 0
        if self.lines[-1] in ("", " * ") and not self.pre and not prefix:  # a line starts with its text
            chunk = chunk.lstrip(" ")
        self.lines[-1] += chunk

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
        elif tag == "br":
            self.lines[-1] = self.lines[-1].rstrip(" ")
            self.lines.append("")
        elif tag in _BLOCKS:
            self._want(_BLOCKS[tag])
            if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                self.heading += 1
            if tag == "pre":
                self.pre += 1
            if tag == "li":
                self._write(" * ", prefix=True)
        elif tag == "a":
            self.links.append(dict(attrs).get("href"))
            self.link_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCKS:
            if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                self.heading = max(0, self.heading - 1)
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            self._want(_BLOCKS[tag])
        elif tag == "a" and self.links:
            href = self.links.pop()
            shown = "".join(self.link_text).strip()
            if href and not href.startswith(("#", "mailto:", "javascript:")) and href != shown:
                self._write(f" [{href}]" if shown else f"[{href}]")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        chunk = data if self.pre else re.sub(r"\s+", " ", data)
        if chunk.strip() or (chunk and self.lines[-1] and not self.lines[-1].endswith(" ")):
            self._write(chunk)


def html_to_text(value: Any, *, newline: str = "lf", uppercase_headings: bool = True) -> dict[str, str]:
    """Return "HTML to text"'s bundle ``{"text": …}`` (see the module docstring)."""
    parser = _MakeTextParser(uppercase_headings)
    parser.feed(text(value))
    parser.close()
    lines = [line.rstrip(" ") for line in parser.lines]
    while lines and lines[-1] == "":
        lines.pop()
    return {"text": _NEWLINES.get(newline, "\n").join(lines)}


_TYPES = ("text", "number", "boolean", "date", "array", "collection", "any", "integer", "uinteger")


def _typed(value: Any, spec: dict[str, Any], module: str) -> Any:
    kind = spec.get("type")
    if value is None or value == "":
        return None if kind != "text" else value
    if kind in ("number", "integer", "uinteger"):
        parsed = number(value)
        if parsed is None:
            raise ModuleFailed(f"{module}: {spec.get('name')!r} = {text(value)!r} is not a number")
        return int(parsed) if parsed == parsed.to_integral_value() else float(parsed)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        return text(value).strip().lower() in ("true", "1", "yes")
    if kind == "text":
        return text(value) if not isinstance(value, str) else value
    if kind == "array" and isinstance(value, list):
        inner = spec.get("spec")
        if isinstance(inner, dict):
            return [_typed(v, inner, module) for v in value]
        if isinstance(inner, list):
            return [typed_fields(v, inner, module) if isinstance(v, dict) else v for v in value]
        return value
    if kind == "collection" and isinstance(value, dict) and isinstance(spec.get("spec"), list):
        return typed_fields(value, spec["spec"], module)
    return value


def typed_fields(values: dict[str, Any], spec: list[dict[str, Any]], module: str = "") -> dict[str, Any]:
    """Return ``values`` with each field of the data structure ``spec`` converted to its type, in the
    structure's order (fields the structure does not list are dropped, as Make's form has none)."""
    out: dict[str, Any] = {}
    for field in spec:
        name = field.get("name")
        if isinstance(name, str) and name in values:
            out[name] = _typed(values[name], field, module)
    return out


def create_json(values: dict[str, Any], spec: list[dict[str, Any]] | None, *, space: Any = "",
                module: str = "") -> dict[str, str]:
    """Return "Create JSON"'s bundle ``{"json": …}``: the fields (typed by ``spec``) as JSON text."""
    data = typed_fields(values, spec, module) if spec else values
    return {"json": stringify(data, space)}


def switch(value: Any, cases: list[tuple[Any, Any]], otherwise: Any = None, *, regexp: bool = False,
           module: str = "") -> dict[str, Any]:
    """Return "Switch"'s bundle ``{"output": …}``: the output of the first case whose pattern equals the
    input (or, with "Use regular expressions to match", whose pattern the input matches), else ``otherwise``."""
    subject = text(value)
    for pattern, output in cases:
        if (_compile(pattern, module=module).search(subject) is not None) if regexp else text(pattern) == subject:
            return {"output": output}
    return {"output": otherwise}


def transform_json(value: Any, *, space: Any = "") -> dict[str, str]:
    """Return "Transform to JSON"'s bundle ``{"json": …}``: the mapped value as JSON text."""
    return {"json": stringify(value, space)}


def stringify(data: Any, space: Any = "") -> str:
    """Return ``JSON.stringify(data, null, space)``: compact, or indented by ``2``/``4`` spaces or a ``tab``."""
    indent = text(space)
    width: int | str | None = None
    if indent:
        width = "\t" if indent == "tab" else int(indent) if indent.isdigit() else indent
    if width in (0, None, ""):
        return jsonlib.dumps(data, separators=(",", ":"), ensure_ascii=False, default=text)
    return jsonlib.dumps(data, indent=width, ensure_ascii=False, default=text)


async def respond(ctx: Any, status: Any, body: Any, headers: list[tuple[Any, Any]], *, module: str = "") -> dict[str, Any]:
    """"Webhook response": answer the webhook that started the run; its (empty) bundle."""
    code = number(status)
    if code is None or not 100 <= code <= 599:
        raise ModuleFailed(f"{module}: the status {text(status)!r} is not an HTTP status")
    sent = {text(k): text(v) for k, v in headers if text(k)}
    await ctx.respond(int(code), body, sent)
    return {}


def unescape(value: Any) -> str:
    """Return HTML entities of ``value`` decoded (``&amp;`` is ``&``)."""
    return htmllib.unescape(text(value))

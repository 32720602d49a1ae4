"""Reading Workflow Definition Language values: ``@expr``, ``@@`` and ``@{…}`` interpolation.

An action input that is a string is, as WDL defines it:

- ``"@@…"``: the literal string without its first ``@``;
- ``"@expr"`` (not ``@{``): one expression, its value keeping its type;
- a string holding ``@{expr}`` interpolations: the text around them and each value's text
  (``@@{`` is a literal ``@{``);
- anything else: the literal string.

The expression grammar: function calls ``name(arg, …)``; string literals ``'…'`` (``''`` is a
quote); numbers (``10``, ``-5``, ``+54``, ``10.3``, ``.3``, ``1.``, ``1e3``); ``true``, ``false``, ``null``;
property access ``.name``, ``['name']``, ``[0]``, and the null-conditional ``?.name`` /
``?['name']`` that reads null instead of failing. Parsing builds the small tree below; a text
that is not this grammar raises ``Untranslatable`` naming the expression and the position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.errors import Untranslatable


@dataclass(frozen=True)
class Lit:
    """A literal: string, number, Boolean or null."""

    value: Any


@dataclass(frozen=True)
class Call:
    """``name(args…)``; ``pos`` is where the name starts in the expression."""

    name: str
    args: tuple[Node, ...]
    pos: int


@dataclass(frozen=True)
class Member:
    """``target[key]`` / ``target.key``; ``safe`` for ``?[…]`` / ``?.key``."""

    target: Node
    key: Node
    safe: bool


Node = Lit | Call | Member

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PROPERTY = re.compile(r"[A-Za-z_$@][A-Za-z0-9_$@-]*")
_WORDS = {"true": True, "false": False, "null": None}
MAX_DEPTH = 100  # calls and indexes nested deeper are refused (Python's own recursion would fail first)


class _WdlReader:
    def __init__(self, source: str, start: int = 0) -> None:
        self.source = source
        self.i = start
        self.depth = 0

    def error(self, why: str) -> Untranslatable:
        return Untranslatable(f"unreadable WDL expression {self.source!r}: {why} at position {self.i}")

    def skip(self) -> None:
        while self.i < len(self.source) and self.source[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.source[self.i] if self.i < len(self.source) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.source[self.i]) if self.i < len(self.source) else "the end"
            raise self.error(f"expected {char!r}, found {found}")
        self.i += 1

    def expression(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested more than {MAX_DEPTH} levels deep")
        node = self.primary()
        while True:
            c = self.peek()
            if c == "?" and self.source[self.i + 1:self.i + 2] in ("[", "."):
                self.i += 1
                node = self.postfix(node, safe=True)
            elif c in ("[", "."):
                node = self.postfix(node, safe=False)
            else:
                self.depth -= 1
                return node

    def postfix(self, target: Node, *, safe: bool) -> Node:
        if self.source[self.i] == "[":
            self.i += 1
            key = self.expression()
            self.expect("]")
            return Member(target, key, safe)
        self.i += 1  # "."
        self.skip()
        match = _PROPERTY.match(self.source, self.i)
        if match is None:
            raise self.error("expected a property name after '.'")
        self.i = match.end()
        return Member(target, Lit(match.group(0)), safe)

    def primary(self) -> Node:
        c = self.peek()
        if c == "":
            raise self.error("expected a value, found the end")
        if c == "'":
            return Lit(self.string())
        number = _NUMBER.match(self.source, self.i)
        if number is not None and (c.isdigit() or c in "+-."):
            self.i = number.end()
            digits = number.group(0)
            return Lit(float(digits) if any(ch in digits for ch in ".eE") else int(digits))
        name = _NAME.match(self.source, self.i)
        if name is None:
            raise self.error(f"unexpected {c!r}")
        start, word = self.i, name.group(0)
        self.i = name.end()
        if self.peek() == "(":
            return Call(word, self.arguments(), start)
        if word.lower() in _WORDS:
            return Lit(_WORDS[word.lower()])
        raise self.error(f"{word!r} is neither a function call nor true/false/null")

    def arguments(self) -> tuple[Node, ...]:
        self.expect("(")
        args: list[Node] = []
        if self.peek() == ")":
            self.i += 1
            return ()
        while True:
            args.append(self.expression())
            if self.peek() == ",":
                self.i += 1
                continue
            self.expect(")")
            return tuple(args)

    def string(self) -> str:
        self.i += 1  # opening quote
        out: list[str] = []
        while True:
            end = self.source.find("'", self.i)
            if end < 0:
                raise self.error("unterminated string literal")
            out.append(self.source[self.i:end])
            if self.source[end + 1:end + 2] == "'":
                out.append("'")
                self.i = end + 2
                continue
            self.i = end + 1
            return "".join(out)


def parse(expression: str, start: int = 0) -> Node:
    """Return the tree of one whole WDL expression: ``expression`` from ``start`` (after its ``@``)."""
    parser = _WdlReader(expression, start)
    node = parser.expression()
    if parser.peek() != "":
        raise parser.error(f"unexpected {parser.source[parser.i]!r} after the expression")
    return node


def interpolation(text: str) -> list[str | Node]:
    """Return the parts of a string with ``@{…}``: literal text and expression trees, in order."""
    parts: list[str | Node] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("@@{", i):
            literal.append("@{")
            i += 3
            continue
        if text.startswith("@{", i):
            parser = _WdlReader(text, i + 2)
            node = parser.expression()
            if parser.peek() != "}":
                raise Untranslatable(f"unreadable WDL interpolation in {text!r}: expected '}}' at position {parser.i}")
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(node)
            i = parser.i + 1
            continue
        literal.append(text[i])
        i += 1
    if literal:
        parts.append("".join(literal))
    return parts


def read(value: str) -> tuple[str, Any]:
    """Return how WDL reads the string ``value``: ("literal", str), ("expression", Node) or ("parts", [...])."""
    if value.startswith("@@"):
        return "literal", value[1:]
    if value == "@":
        return "literal", value
    if value.startswith("@") and not value.startswith("@{"):
        return "expression", parse(value, 1)
    if "@{" in value:
        parts = interpolation(value)
        if all(isinstance(p, str) for p in parts):
            return "literal", "".join(p for p in parts if isinstance(p, str))
        return "parts", parts
    return "literal", value


def walk(node: Node) -> list[Node]:
    """Return ``node`` and every node inside it, parents first."""
    out: list[Node] = [node]
    if isinstance(node, Call):
        for arg in node.args:
            out.extend(walk(arg))
    elif isinstance(node, Member):
        out.extend(walk(node.target))
        out.extend(walk(node.key))
    return out

"""Translate Make's mapping language (IML) into Python source that runs with Make's semantics.

A mapped value is text with ``{{ … }}`` parts. Inside: module paths (``1.email``,
``4.tm_leverage.value.`75%+```, ``1.items[]``, ``1.items[2]``), function calls with ``;``
between arguments (``join(map(4.array; "line"); ", ")``), quoted text, numbers, the keywords
``now``, ``true``, ``false``, ``null``, ``emptystring``, ``space``, ``newline``, ``tab``, and the
operators ``+ - * / %`` and ``= != < > <= >=``. A function argument that is bare text
(``formatDate(now; YYYY-MM-DD)``) is that text. The generated code calls
``queue_core.compat.make``, built as ``ast`` expressions (``harness.scaffold._code``): literals
are never quoted by hand, and each operand is parenthesised as its precedence needs. Anything else (an unknown function, ``var.input.x``) raises
``Untranslatable`` and the module is left as a TODO with the mapping kept verbatim.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from harness.errors import Untranslatable, UntranslatableBareWord
from harness.scaffold._code import call, dict_of, expr, lit
from queue_core.compat.make import FILTER_OPERATORS, IML_FUNCTIONS

KEYWORDS: dict[str, Any] = {"true": True, "false": False, "null": None, "emptystring": "", "space": " ",
                            "newline": "\n", "tab": "\t", "nbsp": "\u00a0", "carriagereturn": "\r",
                            "pi": 3.141592653589793}
# keywords computed at run time: the job's clock (``now``; ``timestamp`` its Unix seconds), an empty array
COMPUTED: dict[str, str] = {"now": "run.now()", "timestamp": "int(run.now().timestamp())", "emptyarray": "[]"}
_TOKEN = re.compile(r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>\d+(?:\.\d+)?(?![\w`.\[]))|(?P<op><=|>=|!=|[=<>+\-*/%();])"""
                    r"""|(?P<word>(?:`[^`]*`|[\w$]+|\[\d*\])(?:\.(?:`[^`]*`|[\w$]+)|\[\d*\])*)"""
                    r"""|(?P<path>(?:\.(?:`[^`]*`|[\w$]+)|\[\d*\])+))""")
# The system variables a scaffolded run knows (``var.<name>``): the scenario's name from the blueprint,
# the execution's id is the job's (a new execution of the scenario).
SYSTEM_VARIABLES = {"scenario.name": "run.scenario_name", "scenario.executionId": "run.execution_id",
                    "execution.id": "run.execution_id"}
# The system variables only Make's account knows (its zone, team, organisation, the scenario's id and
# URL): read from a setting the person configures (``make.Run.setting``: ``MAKE_SCENARIO_URL``, …).
SETTINGS = ("scenario.id", "scenario.url", "team.id", "team.name", "organization.id", "organization.name")


def template(raw: Any) -> ast.expr:
    """Return the Python expression of a mapped value (text with ``{{…}}``, or a structure of them)."""
    if isinstance(raw, dict):
        return dict_of((str(k), template(v)) for k, v in raw.items())
    if isinstance(raw, list):
        return ast.List([template(v) for v in raw], ast.Load())
    if not isinstance(raw, str):
        return lit(raw)
    parts = split(raw)
    if len(parts) == 1 and parts[0][0] == "expr":
        return expression(parts[0][1])
    if all(kind == "text" for kind, _ in parts):
        return lit(raw)
    return call("make.concat", *(lit(v) if kind == "text" else expression(v) for kind, v in parts))


def conditions(raw: Any) -> ast.expr:
    """Return the Python expression of filter conditions ``[[{a, o, b}]]`` (OR of ANDs)."""
    groups = []
    for group in raw or []:
        items = []
        for cond in group or []:
            operator = str((cond or {}).get("o") or "")
            if operator not in FILTER_OPERATORS:
                raise Untranslatable(f"filter operator {operator!r} is not translated")
            items.append((operator, template(cond.get("a")), template(cond.get("b"))))
        groups.append(items)
    return lit(groups)


def split(raw: str) -> list[tuple[str, str]]:
    """Split text into ("text", …) and ("expr", …) parts; quotes inside ``{{ }}`` may hold braces."""
    parts: list[tuple[str, str]] = []
    pos = 0
    while True:
        start = raw.find("{{", pos)
        if start < 0:
            break
        end = _closing(raw, start + 2)
        if end < 0:
            raise Untranslatable(f"an unclosed '{{{{' in {raw[:80]!r}")
        if start > pos:
            parts.append(("text", raw[pos:start]))
        parts.append(("expr", raw[start + 2:end]))
        pos = end + 2
    if pos < len(raw) or not parts:
        parts.append(("text", raw[pos:]))
    return parts


def _closing(raw: str, pos: int) -> int:
    quoted = False
    while pos < len(raw) - 1:
        char = raw[pos]
        if char == '"':
            quoted = not quoted
        elif not quoted and raw.startswith("}}", pos):
            return pos
        pos += 1
    return -1


def expression(source: str) -> ast.expr:
    """Return the Python expression of the IML inside one ``{{ … }}``."""
    parser = _Parser(source)
    result = parser.expr()
    parser.expect_end()
    return result


class _Parser:
    """A recursive-descent parser of one IML expression, building its Python expression as it goes."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = self._tokens(source)
        self.pos = 0

    @staticmethod
    def _tokens(source: str) -> list[tuple[str, str, int, int]]:
        tokens, pos = [], 0
        while pos < len(source):
            if source[pos:].strip() == "":
                break
            match = _TOKEN.match(source, pos)
            if match is None or match.end() == pos:
                raise Untranslatable(f"IML {source!r}: cannot read {source[pos:pos + 20]!r}")
            kind = match.lastgroup or ""
            tokens.append((kind, match.group(kind), match.start(kind), match.end()))
            pos = match.end()
        return tokens

    def peek(self) -> tuple[str, str, int, int] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str, int, int]:
        token = self.peek()
        if token is None:
            raise Untranslatable(f"IML {self.source!r}: ends too early")
        self.pos += 1
        return token

    def expect_end(self) -> None:
        if self.peek() is not None:
            raise Untranslatable(f"IML {self.source!r}: unexpected {self.peek()[1]!r}")  # type: ignore[index]

    def expr(self) -> ast.expr:
        left = self.additive()
        token = self.peek()
        if token and token[0] == "op" and token[1] in ("=", "!=", "<", ">", "<=", ">="):
            self.take()
            left = call("make.compare", token[1], left, self.additive())
        return left

    def _left_assoc(self, ops: str, operand: Callable[[], ast.expr]) -> ast.expr:
        left = operand()
        while (token := self.peek()) and token[0] == "op" and token[1] in ops:
            self.take()
            left = call("make.arith", token[1], left, operand())
        return left

    def additive(self) -> ast.expr:
        return self._left_assoc("+-", self.term)

    def term(self) -> ast.expr:
        return self._left_assoc("*/%", self.atom)

    def atom(self) -> ast.expr:
        kind, value, _, _ = self.take()
        if kind == "str":
            return lit(value[1:-1])
        if kind == "num":
            return lit(float(value) if "." in value else int(value))
        if kind == "op" and value == "(":
            inner = self.expr()
            self._expect(")")
            return self._postfix(inner)
        if kind == "op" and value == "-":
            return call("make.arith", "-", 0, self.atom())
        if kind != "word":
            raise Untranslatable(f"IML {self.source!r}: unexpected {value!r}")
        token = self.peek()
        if token and token[1] == "(" and re.fullmatch(r"[A-Za-z]\w*", value):
            return self._postfix(self.call(value))
        return self.word(value)

    def _postfix(self, value: ast.expr) -> ast.expr:
        """``first(2.data).supplier_id``: a path after a call or a parenthesis."""
        token = self.peek()
        if token is None or token[0] != "path":
            return value
        self.take()
        return call("make.path", value, *path_parts(token[1]))

    def word(self, value: str) -> ast.expr:
        if value in COMPUTED:
            return expr(COMPUTED[value])
        if value in KEYWORDS:
            return lit(KEYWORDS[value])
        head, _, rest = value.partition(".")
        if head.isdigit() and rest:
            return call("make.ref", expr("run.b"), int(head), *path_parts(rest))
        if head == "var" and rest:
            if rest in SYSTEM_VARIABLES:
                return expr(SYSTEM_VARIABLES[rest])
            if rest in SETTINGS:
                return call("run.setting", rest)
            kind = rest.split(".", 1)[0]
            raise Untranslatable(f"IML {value!r}: " + (
                "a scenario input (var.input.*) is not translated: pass it in the trigger's body" if kind == "input"
                else f"the system variable is not known to a scaffolded run (known: "
                     f"{', '.join('var.' + k for k in (*SYSTEM_VARIABLES, *SETTINGS))})"))
        if re.fullmatch(r"`\d+`", value):
            raise Untranslatable(f"{value!r} is not a module path: a whole module's output mapped as one value "
                                 "is not translated")
        raise UntranslatableBareWord(value)

    def call(self, name: str) -> ast.expr:
        if name not in IML_FUNCTIONS:
            raise Untranslatable(f"IML function {name}() is not translated")
        self._expect("(")
        args: list[ast.expr] = []
        token = self.peek()
        if token is not None and token[1] == ")":
            self.take()
            return call("make.fn", name)
        while True:
            token = self.peek()
            if token is not None and token[1] in (";", ")"):  # an empty argument: ``if(a; b; )``
                args.append(lit(""))
            else:
                args.append(self.argument())
            kind, value, _, _ = self.take()
            if value == ")":
                return call("make.fn", name, *args)
            if value != ";":
                raise Untranslatable(f"IML {self.source!r}: expected ';' or ')' after an argument of {name}()")

    def argument(self) -> ast.expr:
        """Return one argument: an expression, or its raw text when it is bare text."""
        start = self.pos
        try:
            value = self.expr()
            token = self.peek()
            if token is None or token[1] in (";", ")"):
                return value
        except UntranslatableBareWord:
            pass
        self.pos = start
        return lit(self._raw_argument())

    def _raw_argument(self) -> str:
        depth, begin = 0, self.peek()
        if begin is None:
            raise Untranslatable(f"IML {self.source!r}: an argument is missing")
        end = begin[2]
        while (token := self.peek()) is not None:
            if token[1] in (";", ")") and depth == 0:
                break
            depth += {"(": 1, ")": -1}.get(token[1], 0)
            end = token[3]
            self.take()
        return self.source[begin[2]:end].strip()

    def _expect(self, op: str) -> None:
        token = self.take()
        if token[1] != op:
            raise Untranslatable(f"IML {self.source!r}: expected {op!r}, got {token[1]!r}")


def path_parts(rest: str) -> list[str]:
    """Split a path after the module id into keys, ``[]`` and ``[n]`` parts (backticks dropped)."""
    parts: list[str] = []
    for match in re.finditer(r"`([^`]*)`|\[(\d*)\]|([\w$]+)", rest):
        if match.group(1) is not None:
            parts.append(match.group(1))
        elif match.group(2) is not None:
            parts.append(f"[{match.group(2)}]")
        else:
            parts.append(match.group(3))
    return parts

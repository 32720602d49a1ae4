"""Formatter by Zapier's Spreadsheet-Style Formula (Numbers): an Excel-style formula, evaluated without ``eval``.

Its meaning is that of Formatter's backend (transformer/transforms/number/formula.py in github.com/zapier/transformer;
PR #15 introduced it): numbers and TRUE/FALSE (1/0) only — a text operand is an error; operators unary ``-`` and
``%``, ``+ - * /`` (``/`` divides as floats), ``= <> > < >= <=``; and the functions of ``FUNCTIONS`` with the
backend's arities ("SUM requires at least 2 arguments") and its Python meanings, which are not always Excel's:
INT truncates, ROUND halves away from zero and gives a float, ROUNDDOWN/ROUNDUP floor/ceil, CEILING/FLOOR/EVEN/ODD
give floats, QUOTIENT of whole numbers floors, ATAN2(y, x) and SQRTPI(x) = sqrt(x)·pi as Python's math has them.
Any other name, a formula that does not parse or a wrong argument count is a ValueError naming it.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from functools import reduce
from typing import Any

Number = int | float | bool

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|\"(?P<str>(?:[^\"]|\"\")*)\""
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<op><>|>=|<=|[-+*/%=<>&^(),]))")
MAX_LENGTH = 10_000


def _tokens(formula: str) -> list[tuple[str, str]]:
    out, pos, text = [], 0, formula.strip()
    if text.startswith("="):
        text = text[1:]
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"Formatter formula: cannot read {text[pos:pos + 20]!r}")
        kind = next(k for k in ("num", "str", "name", "op") if m.group(k) is not None)
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _int_or_float(value: float) -> int | float:
    return int(value) if value.is_integer() else value


def _ceil(a: Number, factor: Number = 1) -> float:
    return factor * float(math.ceil(float(a) / factor))


def _floor(a: Number, factor: Number = 1) -> float:
    return factor * float(math.floor(float(a) / factor))


def _round(a: Number, places: Number = 0) -> float:
    # Python 2's round: the float's exact value, halves away from zero, a float back
    return float(Decimal(a).quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP))


def _scaled(fn: Callable[[float], float]) -> Callable[..., float]:
    def run(a: Number, places: Number = 0) -> float:
        scale = 10 ** places
        return fn(a * scale) / float(scale)
    return run


def _quotient(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int):
        return a // b  # Python 2's division of whole numbers floors
    return a / b


def _bounded(limit: int, fn: Callable[[int], int]) -> Callable[[Number], int]:
    def run(a: Number) -> int:
        if a > limit:
            raise ValueError(f"limited to N <= {limit}")
        if not float(a).is_integer():
            raise ValueError("needs a whole number")
        return fn(int(a))
    return run


def _reduce(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def run(*args: Number) -> Any:
        return fn(*args) if len(args) <= 2 else reduce(fn, args)
    return run


def _median(*args: Number) -> Number:
    data = sorted(args)
    half = len(data) // 2
    return data[half] if len(data) % 2 else (data[half - 1] + data[half]) / 2.0


def _if(test: Number, yes: Number, *rest: Number) -> Number | None:
    return yes if test else (rest[0] if rest else None)


# name -> (arity, function): arity n > 0 needs exactly n arguments, n <= 0 at least -n.
FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "MAX": (0, _reduce(max)), "MIN": (0, _reduce(min)), "ABS": (1, abs), "SIGN": (1, lambda a: (a > 0) - (a < 0)),
    "GCD": (-2, _reduce(lambda a, b: math.gcd(int(a), int(b)))),
    "LCM": (-2, _reduce(lambda a, b: a * b // math.gcd(int(a), int(b)))),
    "SUM": (-2, _reduce(lambda a, b: a + b)), "PRODUCT": (-2, _reduce(lambda a, b: a * b)), "SQRT": (1, math.sqrt),
    "POWER": (2, math.pow), "QUOTIENT": (2, _quotient), "MOD": (2, lambda a, b: a % b),
    "CEILING": (-1, _ceil), "FLOOR": (-1, _floor), "EVEN": (1, lambda a: _ceil(a, 2)),
    "INT": (1, int), "ODD": (1, lambda a: a if a % 2 == 1 else _ceil(a, 2) + 1), "ROUND": (-1, _round),
    "ROUNDDOWN": (-1, _scaled(math.floor)), "ROUNDUP": (-1, _scaled(math.ceil)), "TRUNC": (-1, _scaled(math.trunc)),
    "RAND": (0, random.random), "RANDBETWEEN": (2, lambda a, b: a if a == b else random.randint(min(a, b), max(a, b))),
    "PI": (0, lambda: math.pi), "SQRTPI": (1, lambda a: math.sqrt(a) * math.pi), "DEGREES": (1, math.degrees),
    "RADIANS": (1, math.radians), "COS": (1, math.cos), "ACOS": (1, math.acos), "COSH": (1, math.cosh),
    "ACOSH": (1, math.acosh), "SIN": (1, math.sin), "ASIN": (1, math.asin), "SINH": (1, math.sinh),
    "ASINH": (1, math.asinh), "TAN": (1, math.tan), "ATAN": (1, math.atan), "ATAN2": (2, math.atan2),
    "TANH": (1, math.tanh), "ATANH": (1, math.atanh), "EXP": (1, math.exp), "LN": (1, math.log),
    "LOG": (2, math.log), "LOG10": (1, math.log10),
    "FACT": (1, _bounded(170, math.factorial)),
    "FACTDOUBLE": (1, _bounded(288, lambda n: reduce(lambda a, b: a * b, range(n, 0, -2), 1))),
    "AVERAGE": (-1, lambda *xs: reduce(lambda a, b: a + b, xs) / float(len(xs))), "MEDIAN": (-1, _median),
    "MODE": (-1, lambda *xs: Counter(xs).most_common(1)[0][0]),
    "GEOMEAN": (-1, lambda *xs: reduce(lambda a, b: a * b, xs) ** (1.0 / len(xs))),
    "IF": (-2, _if), "AND": (-1, lambda *xs: all(xs)), "OR": (-1, lambda *xs: any(xs)), "NOT": (1, lambda a: not a),
    "TRUE": (0, lambda: 1), "FALSE": (0, lambda: 0),
}

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b, "<>": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}


class _Reader:
    """A recursive-descent reading: comparison < + - < * / < unary - < %."""

    def __init__(self, formula: str) -> None:
        self.tokens = _tokens(formula)
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, op: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (op is not None and token != ("op", op)):
            raise ValueError(f"Formatter formula: expected {op or 'a value'} at the end" if token is None else
                             f"Formatter formula: expected {op!r}, found {token[1]!r}")
        self.pos += 1
        return token

    def is_op(self, *ops: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == "op" and token[1] in ops

    def formula(self) -> Any:
        out = self.compare()
        token = self.peek()
        if token is not None:
            if token == ("op", "&") or token == ("op", "^"):
                raise ValueError(f"Formatter formula: Unknown Operation: {token[1]}")
            raise ValueError(f"Formatter formula: unexpected {token[1]!r}")
        return out

    def compare(self) -> Any:
        left = self.additive()
        while self.is_op(*_COMPARE):
            op = self.take()[1]
            left = _COMPARE[op](left, self.additive())
        return left

    def additive(self) -> Any:
        left = self.term()
        while self.is_op("+", "-"):
            op = self.take()[1]
            right = self.term()
            left = left + right if op == "+" else left - right
        return left

    def term(self) -> Any:
        left = self.unary()
        while self.is_op("*", "/"):
            op = self.take()[1]
            right = self.unary()
            if op == "/" and right == 0:
                raise ValueError("Formatter formula: division by zero")
            left = left * right if op == "*" else left / right
        return left

    def unary(self) -> Any:
        if self.is_op("-", "+"):
            op = self.take()[1]
            inner = self.unary()
            return -inner if op == "-" else inner
        value = self.primary()
        while self.is_op("%"):
            self.take()
            value = value / float(100)
        return value

    def primary(self) -> Any:
        kind, token = self.take()
        if kind == "num":
            return _int_or_float(float(token))
        if kind == "str":
            raise ValueError("Formatter formula: Invalid Syntax: Only numeric values allowed (text provided)")
        if kind == "op" and token == "(":
            inner = self.compare()
            self.take(")")
            return inner
        if kind == "name":
            name = token.upper()
            if not self.is_op("("):
                if name in {"TRUE", "FALSE"}:
                    return 1 if name == "TRUE" else 0
                raise ValueError(f"Formatter formula: {token!r} is not a number or a function call")
            return self.call(name)
        raise ValueError(f"Formatter formula: unexpected {token!r}")

    def call(self, name: str) -> Any:
        self.take("(")
        args: list[Any] = []
        if not self.is_op(")"):
            args.append(self.compare())
            while self.is_op(","):
                self.take()
                args.append(self.compare())
        self.take(")")
        if name not in FUNCTIONS:
            raise ValueError(f"Formatter formula: Unknown Function: {name}")
        arity, fn = FUNCTIONS[name]
        if arity < 0 and len(args) < -arity:
            raise ValueError(f"Formatter formula: {name} requires at least {-arity} arguments")
        if arity > 0 and len(args) != arity:
            raise ValueError(f"Formatter formula: {name} requires {arity} arguments ({len(args)} provided)")
        try:
            return fn(*args)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError, ArithmeticError) as exc:
            raise ValueError(f"Formatter formula: {name}({', '.join(map(str, args))}): {exc}") from None


def evaluate(formula: str) -> Any:
    """The value of a spreadsheet-style formula (a leading ``=`` is allowed)."""
    if len(formula) > MAX_LENGTH:
        raise ValueError(f"Formatter formula: longer than {MAX_LENGTH} characters")
    if not formula.strip():
        raise ValueError("Formatter formula: the formula is empty")
    try:
        return _Reader(formula).formula()
    except RecursionError:
        raise ValueError("Formatter formula: nested too deeply") from None

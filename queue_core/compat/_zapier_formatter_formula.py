"""Formatter by Zapier's Spreadsheet-Style Formula (Numbers): an Excel-style formula, evaluated without ``eval``.

The operators and functions are exactly those Formatter's backend documents (https://github.com/zapier/transformer/
pull/15): unary ``-`` and ``%``; ``+ - * /``; ``= <> > < >= <=``; ``&`` (join as text); and ABS … VALUE below, with
Excel's meaning (ROUND halves away from zero, MOD takes the divisor's sign, ATAN2(x, y) …). Any other name is a
ValueError naming it, as is a formula that does not parse.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from collections.abc import Callable
from functools import reduce
from typing import Any

Value = int | float | str | bool

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|\"(?P<str>(?:[^\"]|\"\")*)\""
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<op><>|>=|<=|[-+*/%=<>&(),]))")
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
        out.append((kind, m.group(kind).replace('""', '"') if kind == "str" else m.group(kind)))
        pos = m.end()
    return out


def number(value: Value) -> int | float:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    text = value.strip()
    if text == "":
        return 0
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"Formatter formula: {value!r} is not a number") from None


def text(value: Value) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _round(x: Value, digits: Value = 0, how: str = "half") -> int | float:
    n, d = number(x), int(number(digits))
    scale = 10 ** d
    shifted = abs(n) * scale
    if how == "half":
        shifted = math.floor(shifted + 0.5 + 1e-9)
    elif how == "down":
        shifted = math.floor(shifted + 1e-9)
    else:
        shifted = math.ceil(shifted - 1e-9)
    out = math.copysign(shifted / scale, n)
    return int(out) if d <= 0 else out


def _even_odd(x: Value, odd: bool) -> int:
    n = number(x)
    up = math.ceil(abs(n))
    if (up % 2 == 1) != odd:
        up += 1
    return int(math.copysign(up, n)) if n else (1 if odd else 0)


def _mode(*xs: Value) -> int | float:
    nums = [number(x) for x in xs]
    counts = {n: nums.count(n) for n in nums}
    best = max(counts.values())
    if best < 2:
        raise ValueError("Formatter formula: MODE found no repeated value (#N/A)")
    return next(n for n in nums if counts[n] == best)


def _factdouble(x: Value) -> int:
    n = int(number(x))
    return reduce(lambda a, b: a * b, range(n, 0, -2), 1)


def _if(cond: Value, yes: Value = True, no: Value = False) -> Value:
    return yes if _truth(cond) else no


def _truth(value: Value) -> bool:
    if isinstance(value, str):
        if value.upper() in {"TRUE", "FALSE"}:
            return value.upper() == "TRUE"
        raise ValueError(f"Formatter formula: {value!r} is not TRUE or FALSE (#VALUE!)")
    return bool(value)


def _nums(xs: tuple[Value, ...]) -> list[int | float]:
    return [number(x) for x in xs]


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "ABS": lambda x: abs(number(x)), "ACOS": lambda x: math.acos(number(x)), "ACOSH": lambda x: math.acosh(number(x)),
    "AND": lambda *xs: all(_truth(x) for x in xs), "ASIN": lambda x: math.asin(number(x)),
    "ASINH": lambda x: math.asinh(number(x)), "ATAN": lambda x: math.atan(number(x)),
    "ATAN2": lambda x, y: math.atan2(number(y), number(x)), "ATANH": lambda x: math.atanh(number(x)),
    "AVERAGE": lambda *xs: statistics.fmean(_nums(xs)),
    "CEILING": lambda x, s=1: math.ceil(number(x) / number(s)) * number(s), "COS": lambda x: math.cos(number(x)),
    "COSH": lambda x: math.cosh(number(x)), "DEGREES": lambda x: math.degrees(number(x)),
    "EVEN": lambda x: _even_odd(x, False), "EXP": lambda x: math.exp(number(x)),
    "FACT": lambda x: math.factorial(int(number(x))), "FACTDOUBLE": _factdouble, "FALSE": lambda: False,
    "FLOOR": lambda x, s=1: math.floor(number(x) / number(s)) * number(s),
    "GCD": lambda *xs: math.gcd(*(int(n) for n in _nums(xs))), "GEOMEAN": lambda *xs: statistics.geometric_mean(_nums(xs)),
    "IF": _if, "INT": lambda x: math.floor(number(x)), "ISBLANK": lambda x: x == "",
    "ISLOGICAL": lambda x: isinstance(x, bool), "ISTEXT": lambda x: isinstance(x, str),
    "ISNONTEXT": lambda x: not isinstance(x, str), "ISNUMBER": lambda x: isinstance(x, int | float) and not isinstance(x, bool),
    "ISODD": lambda x: int(number(x)) % 2 == 1, "ISEVEN": lambda x: int(number(x)) % 2 == 0,
    "LCM": lambda *xs: math.lcm(*(int(n) for n in _nums(xs))), "LN": lambda x: math.log(number(x)),
    "LOG": lambda x, b=10: math.log(number(x), number(b)), "LOG10": lambda x: math.log10(number(x)),
    "MAX": lambda *xs: max(_nums(xs)), "MEDIAN": lambda *xs: statistics.median(_nums(xs)),
    "MIN": lambda *xs: min(_nums(xs)), "MOD": lambda n, d: number(n) % number(d), "MODE": _mode,
    "NOT": lambda x: not _truth(x), "ODD": lambda x: _even_odd(x, True), "OR": lambda *xs: any(_truth(x) for x in xs),
    "PI": lambda: math.pi, "POWER": lambda x, y: number(x) ** number(y),
    "PRODUCT": lambda *xs: math.prod(_nums(xs)),
    "QUOTIENT": lambda n, d: int(number(n) / number(d)), "RADIANS": lambda x: math.radians(number(x)),
    "RAND": random.random, "RANDBETWEEN": lambda lo, hi: random.randint(math.ceil(number(lo)), math.floor(number(hi))),
    "ROUND": lambda x, d=0: _round(x, d, "half"), "ROUNDDOWN": lambda x, d=0: _round(x, d, "down"),
    "ROUNDUP": lambda x, d=0: _round(x, d, "up"), "SIGN": lambda x: (number(x) > 0) - (number(x) < 0),
    "SIN": lambda x: math.sin(number(x)), "SINH": lambda x: math.sinh(number(x)), "SQRT": lambda x: math.sqrt(number(x)),
    "SQRTPI": lambda x: math.sqrt(number(x) * math.pi), "SUM": lambda *xs: sum(_nums(xs)),
    "TAN": lambda x: math.tan(number(x)), "TANH": lambda x: math.tanh(number(x)), "TRUE": lambda: True,
    "TRUNC": lambda x, d=0: _round(x, d, "down"), "VALUE": lambda x: number(x),
}


class _Reader:
    """A recursive-descent reading of the formula, Excel's precedence: comparison < & < + - < * / < unary - < %."""

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

    def formula(self) -> Value:
        out = self.compare()
        if self.peek() is not None:
            raise ValueError(f"Formatter formula: unexpected {self.peek()[1]!r}")  # type: ignore[index]
        return out

    def compare(self) -> Value:
        left = self.concat()
        while self.is_op("=", "<>", "<", ">", "<=", ">="):
            op = self.take()[1]
            right = self.concat()
            a, b = (left, right) if isinstance(left, str) == isinstance(right, str) else (text(left), text(right))
            if isinstance(a, str) and isinstance(b, str):
                a, b = a.lower(), b.lower()
            left = {"=": a == b, "<>": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]  # type: ignore[operator]
        return left

    def concat(self) -> Value:
        left = self.additive()
        while self.is_op("&"):
            self.take()
            left = text(left) + text(self.additive())
        return left

    def additive(self) -> Value:
        left = self.term()
        while self.is_op("+", "-"):
            op = self.take()[1]
            right = number(self.term())
            left = number(left) + right if op == "+" else number(left) - right
        return left

    def term(self) -> Value:
        left = self.unary()
        while self.is_op("*", "/"):
            op = self.take()[1]
            right = number(self.unary())
            if op == "/" and right == 0:
                raise ValueError("Formatter formula: division by zero (#DIV/0!)")
            left = number(left) * right if op == "*" else number(left) / right
        return left

    def unary(self) -> Value:
        if self.is_op("-", "+"):
            op = self.take()[1]
            inner = number(self.unary())
            return -inner if op == "-" else inner
        value = self.primary()
        while self.is_op("%"):
            self.take()
            value = number(value) / 100
        return value

    def primary(self) -> Value:
        kind, token = self.take()
        if kind == "num":
            return float(token) if any(c in token for c in ".eE") else int(token)
        if kind == "str":
            return token
        if kind == "op" and token == "(":
            inner = self.compare()
            self.take(")")
            return inner
        if kind == "name":
            name = token.upper()
            if not self.is_op("("):
                if name in {"TRUE", "FALSE"}:
                    return name == "TRUE"
                raise ValueError(f"Formatter formula: {token!r} is not a value or a function call")
            self.take("(")
            args: list[Value] = []
            if not self.is_op(")"):
                args.append(self.compare())
                while self.is_op(","):
                    self.take()
                    args.append(self.compare())
            self.take(")")
            fn = FUNCTIONS.get(name)
            if fn is None:
                raise ValueError(f"Formatter formula: the function {token!r} is not one Formatter documents")
            try:
                return fn(*args)
            except TypeError:
                raise ValueError(f"Formatter formula: {name} got {len(args)} argument(s)") from None
            except (ValueError, ZeroDivisionError, OverflowError) as exc:
                if str(exc).startswith("Formatter formula"):
                    raise
                raise ValueError(f"Formatter formula: {name}({', '.join(map(text, args))}): {exc}") from None
        raise ValueError(f"Formatter formula: unexpected {token!r}")


def evaluate(formula: str) -> Value:
    """The value of a spreadsheet-style formula (a leading ``=`` is allowed)."""
    if len(formula) > MAX_LENGTH:
        raise ValueError(f"Formatter formula: longer than {MAX_LENGTH} characters")
    if not formula.strip():
        raise ValueError("Formatter formula: the formula is empty")
    try:
        return _Reader(formula).formula()
    except RecursionError:
        raise ValueError("Formatter formula: nested too deeply") from None

"""Numbers as .NET formats and parses them for WDL: ``formatNumber``, ``float``, ``isFloat``, ``isInt``.

``formatNumber(number, format, locale?)`` is ``number.ToString(format, locale)``: the standard
numeric formats ``C``, ``D``, ``E``, ``F``, ``G``, ``N``, ``P``, ``X`` (with a precision digit),
and custom patterns of ``0``, ``#``, ``.``, ``,`` (grouping, or scaling by 1000 before the
point), ``%`` and quoted literals. Locales: the separators and currency of the few in
``LOCALES`` (``en-us`` is the default); any other locale fails the action naming it, rather
than formatting differently from Power Automate. Rounding is half away from zero, as .NET's.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, NamedTuple

from ._wdl_values import fail, is_number, kind, string_arg


class Locale(NamedTuple):
    decimal: str
    group: str
    currency: str          # the symbol
    currency_before: bool  # "$17.35" or "17,35 kr"
    percent_space: bool    # "45 %" or "45%"


LOCALES: dict[str, Locale] = {
    "en-us": Locale(".", ",", "$", True, False),
    "en-gb": Locale(".", ",", "£", True, False),
    "invariant": Locale(".", ",", "¤", True, False),
    "de-de": Locale(",", ".", "€", False, True),
    "fr-fr": Locale(",", "\u202f", "€", False, True),
    "es-es": Locale(",", ".", "€", False, True),
    "nl-nl": Locale(",", ".", "€", True, True),
    "is-is": Locale(",", ".", "kr", False, True),
}


def locale(function: str, name: Any) -> Locale:
    """Return the ``Locale`` named ``name`` (default ``en-us``), or fail naming an unsupported one."""
    key = "en-us" if name is None or name == "" else string_arg(function, name).lower()
    if key not in LOCALES:
        fail(function, f"was given the locale {name!r}, which this translation does not support "
                       f"(supported: {', '.join(sorted(LOCALES))}).")
    return LOCALES[key]


def _digits(value: Decimal, places: int) -> str:
    return str(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)) if places else \
        str(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _group(whole: str, sep: str) -> str:
    out = ""
    while len(whole) > 3:
        out = sep + whole[-3:] + out
        whole = whole[:-3]
    return whole + out


def _fixed(value: Decimal, places: int, loc: Locale, grouped: bool) -> str:
    body = _digits(abs(value), places)
    whole, _, frac = body.partition(".")
    if grouped:
        whole = _group(whole, loc.group)
    return whole + (loc.decimal + frac if frac else "")


def _standard(value: Decimal, spec: str, precision: int | None, loc: Locale, original: Any) -> str:
    negative = value < 0 and _digits(abs(value), precision or 0) != _digits(Decimal(0), precision or 0)
    sign = "-" if negative else ""
    upper = spec.upper()
    if upper == "C":
        body = _fixed(value, 2 if precision is None else precision, loc, True)
        return sign + (loc.currency + body if loc.currency_before else body + " " + loc.currency)
    if upper == "D":
        if not isinstance(original, int):
            fail("formatNumber", "format 'D' is for integers only.")
        return sign + str(abs(original)).zfill(precision or 0)
    if upper == "X":
        if not isinstance(original, int):
            fail("formatNumber", "format 'X' is for integers only.")
        digits = format(original if original >= 0 else original & 0xFFFFFFFFFFFFFFFF, "x").zfill(precision or 0)
        return digits.upper() if spec == "X" else digits
    if upper == "F":
        return sign + _fixed(value, 2 if precision is None else precision, loc, False)
    if upper == "N":
        return sign + _fixed(value, 2 if precision is None else precision, loc, True)
    if upper == "P":
        body = _fixed(value * 100, 2 if precision is None else precision, loc, True)
        return sign + body + (" %" if loc.percent_space else "%")
    if upper == "E":
        places = 6 if precision is None else precision
        mantissa, _, exponent = format(abs(value), f".{places}E").partition("E")
        exp = int(exponent)
        text = mantissa.replace(".", loc.decimal) + ("E" if spec == "E" else "e") + ("+" if exp >= 0 else "-") \
            + f"{abs(exp):03d}"
        return sign + text
    if upper == "G":
        if precision:
            return sign + format(abs(value), f".{precision}g").replace(".", loc.decimal).upper()
        plain = format(abs(value).normalize(), "f") if value != 0 else "0"
        return sign + plain.replace(".", loc.decimal)
    fail("formatNumber", f"was given the format {spec!r}, which is not a .NET numeric format this translation covers.")


_LITERAL = re.compile(r"'[^']*'|\"[^\"]*\"|\\.")


def _custom(value: Decimal, pattern: str, loc: Locale) -> str:
    sections = pattern.split(";")
    if len(sections) > 1 and value < 0:
        pattern, value = sections[1], abs(value)
        sign = ""
    else:
        pattern = sections[0]
        sign = "-" if value < 0 else ""
    literals: list[str] = []

    def hold(match: re.Match[str]) -> str:
        token = match.group(0)
        literals.append(token[1:] if token.startswith("\\") else token[1:-1])
        return "\x00"

    bare = _LITERAL.sub(hold, pattern)
    if "%" in bare:
        value *= 100
    point = bare.find(".")
    int_part, frac_part = (bare[:point], bare[point + 1:]) if point >= 0 else (bare, "")
    while int_part.endswith(","):               # scaling commas before the point
        value /= 1000
        int_part = int_part[:-1]
    grouped = "," in int_part.strip("#0") or re.search(r"[#0],[#0]", int_part) is not None
    frac_digits = [c for c in frac_part if c in "0#"]
    min_frac = max((i + 1 for i, c in enumerate(frac_digits) if c == "0"), default=0)
    max_frac = len(frac_digits)
    digits = _digits(abs(value), max_frac)
    whole, _, frac = digits.partition(".")
    frac = frac.rstrip("0").ljust(min_frac, "0") if frac else "0" * min_frac
    min_int = int_part.count("0")
    whole = whole.lstrip("0").rjust(min_int, "0") if min_int else whole.lstrip("0")
    if grouped:
        whole = _group(whole, loc.group)
    number = whole + (loc.decimal + frac if frac else "")
    # place the number where the pattern's digits are, keep the literals and % around it
    first_digit = min((i for i, c in enumerate(bare) if c in "0#,."), default=len(bare))
    last_digit = max((i for i, c in enumerate(bare) if c in "0#,."), default=-1)
    out = bare[:first_digit] + number + bare[last_digit + 1:]
    for literal in literals:
        out = out.replace("\x00", literal, 1)
    return sign + out


def formatNumber(number: Any, fmt: Any, loc: Any = None) -> str:  # noqa: N802 - the WDL name
    """Return ``formatNumber(number, format, locale?)`` as .NET's ``ToString(format, locale)``."""
    if not is_number(number):
        fail("formatNumber", f"expects a number as its first parameter. The provided value is of type '{kind(number)}'.")
    spec, where = string_arg("formatNumber", fmt), locale("formatNumber", loc)
    value = Decimal(repr(number)) if isinstance(number, float) else Decimal(number)
    standard = re.fullmatch(r"([A-Za-z])(\d{0,2})", spec)
    if standard:
        return _standard(value, standard.group(1), int(standard.group(2)) if standard.group(2) else None, where,
                         number)
    return _custom(value, spec, where)


def _float_text(value: str, loc: Locale) -> str | None:
    """Return the digits of a number in ``loc``'s format as Python reads them (.NET's NumberStyles.Float with
    thousands and a trailing sign: ``'  +1,000 '``, ``'200-'``), or None."""
    body = value.strip()
    if body.lower() == "nan":
        return "nan"
    group, point = re.escape(loc.group), re.escape(loc.decimal)
    digits = rf"(\d+|\d{{1,3}}({group}\d{{3}})+)?({point}\d*)?([eE][+-]?\d+)?"
    match = re.fullmatch(rf"([+-]?){digits}|{digits}([+-])", body)
    if match is None or not re.search(r"\d", body):
        return None
    sign = "-" if body.startswith("-") or body.endswith("-") else ""
    return sign + body.strip("+-").replace(loc.group, "").replace(loc.decimal, ".")


def float_(value: Any, loc: Any = None) -> float:
    """Return ``float(value, locale?)``: ``float('10,000.333')`` is ``10000.333``."""
    if is_number(value):
        return float(value)
    found = _float_text(string_arg("float", value), locale("float", loc))
    if found is None:
        fail("float", f"could not parse {value!r} as a floating-point number.")
    return float(found)


def isFloat(value: Any, loc: Any = None) -> bool:  # noqa: N802
    """Return ``isFloat(string, locale?)``: whether the string is a floating-point number."""
    return _float_text(string_arg("isFloat", value), locale("isFloat", loc)) is not None


_INTEGER = re.compile(r"\s*[+-]?\d+\s*")


def isInt(value: Any) -> bool:  # noqa: N802
    """Return ``isInt(string)``: whether the string is an integer (64-bit)."""
    text = string_arg("isInt", value)
    return bool(_INTEGER.fullmatch(text)) and -(2**63) <= int(text) < 2**63


_INT_TEXT = re.compile(r"\s*([+-]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.0*)?\s*")


def int_(value: Any) -> int:
    """Return ``int(value)``: the integer a string holds (``'  +1,000 '``, ``'1.0'``); a whole number stays itself."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float | Decimal) and value == int(value):
        return int(value)
    match = _INT_TEXT.fullmatch(string_arg("int", value))
    if match is None:
        fail("int", f"could not parse {value!r} as an integer.")
    number = int(match.group(1) + match.group(2).replace(",", ""))
    if not -(2**63) <= number < 2**63:
        fail("int", f"could not parse {value!r} as a 64-bit integer.")
    return number


def decimal(value: Any) -> Decimal:
    """Return ``decimal(value)``: the decimal number a string holds, with its precision."""
    if is_number(value):
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    found = _float_text(string_arg("decimal", value), LOCALES["en-us"])
    if found is None or found == "nan":
        fail("decimal", f"could not parse {value!r} as a decimal number.")
    try:
        return Decimal(found)
    except InvalidOperation:
        fail("decimal", f"could not parse {value!r} as a decimal number.")

"""Timestamps as .NET reads and writes them for WDL's date functions.

A WDL timestamp is a string; here it is a ``datetime``: *aware* (UTC) when the string had ``Z``
or an offset (an offset is converted to UTC, as the Logic Apps runtime, which runs in UTC,
does), *naive* when it had none ("unspecified" kind: ``'o'`` then writes no ``K``).
Precision is the microsecond (.NET keeps 100 ns ticks: a 7th fraction digit is dropped).

``write(stamp, format, locale)`` implements .NET's standard formats (``d D f F g G M o R s t T
u U Y``, en-US patterns) and custom patterns (``yyyy MM dd HH hh mm ss fffffff FFF tt K zzz
dddd MMMM`` …, quoted literals, ``\\`` escapes); ``read(text, locale, format?)`` parses ISO 8601,
US ``MM/dd/yyyy``, RFC 1123, day-first dates for day-first locales, or one custom pattern.
Month and day names exist for the locales in ``NAMES``; another locale fails naming it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from ._wdl_values import fail, string_arg

_EN = (["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December"],
       ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"])
NAMES: dict[str, tuple[list[str], list[str]]] = {
    "en-us": _EN, "en-gb": _EN, "invariant": _EN,
    "fr-fr": (["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
               "novembre", "décembre"], ["dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"]),
    "es-es": (["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
               "noviembre", "diciembre"], ["domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"]),
    "de-de": (["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
               "November", "Dezember"], ["Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag",
                                         "Samstag"]),
}
_DAY_FIRST = {"en-gb", "fr-fr", "es-es", "de-de"}
_ABBR_MONTH_EN = [m[:3] for m in _EN[0]]

STANDARD = {
    "d": "M/d/yyyy", "D": "dddd, MMMM d, yyyy", "f": "dddd, MMMM d, yyyy h:mm tt",
    "F": "dddd, MMMM d, yyyy h:mm:ss tt", "g": "M/d/yyyy h:mm tt", "G": "M/d/yyyy h:mm:ss tt",
    "M": "MMMM d", "m": "MMMM d", "O": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
    "o": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK", "R": "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
    "r": "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'", "s": "yyyy'-'MM'-'dd'T'HH':'mm':'ss",
    "t": "h:mm tt", "T": "h:mm:ss tt", "u": "yyyy'-'MM'-'dd HH':'mm':'ss'Z'", "U": "dddd, MMMM d, yyyy h:mm:ss tt",
    "Y": "MMMM yyyy", "y": "MMMM yyyy",
}
_LETTERS = set("dfFghHKmMstyz")


def names(function: str, locale: Any) -> tuple[str, tuple[list[str], list[str]]]:
    """Return (locale key, (months, days)) for ``locale`` (default ``en-us``), or fail naming it."""
    key = "en-us" if locale is None or locale == "" else string_arg(function, locale).lower()
    if key not in NAMES:
        fail(function, f"was given the locale {locale!r}, which this translation does not support "
                       f"(supported: {', '.join(sorted(NAMES))}).")
    return key, NAMES[key]


def tokens(pattern: str) -> list[tuple[str, str]]:
    """Split a .NET custom date pattern into ("lit", text) and (letter, run) tokens."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c in "'\"":
            end = pattern.find(c, i + 1)
            end = len(pattern) if end < 0 else end
            out.append(("lit", pattern[i + 1:end]))
            i = end + 1
        elif c == "\\":
            out.append(("lit", pattern[i + 1:i + 2]))
            i += 2
        elif c == "%":
            i += 1
        elif c in _LETTERS:
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            out.append((c, pattern[i:j]))
            i = j
        else:
            out.append(("lit", c))
            i += 1
    return out


def _fraction(stamp: datetime, run: str) -> str:
    digits = f"{stamp.microsecond:06d}0"[:len(run)]
    return digits.rstrip("0") if run[0] == "F" else digits


def _offset(stamp: datetime, run: str) -> str:
    delta = stamp.utcoffset() or timedelta(0)
    minutes = int(delta.total_seconds()) // 60
    sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
    if run == "z":
        return f"{sign}{minutes // 60}"
    if run == "zz":
        return f"{sign}{minutes // 60:02d}"
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _piece(stamp: datetime, letter: str, run: str, months: list[str], days: list[str]) -> str:
    n = len(run)
    if letter == "d":
        if n <= 2:
            return f"{stamp.day:0{n}d}"
        day = days[(stamp.weekday() + 1) % 7]
        return day[:3] if n == 3 else day
    if letter in "fF":
        return _fraction(stamp, run[:7])
    if letter == "g":
        return "A.D."
    if letter == "h":
        return f"{(stamp.hour % 12) or 12:0{min(n, 2)}d}"
    if letter == "H":
        return f"{stamp.hour:0{min(n, 2)}d}"
    if letter == "K":
        return "" if stamp.tzinfo is None else ("Z" if stamp.utcoffset() == timedelta(0) else _offset(stamp, "zzz"))
    if letter == "m":
        return f"{stamp.minute:0{min(n, 2)}d}"
    if letter == "M":
        if n <= 2:
            return f"{stamp.month:0{n}d}"
        month = months[stamp.month - 1]
        return month[:3] if n == 3 else month
    if letter == "s":
        return f"{stamp.second:0{min(n, 2)}d}"
    if letter == "t":
        mark = "AM" if stamp.hour < 12 else "PM"
        return mark[0] if n == 1 else mark
    if letter == "y":
        return f"{stamp.year % 100}" if n == 1 else (f"{stamp.year % 100:02d}" if n == 2 else f"{stamp.year:0{n}d}")
    return _offset(stamp, run)  # z, zz, zzz


def write(stamp: datetime, fmt: Any = None, locale: Any = None, *, function: str = "formatDateTime") -> str:
    """Return ``stamp`` written with the .NET date format ``fmt`` (default ``'o'``)."""
    pattern = "o" if fmt is None or fmt == "" else string_arg(function, fmt)
    key, (months, days) = names(function, locale)
    if len(pattern) == 1:
        if pattern not in STANDARD:
            fail(function, f"was given the format {pattern!r}, which is not a valid .NET date format.")
        if key not in ("en-us", "invariant") and pattern not in "oOsuRr":
            fail(function, f"was given the standard format {pattern!r} with the locale {locale!r}: only en-us "
                           "patterns are translated.")
        if pattern in "RrU" and stamp.tzinfo is not None:
            stamp = stamp.astimezone(UTC)
        if pattern in "Rr":
            months, days = _EN
        pattern = STANDARD[pattern]
    out: list[str] = []
    for letter, run in tokens(pattern):
        if letter == "lit":
            out.append(run)
        elif letter == "F" and out and out[-1] == "." and _fraction(stamp, run[:7]) == "":
            out.pop()
        else:
            out.append(_piece(stamp, letter, run, months, days))
    return "".join(out)


# -- reading ------------------------------------------------------------------------------

_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
                  r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?", re.IGNORECASE)
_SLASHED = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
                      r"\s*([AaPp][Mm])?)?\s*(Z)?")


def _build(year: int, month: int, day: int, hour: str | None, minute: str | None, second: str | None,
           fraction: str | None, zone: str | None) -> datetime:
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    stamp = datetime(year, month, day, int(hour or 0), int(minute or 0), int(second or 0), micro)
    if zone is None:
        return stamp
    if zone.upper() == "Z":
        return stamp.replace(tzinfo=UTC)
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    return (stamp - sign * offset).replace(tzinfo=UTC)


def _named(text: str, months: list[str], days: list[str]) -> datetime | None:
    lowered = [m.lower() for m in months]
    words = [w for w in re.split(r"[\s,.]+", text.strip().lower()) if w and w not in [d.lower() for d in days]]
    if len(words) == 3 and words[0].isdigit() and words[1] in lowered and words[2].isdigit():
        return datetime(int(words[2]), lowered.index(words[1]) + 1, int(words[0]))
    if len(words) == 3 and words[0] in lowered and words[1].isdigit() and words[2].isdigit():
        return datetime(int(words[2]), lowered.index(words[0]) + 1, int(words[1]))
    return None


def _guess(text: str, key: str, months: list[str], days: list[str]) -> datetime | None:
    match = _ISO.fullmatch(text)
    if match:
        g = match.groups()
        return _build(int(g[0]), int(g[1]), int(g[2]), g[3], g[4], g[5], g[6], g[7])
    match = _SLASHED.fullmatch(text)
    if match:
        a, b, year, hour, minute, second, fraction, mark, zone = match.groups()
        month, day = (int(b), int(a)) if key in _DAY_FIRST else (int(a), int(b))
        if hour is not None and mark is not None:
            hour = str(int(hour) % 12 + (12 if mark.lower() == "pm" else 0))
        return _build(int(year), month, day, hour, minute, second, fraction, zone)
    if re.fullmatch(r"[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(:\d{2})? (GMT|UTC|[+-]\d{4})", text):
        return parsedate_to_datetime(text).astimezone(UTC)
    return _named(text, months, days)


def _exact(text: str, pattern: str, months: list[str]) -> datetime | None:
    groups: list[str] = []
    regex = ""
    for letter, run in tokens(pattern):
        n = len(run)
        if letter == "lit":
            regex += re.escape(run)
            continue
        if letter in "dMyHhmsfFt" and not (letter in "dM" and n > 2):
            width = {"y": "4" if n >= 3 else "2"}.get(letter, "2" if n >= 2 else "1,2")
            if letter in "fF":
                width = str(n)
            if letter == "t":
                regex += "([AaPp][Mm]?)"
            else:
                regex += rf"(\d{{{width}}})"
            groups.append(letter)
        elif letter == "M":
            regex += "(" + "|".join(re.escape(m if n > 3 else m[:3]) for m in months) + ")"
            groups.append("MMM")
        elif letter == "d":
            regex += r"\w+"
        elif letter in "Kz":
            regex += r"(Z|[+-]\d{1,2}(?::?\d{2})?)?"
            groups.append("K")
    match = re.fullmatch(regex, text, re.IGNORECASE)
    if match is None:
        return None
    parts: dict[str, str] = {}
    for letter, value in zip(groups, match.groups(), strict=True):
        parts[letter] = value or ""
    year = int(parts.get("y", "1"))
    year = (2000 + year if year < 50 else 1900 + year) if len(parts.get("y", "")) == 2 else year
    month = int(parts["M"]) if "M" in parts else 1
    if "MMM" in parts:
        month = [m.lower()[:len(parts["MMM"])] for m in months].index(parts["MMM"].lower()) + 1
    hour = int(parts.get("H") or parts.get("h") or 0)
    if parts.get("t", "").lower().startswith("p") and hour < 12:
        hour += 12
    elif parts.get("t", "").lower().startswith("a") and hour == 12:
        hour = 0
    fraction = parts.get("f") or parts.get("F")
    return _build(year, month, int(parts.get("d", "1")), str(hour), parts.get("m"), parts.get("s"), fraction,
                  parts.get("K") or None)


def read(value: Any, locale: Any = None, fmt: Any = None, *, function: str = "formatDateTime") -> datetime:
    """Return the timestamp the string ``value`` holds, or fail naming the function."""
    text = string_arg(function, value).strip()
    key, (months, days) = names(function, locale)
    try:
        if fmt is not None and fmt != "":
            pattern = string_arg(function, fmt)
            found = _exact(text, STANDARD.get(pattern, pattern) if len(pattern) == 1 else pattern, months)
        else:
            found = _guess(text, key, months, days)
    except ValueError:
        found = None
    if found is None:
        fail(function, f"was given {value!r}, which is not a valid timestamp.")
    return found

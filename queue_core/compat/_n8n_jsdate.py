"""Dates read as JavaScript's ``new Date(text)`` reads them (V8), written as ``toISOString`` writes them.

rss-parser gives each feed item an ``isoDate`` so, and an Atom entry's ``pubDate``. V8 first tries
the ISO forms (``2024-01-02``, ``…T10:00``, ``…:00.5Z``, ``…+02:00``: a date alone is UTC, a date
and time without an offset local time), then its legacy parser: an optional day name, a day, a
month name and a year in any order or ``y/m/d``, ``m/d/y``, a time ``h:mm[:ss[.f]]`` with AM/PM, and a
zone (``GMT``, ``UT``, ``UTC``, ``Z``, the US zones ``EST`` … ``PDT``, ``+0200``, ``GMT+01:00``). What
neither reads is None (``Invalid Date``): an unknown zone word (``CET``), a time past 24:00.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_ISO = re.compile(r"([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
                  r"(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ZONES = {"ut": 0, "utc": 0, "gmt": 0, "z": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5,
          "mst": -7, "mdt": -6, "pst": -8, "pdt": -7}
_TOKEN = re.compile(r"\d+|[A-Za-z]+|[+-]|:|\.|/|,|\s+|.")


def _at(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, ms: int = 0,
        offset: int | None = None) -> datetime | None:
    """Return the instant, or None for a field out of range; ``offset`` in minutes, None for local time."""
    if not (1 <= month <= 12 and 1 <= day <= 31 and 0 <= minute <= 59 and 0 <= second <= 59):
        return None
    if hour > 24 or (hour == 24 and (minute or second or ms)):
        return None
    try:
        base = datetime(year, month, 1)
    except ValueError:
        return None
    moment = base + timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second, milliseconds=ms)
    if offset is None:
        return moment.astimezone(timezone.utc)  # a naive moment is the worker's local time, as in node
    return (moment - timedelta(minutes=offset)).replace(tzinfo=timezone.utc)


def _iso(text: str) -> datetime | None:
    found = _ISO.fullmatch(text)
    if not found:
        return None
    year, month, day, hour, minute, second, fraction, zone = found.groups()
    ms = int((fraction + "00")[:3]) if fraction else 0
    if hour is None:
        return _at(int(year), int(month or 1), int(day or 1), offset=0)
    offset = None if zone is None else 0 if zone == "Z" else (
        (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6])))
    return _at(int(year), int(month or 1), int(day or 1), int(hour), int(minute), int(second or 0), ms, offset)


def _legacy(text: str) -> datetime | None:  # noqa: C901 - one tokenizer pass, as V8's
    tokens = [t for t in _TOKEN.findall(re.sub(r"\([^)]*\)", " ", text)) if not t.isspace()]
    numbers: list[tuple[int, str]] = []  # (value, the separator that followed)
    month = offset = None
    clock: list[int] = []
    ampm = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token.isdigit():
            if nxt == ":" and not clock:  # a time: h:mm[:ss[.fff]]
                parts = [token]
                i += 1
                while i < len(tokens) and tokens[i] in (":", ".") and i + 1 < len(tokens) and tokens[i + 1].isdigit():
                    parts.append(tokens[i] + tokens[i + 1])
                    i += 2
                clock = [int(parts[0])] + [int(p[1:]) for p in parts[1:] if p[0] == ":"]
                fraction = next((p[1:] for p in parts[1:] if p[0] == "."), "")
                clock = (clock + [0, 0])[:3] + [int((fraction + "00")[:3]) if fraction else 0]
                continue
            numbers.append((int(token), nxt if nxt in ("/", "-", ".") else ""))
        elif token in ("+", "-") and nxt.isdigit() and (clock or offset is not None):
            digits = nxt
            i += 2
            if i + 1 < len(tokens) and tokens[i] == ":" and tokens[i + 1].isdigit():
                digits, i = digits + tokens[i + 1].zfill(2), i + 2
            value = int(digits) * 100 if len(digits) <= 2 else int(digits[:-2]) * 100 + int(digits[-2:])
            offset = (offset or 0) + (1 if token == "+" else -1) * (value // 100 * 60 + value % 100)
            continue
        elif token.isalpha():
            word = token.lower()
            if word in ("am", "pm"):
                ampm = word
            elif word in _ZONES:
                offset = _ZONES[word] * 60
            elif len(word) >= 3 and word[:3] in _MONTHS and month is None:
                month = _MONTHS.index(word[:3]) + 1
            elif word == "t" and numbers:
                pass
            elif numbers or clock:
                return None  # an unknown word after the date began: Invalid Date (``CET``)
        i += 1
    if clock and ampm:
        if clock[0] > 12:
            return None
        clock[0] = clock[0] % 12 + (12 if ampm == "pm" else 0)
    values = [n for n, _ in numbers]
    if month is not None:
        if len(values) != 2:
            return None
        day, year = (values[0], values[1]) if values[0] <= 31 else (values[1], values[0])
    elif len(values) == 3:
        if values[0] > 31 or numbers[0][1] and len(str(values[0])) >= 3:
            year, month, day = values
        else:
            month, day, year = values
    else:
        return None
    if year < 50:
        year += 2000
    elif year < 100:
        year += 1900
    hour, minute, second, ms = clock or [0, 0, 0, 0]
    return _at(year, month, day, hour, minute, second, ms, offset)


def js_date(text: str) -> datetime | None:
    """Return the instant ``new Date(text)`` is in V8, or None where it is an Invalid Date."""
    text = text.strip()
    return _iso(text) if _ISO.fullmatch(text) else _legacy(text)


def iso_string(moment: datetime) -> str:
    """Return ``moment`` as ``Date.prototype.toISOString`` writes it (UTC, milliseconds, ``Z``)."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

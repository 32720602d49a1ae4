"""Formatter by Zapier's Date/Time transforms (``_zapier_formatter``): format a date, add or subtract time.

Formats are written in Arrow's tokens, the library Formatter's backend uses (zapier/transformer#10 documents its
token table; ``X`` is the unix timestamp, zapier/transformer#37/#39): ``YYYY-MM-DDTHH:mm:ssZ``, ``MM/DD/YYYY``,
``MMMM D YYYY`` … An input without a from-format is read as Zapier reads a date field: ISO 8601, a unix timestamp,
or a US ``M/D/YYYY`` date with an optional time (https://help.zapier.com/hc/en-us/articles/8496259603341).
Natural-language dates ("tomorrow at noon") are not read here: they raise ValueError, naming the value.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from email.utils import parsedate_to_datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ._zapier_formatter_text import Params, as_text, value

_MONTHS = list(calendar.month_name)[1:]
_DAYS = list(calendar.day_name)
_TOKEN = re.compile(r"\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DDDD|DDD|Do|DD|D|dddd|ddd|d|HH|H|hh|h|A|a|mm|m|ss|s"
                    r"|S+|X|x|ZZZ|ZZ|Z|W")


def zone(name: Any, field: str) -> tzinfo:
    text = as_text(name).strip()
    if text in {"", "UTC", "utc", "Etc/UTC", "GMT"}:
        return UTC
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"Formatter field {field!r}: {text!r} is not a time zone name") from None


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _offset(moment: datetime, colon: bool) -> str:
    delta = moment.utcoffset() or timedelta(0)
    minutes = int(delta.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}" if colon else f"{sign}{hours:02d}{mins:02d}"


def render(moment: datetime, pattern: str) -> str:
    """``moment`` written in Arrow's format tokens."""
    hour12 = moment.hour % 12 or 12

    def token(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        tok = m.group(0)
        if tok.startswith("S"):
            return f"{moment.microsecond:06d}"[:len(tok)].ljust(len(tok), "0")
        return {
            "YYYY": f"{moment.year:04d}", "YY": f"{moment.year % 100:02d}", "MMMM": _MONTHS[moment.month - 1],
            "MMM": _MONTHS[moment.month - 1][:3], "MM": f"{moment.month:02d}", "M": str(moment.month),
            "DDDD": f"{moment.timetuple().tm_yday:03d}", "DDD": str(moment.timetuple().tm_yday),
            "Do": _ordinal(moment.day), "DD": f"{moment.day:02d}", "D": str(moment.day),
            "dddd": _DAYS[moment.weekday()], "ddd": _DAYS[moment.weekday()][:3], "d": str(moment.isoweekday()),
            "HH": f"{moment.hour:02d}", "H": str(moment.hour), "hh": f"{hour12:02d}", "h": str(hour12),
            "A": "AM" if moment.hour < 12 else "PM", "a": "am" if moment.hour < 12 else "pm",
            "mm": f"{moment.minute:02d}", "m": str(moment.minute), "ss": f"{moment.second:02d}",
            "s": str(moment.second), "X": str(int(moment.timestamp())), "x": str(int(moment.timestamp() * 1000)),
            "ZZZ": moment.tzname() or "", "ZZ": _offset(moment, True), "Z": _offset(moment, False),
            "W": f"{moment.isocalendar().year}-W{moment.isocalendar().week:02d}-{moment.isoweekday()}",
        }[tok]
    return _TOKEN.sub(token, pattern)


_PARSE = {
    "YYYY": r"(?P<year>\d{4})", "YY": r"(?P<yy>\d{2})", "MMMM": r"(?P<monthname>[A-Za-z]+)",
    "MMM": r"(?P<mon>[A-Za-z]{3})", "MM": r"(?P<month>\d{2})", "M": r"(?P<month>\d{1,2})",
    "Do": r"(?P<day>\d{1,2})(?:st|nd|rd|th)", "DD": r"(?P<day>\d{2})", "D": r"(?P<day>\d{1,2})",
    "dddd": r"[A-Za-z]+", "ddd": r"[A-Za-z]{3}", "d": r"[1-7]", "HH": r"(?P<hour>\d{2})", "H": r"(?P<hour>\d{1,2})",
    "hh": r"(?P<hour12>\d{2})", "h": r"(?P<hour12>\d{1,2})", "A": r"(?P<ampm>AM|PM|am|pm)",
    "a": r"(?P<ampm>am|pm|AM|PM)", "mm": r"(?P<minute>\d{2})", "m": r"(?P<minute>\d{1,2})",
    "ss": r"(?P<second>\d{2})", "s": r"(?P<second>\d{1,2})", "X": r"(?P<unix>-?\d+(?:\.\d+)?)",
    "x": r"(?P<unixms>-?\d+)", "ZZ": r"(?P<tz>Z|[+-]\d{2}:?\d{2})", "Z": r"(?P<tz>Z|[+-]\d{2}:?\d{2})",
}


def parse_with(text: str, pattern: str, default_zone: tzinfo) -> datetime:
    """Read ``text`` written in the Arrow format ``pattern``."""
    regex, pos, seen = "", 0, set()
    for m in _TOKEN.finditer(pattern):
        regex += re.escape(pattern[pos:m.start()])
        tok = m.group(0)
        if m.group(1) is not None:
            regex += re.escape(m.group(1))
        elif tok.startswith("S"):
            regex += r"(?P<frac>\d+)" if "frac" not in seen else r"\d+"
            seen.add("frac")
        else:
            part = _PARSE.get(tok)
            if part is None:
                raise ValueError(f"Formatter from_format: the token {tok!r} cannot be read back")
            name = re.search(r"\?P<(\w+)>", part)
            if name and name.group(1) in seen:  # a field given twice: the second must only match
                part = re.sub(r"\?P<\w+>", "?:", part)
            elif name:
                seen.add(name.group(1))
            regex += part
        pos = m.end()
    regex += re.escape(pattern[pos:])
    found = re.fullmatch(regex, text.strip())
    if found is None:
        raise ValueError(f"Formatter date {text!r} does not match the from-format {pattern!r}")
    return _assemble(found.groupdict(), default_zone, text)


def _assemble(groups: dict[str, str | None], default_zone: tzinfo, text: str) -> datetime:
    g = {name: found for name, found in groups.items() if found}
    if "unix" in g:
        return datetime.fromtimestamp(float(g["unix"]), UTC)
    if "unixms" in g:
        return datetime.fromtimestamp(int(g["unixms"]) / 1000, UTC)
    # a two-digit year is 1969-2068, as Arrow reads YY
    year = int(g["year"]) if "year" in g else (1900 if int(g["yy"]) > 68 else 2000) + int(g["yy"]) if "yy" in g else 1970
    if g.get("monthname") or g.get("mon"):
        name = (g.get("monthname") or g.get("mon") or "").lower()
        months = [m.lower() for m in _MONTHS]
        index = next((i for i, m in enumerate(months) if m == name or m[:3] == name[:3]), None)
        if index is None:
            raise ValueError(f"Formatter date {text!r}: {name!r} is not a month")
        month = index + 1
    else:
        month = int(g.get("month") or 1)
    hour = int(g["hour"]) if "hour" in g else int(g["hour12"]) % 12 if "hour12" in g else 0
    if g.get("ampm", "").lower() == "pm" and hour < 12:
        hour += 12
    frac = (g.get("frac") or "0")[:6].ljust(6, "0")
    try:
        moment = datetime(year, month, int(g.get("day") or 1), hour, int(g.get("minute") or 0),
                          int(g.get("second") or 0), int(frac))
    except ValueError as exc:
        raise ValueError(f"Formatter date {text!r}: {exc}") from None
    tz = g.get("tz")
    if tz:
        return datetime.fromisoformat(moment.isoformat() + ("+00:00" if tz == "Z" else tz[:3] + ":" + tz[-2:]))
    return moment.replace(tzinfo=default_zone)


# M/D/YYYY with an optional time; a trailing zone abbreviation ("EST") is ignored, as dateutil ignores the ones
# it does not know (the date then reads as UTC, or as the From Timezone).
_US = re.compile(r"(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})"
                 r"(?:\s+(?P<hour12>\d{1,2})(?::(?P<minute>\d{2}))?(?::(?P<second>\d{2}))?\s*(?P<ampm>[AaPp][Mm])?)?"
                 r"(?:\s+[A-Z]{2,5})?")


# Written dates read as the backend's parser (dateutil, month first) reads the common ones: commas, "at" and a
# leading weekday ignored ("Monday, October 26, 2020 at 4:56 PM"), then these layouts are tried in turn.
_LAYOUTS = ("ddd MMM D HH:mm:ss Z YYYY", "MMMM D YYYY", "MMMM D YYYY h:mm A", "MMMM D YYYY h:mmA", "MMMM D YYYY HH:mm",
            "MMMM D YYYY HH:mm:ss", "D MMMM YYYY", "D MMMM YYYY HH:mm", "D MMMM YYYY HH:mm:ss", "YYYY/M/D",
            "YYYY/M/D HH:mm", "YYYY/M/D HH:mm:ss", "M-D-YYYY", "M/D/YY")
_WEEKDAY = re.compile(r"^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+", re.I)


def _written(text: str, default_zone: tzinfo) -> datetime | None:
    try:
        moment = parsedate_to_datetime(text)  # RFC 2822, as in e-mail: "Mon, 26 Oct 2020 16:56:00 +0000"
        return moment if moment.tzinfo else moment.replace(tzinfo=default_zone)
    except (TypeError, ValueError, IndexError):
        pass
    plain = re.sub(r"\s+", " ", re.sub(r",|\bat\b", " ", text)).strip()
    for candidate in (text, _WEEKDAY.sub("", plain)):
        for layout in _LAYOUTS:
            try:
                return parse_with(candidate, layout, default_zone)
            except ValueError:
                continue
    return None


def read(raw: Any, from_format: str, default_zone: tzinfo) -> datetime:
    """A date given to a Formatter step, in ``from_format`` when one is set."""
    text = as_text(raw).strip()
    if not text:
        raise ValueError("Formatter date: the input is empty")
    if from_format:
        return parse_with(text, from_format, default_zone)
    if re.fullmatch(r"-?\d{9,}(?:\.\d+)?", text):
        stamp = float(text)  # a stamp past 2**32 - 1 is taken as milliseconds (the backend's try_parse_date)
        return datetime.fromtimestamp(stamp / 1000 if stamp >= (1 << 32) - 1 else stamp, UTC)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        us = _US.fullmatch(text)
        if us is None:
            written = _written(text, default_zone)
            if written is None:
                raise ValueError(f"Formatter date {text!r} is not a date it can read (give a from-format)") from None
            return written
        groups = us.groupdict()
        if groups.get("hour12") and not groups.get("ampm"):
            groups["hour"], groups["hour12"] = groups["hour12"], None
        return _assemble(groups, default_zone, text)
    return moment if moment.tzinfo else moment.replace(tzinfo=default_zone)


def _formatting(params: Params) -> dict[str, Any]:
    to_zone = zone(params.get("to_timezone"), "to_timezone")
    from_zone = zone(params.get("from_timezone"), "from_timezone")
    pattern = as_text(params.get("to_format"))  # required in Zapier; Arrow writes an empty format as ""

    def one(item: Any) -> str:
        if as_text(item).strip() == "":  # a blank date stays blank (zapier/transformer#25, #36)
            return ""
        moment = read(item, as_text(params.get("from_format")), UTC)
        # From Timezone: "If no timezone is provided in the incoming data" — the backend replaces the zone of any
        # date that reads as UTC (no zone, "Z", "+00:00", a unix stamp) with it (transformer/transforms/date/
        # formatting.py).
        if from_zone is not UTC and moment.utcoffset() == timedelta(0):
            moment = moment.replace(tzinfo=from_zone)
        return render(moment.astimezone(to_zone), pattern)
    given = value(params)
    return {"output": [one(item) for item in given] if isinstance(given, list) else one(given)}


# Add/Subtract Time's expression (transformer/util.py's tdelta): signed or unsigned amounts with a unit —
# y/yr/year(s), mo/month(s), w/wk/week(s), d/day(s), h/hr/hour(s), m/min/minute(s), s/sec/second(s) — summed per
# unit; text that is no such term is ignored. Examples from its help: "+8 hours 1 minute", "+1 month -2 days".
_TERM = re.compile(r"""(?:
    (?P<years>(?:[-+]\s*)?\d+)\s*y(?:(?:ea)?r(?:s)?)?
  | (?P<months>(?:[-+]\s*)?\d+)\s*mo(?:nth(?:s)?)?
  | (?P<weeks>(?:[-+]\s*)?\d+)\s*w(?:(?:ee)?(?:k(?:s)?)?)
  | (?P<days>(?:[-+]\s*)?\d+)\s*d(?:ay(?:s)?)?
  | (?P<hours>(?:[-+]\s*)?\d+)\s*h(?:ou)?(?:r(?:s)?)?
  | (?P<minutes>(?:[-+]\s*)?\d+)\s*m(?:in(?:ute)?(?:s)?)?
  | (?P<seconds>(?:[-+]\s*)?\d+)\s*s(?:ec(?:ond)?(?:s)?)?
) (?:\s|$)""", re.X)
_KEYS = ("years", "months", "weeks", "days", "hours", "minutes", "seconds")


def delta(expression: str) -> dict[str, int]:
    """The amounts an Add/Subtract Time expression asks for, per unit."""
    out = dict.fromkeys(_KEYS, 0)
    for match in _TERM.finditer(expression):
        for key in _KEYS:
            if match.group(key) is not None:
                out[key] += int(match.group(key).replace(" ", ""))
    return out


def shift(moment: datetime, expression: str) -> datetime:
    """``moment`` moved by the expression: years and months first (the day kept, or the month's last day), then
    weeks and days, then hours, minutes and seconds."""
    amounts = delta(expression)
    months = moment.month - 1 + amounts["months"] + 12 * amounts["years"]
    year, month = moment.year + months // 12, months % 12 + 1
    moment = moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))
    moment = moment + timedelta(weeks=amounts["weeks"], days=amounts["days"])
    return moment + timedelta(hours=amounts["hours"], minutes=amounts["minutes"], seconds=amounts["seconds"])


def _add_time(params: Params) -> dict[str, Any]:
    from_zone = zone(params.get("from_timezone"), "from_timezone")
    to_zone = zone(params.get("to_timezone") or params.get("from_timezone"), "to_timezone")
    pattern = as_text(params.get("to_format"))  # required in Zapier; Arrow writes an empty format as ""
    expression = as_text(params.get("expression"))

    def one(item: Any) -> str:
        if as_text(item).strip() == "":  # a blank date stays blank (zapier/transformer#25, #36)
            return ""
        moment = read(item, as_text(params.get("from_format")), from_zone)
        return render(shift(moment, expression).astimezone(to_zone), pattern)
    given = value(params)
    return {"output": [one(item) for item in given] if isinstance(given, list) else one(given)}


TRANSFORMS: dict[str, Callable[[Params], dict[str, Any]]] = {
    "formatting": _formatting,
    "add_time": _add_time,
}

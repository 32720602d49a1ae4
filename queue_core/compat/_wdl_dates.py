"""WDL date and time functions, with the reference's semantics.

Every function that returns a timestamp takes an optional .NET ``format`` (default ``'o'``,
``yyyy-MM-ddTHH:mm:ss.fffffffK``): a UTC timestamp keeps its ``Z``
(``addDays('2018-03-15T00:00:00Z', 10)`` is ``2018-03-25T00:00:00.0000000Z``), one without a
zone stays without. ``utcNow``, ``getFutureTime`` and ``getPastTime`` read the run's clock
(``run.now()``: the job's clock, the trigger's time in a shadow replay).

Time zones are Windows time zone names (``Pacific Standard Time``) mapped to the IANA zones
of ``WINDOWS_ZONES``; a name outside that table is not translated (``zone_known`` lets the
translator refuse a literal one; at run time it fails the action naming it).
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ._wdl_netdate import read, write
from ._wdl_values import fail, int_arg, number_arg, string_arg

WINDOWS_ZONES: dict[str, str] = {
    "UTC": "UTC", "Coordinated Universal Time": "UTC", "GMT Standard Time": "Europe/London",
    "Greenwich Standard Time": "Atlantic/Reykjavik", "W. Europe Standard Time": "Europe/Berlin",
    "Central Europe Standard Time": "Europe/Budapest", "Romance Standard Time": "Europe/Paris",
    "Central European Standard Time": "Europe/Warsaw", "E. Europe Standard Time": "Europe/Chisinau",
    "FLE Standard Time": "Europe/Kiev", "GTB Standard Time": "Europe/Bucharest",
    "Russian Standard Time": "Europe/Moscow", "Turkey Standard Time": "Europe/Istanbul",
    "Israel Standard Time": "Asia/Jerusalem", "South Africa Standard Time": "Africa/Johannesburg",
    "Egypt Standard Time": "Africa/Cairo", "W. Central Africa Standard Time": "Africa/Lagos",
    "E. Africa Standard Time": "Africa/Nairobi", "Morocco Standard Time": "Africa/Casablanca",
    "Arabian Standard Time": "Asia/Dubai", "Arab Standard Time": "Asia/Riyadh", "Iran Standard Time": "Asia/Tehran",
    "India Standard Time": "Asia/Kolkata", "Pakistan Standard Time": "Asia/Karachi",
    "Bangladesh Standard Time": "Asia/Dhaka", "SE Asia Standard Time": "Asia/Bangkok",
    "China Standard Time": "Asia/Shanghai", "Singapore Standard Time": "Asia/Singapore",
    "Taipei Standard Time": "Asia/Taipei", "Tokyo Standard Time": "Asia/Tokyo", "Korea Standard Time": "Asia/Seoul",
    "AUS Eastern Standard Time": "Australia/Sydney", "E. Australia Standard Time": "Australia/Brisbane",
    "Cen. Australia Standard Time": "Australia/Adelaide", "W. Australia Standard Time": "Australia/Perth",
    "New Zealand Standard Time": "Pacific/Auckland", "Hawaiian Standard Time": "Pacific/Honolulu",
    "Alaskan Standard Time": "America/Anchorage", "Pacific Standard Time": "America/Los_Angeles",
    "US Mountain Standard Time": "America/Phoenix", "Mountain Standard Time": "America/Denver",
    "Central Standard Time": "America/Chicago", "Eastern Standard Time": "America/New_York",
    "Atlantic Standard Time": "America/Halifax", "Newfoundland Standard Time": "America/St_Johns",
    "Canada Central Standard Time": "America/Regina", "SA Pacific Standard Time": "America/Bogota",
    "Central America Standard Time": "America/Guatemala", "Central Standard Time (Mexico)": "America/Mexico_City",
    "E. South America Standard Time": "America/Sao_Paulo", "Argentina Standard Time": "America/Argentina/Buenos_Aires",
    "SA Western Standard Time": "America/La_Paz", "Pacific SA Standard Time": "America/Santiago",
    "Dateline Standard Time": "Etc/GMT+12", "UTC-11": "Etc/GMT+11", "Aleutian Standard Time": "America/Adak",
    "Marquesas Standard Time": "Pacific/Marquesas", "Pacific Standard Time (Mexico)": "America/Tijuana",
    "Mountain Standard Time (Mexico)": "America/Mazatlan", "Yukon Standard Time": "America/Whitehorse",
    "Easter Island Standard Time": "Pacific/Easter", "Eastern Standard Time (Mexico)": "America/Cancun",
    "US Eastern Standard Time": "America/Indianapolis", "Haiti Standard Time": "America/Port-au-Prince",
    "Cuba Standard Time": "America/Havana", "Turks And Caicos Standard Time": "America/Grand_Turk",
    "Paraguay Standard Time": "America/Asuncion", "Venezuela Standard Time": "America/Caracas",
    "Central Brazilian Standard Time": "America/Cuiaba", "SA Eastern Standard Time": "America/Cayenne",
    "Montevideo Standard Time": "America/Montevideo", "Bahia Standard Time": "America/Bahia",
    "Greenland Standard Time": "America/Godthab", "UTC-02": "Etc/GMT+2", "Azores Standard Time": "Atlantic/Azores",
    "Cape Verde Standard Time": "Atlantic/Cape_Verde", "Sao Tome Standard Time": "Africa/Sao_Tome",
    "Jordan Standard Time": "Asia/Amman", "Middle East Standard Time": "Asia/Beirut",
    "Syria Standard Time": "Asia/Damascus", "West Bank Standard Time": "Asia/Hebron",
    "Kaliningrad Standard Time": "Europe/Kaliningrad", "Sudan Standard Time": "Africa/Khartoum",
    "Libya Standard Time": "Africa/Tripoli", "Namibia Standard Time": "Africa/Windhoek",
    "Arabic Standard Time": "Asia/Baghdad", "Belarus Standard Time": "Europe/Minsk",
    "Astrakhan Standard Time": "Europe/Astrakhan", "Azerbaijan Standard Time": "Asia/Baku",
    "Russia Time Zone 3": "Europe/Samara", "Mauritius Standard Time": "Indian/Mauritius",
    "Saratov Standard Time": "Europe/Saratov", "Georgian Standard Time": "Asia/Tbilisi",
    "Volgograd Standard Time": "Europe/Volgograd", "Caucasus Standard Time": "Asia/Yerevan",
    "Afghanistan Standard Time": "Asia/Kabul", "West Asia Standard Time": "Asia/Tashkent",
    "Ekaterinburg Standard Time": "Asia/Yekaterinburg", "Sri Lanka Standard Time": "Asia/Colombo",
    "Nepal Standard Time": "Asia/Katmandu", "Central Asia Standard Time": "Asia/Almaty",
    "Omsk Standard Time": "Asia/Omsk", "Myanmar Standard Time": "Asia/Rangoon",
    "Altai Standard Time": "Asia/Barnaul", "W. Mongolia Standard Time": "Asia/Hovd",
    "North Asia Standard Time": "Asia/Krasnoyarsk", "N. Central Asia Standard Time": "Asia/Novosibirsk",
    "Tomsk Standard Time": "Asia/Tomsk", "North Asia East Standard Time": "Asia/Irkutsk",
    "Ulaanbaatar Standard Time": "Asia/Ulaanbaatar", "Aus Central W. Standard Time": "Australia/Eucla",
    "Transbaikal Standard Time": "Asia/Chita", "North Korea Standard Time": "Asia/Pyongyang",
    "Yakutsk Standard Time": "Asia/Yakutsk", "AUS Central Standard Time": "Australia/Darwin",
    "West Pacific Standard Time": "Pacific/Port_Moresby", "Tasmania Standard Time": "Australia/Hobart",
    "Vladivostok Standard Time": "Asia/Vladivostok", "Lord Howe Standard Time": "Australia/Lord_Howe",
    "Bougainville Standard Time": "Pacific/Bougainville", "Russia Time Zone 10": "Asia/Srednekolymsk",
    "Magadan Standard Time": "Asia/Magadan", "Norfolk Standard Time": "Pacific/Norfolk",
    "Sakhalin Standard Time": "Asia/Sakhalin", "Central Pacific Standard Time": "Pacific/Guadalcanal",
    "Russia Time Zone 11": "Asia/Kamchatka", "UTC+12": "Etc/GMT-12", "Fiji Standard Time": "Pacific/Fiji",
    "Chatham Islands Standard Time": "Pacific/Chatham", "UTC+13": "Etc/GMT-13", "Tonga Standard Time": "Pacific/Tongatapu",
    "Samoa Standard Time": "Pacific/Apia", "Line Islands Standard Time": "Pacific/Kiritimati",
    "Mid-Atlantic Standard Time": "Etc/GMT+2", "UTC-08": "Etc/GMT+8", "UTC-09": "Etc/GMT+9",
}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_ZONES = {_key(name): zone for name, zone in WINDOWS_ZONES.items()}


def zone_known(name: str) -> bool:
    """Return whether the Windows time zone ``name`` is in the table (punctuation and case ignored)."""
    return _key(name) in _ZONES


def _zone(function: str, name: Any) -> ZoneInfo:
    key = _key(string_arg(function, name))
    if key not in _ZONES:
        fail(function, f"was given the time zone {name!r}, which is not in this translation's table of Windows "
                       "time zones.")
    return ZoneInfo(_ZONES[key])


def _stamp(function: str, value: Any) -> datetime:
    return read(value, function=function)


def _out(function: str, stamp: datetime, fmt: Any, loc: Any = None) -> str:
    return write(stamp, fmt, loc, function=function)


def formatDateTime(value: Any, fmt: Any = None, loc: Any = None) -> str:  # noqa: N802 - the WDL name
    """Return ``formatDateTime(timestamp, format?, locale?)``."""
    return _out("formatDateTime", _stamp("formatDateTime", value), fmt, loc)


def parseDateTime(value: Any, loc: Any = None, fmt: Any = None) -> str:  # noqa: N802
    """Return ``parseDateTime(timestamp, locale?, format?)``: the timestamp in ``'o'`` format."""
    return write(read(value, loc, fmt, function="parseDateTime"), "o", function="parseDateTime")


def _shift(stamp: datetime, amount: Any, unit: str, function: str) -> datetime:
    unit = unit.lower().rstrip("s")
    if unit in ("month", "year"):
        months = int_arg(function, amount) * (12 if unit == "year" else 1)
        total = stamp.year * 12 + stamp.month - 1 + months
        year, month = divmod(total, 12)
        day = min(stamp.day, calendar.monthrange(year, month + 1)[1])
        return stamp.replace(year=year, month=month + 1, day=day)
    size = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}.get(unit)
    if size is None:
        fail(function, f"was given the time unit {unit!r}: it takes Second, Minute, Hour, Day, Week, Month or Year.")
    return stamp + timedelta(seconds=float(number_arg(function, amount)) * size)


def addDays(value: Any, days: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``addDays(timestamp, days, format?)``."""
    return _out("addDays", _shift(_stamp("addDays", value), days, "day", "addDays"), fmt)


def addHours(value: Any, hours: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``addHours(timestamp, hours, format?)``."""
    return _out("addHours", _shift(_stamp("addHours", value), hours, "hour", "addHours"), fmt)


def addMinutes(value: Any, minutes: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``addMinutes(timestamp, minutes, format?)``."""
    return _out("addMinutes", _shift(_stamp("addMinutes", value), minutes, "minute", "addMinutes"), fmt)


def addSeconds(value: Any, seconds: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``addSeconds(timestamp, seconds, format?)``."""
    return _out("addSeconds", _shift(_stamp("addSeconds", value), seconds, "second", "addSeconds"), fmt)


def addToTime(value: Any, interval: Any, unit: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``addToTime(timestamp, interval, timeUnit, format?)``."""
    stamp = _stamp("addToTime", value)
    return _out("addToTime", _shift(stamp, interval, string_arg("addToTime", unit), "addToTime"), fmt)


def subtractFromTime(value: Any, interval: Any, unit: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``subtractFromTime(timestamp, interval, timeUnit, format?)``."""
    stamp = _stamp("subtractFromTime", value)
    amount = -number_arg("subtractFromTime", interval)
    return _out("subtractFromTime", _shift(stamp, amount, string_arg("subtractFromTime", unit), "subtractFromTime"),
                fmt)


def _now(run: Any) -> datetime:
    now: datetime = run.now()
    return (now if now.tzinfo is not None else now.replace(tzinfo=UTC)).astimezone(UTC)


def utcNow(run: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``utcNow(format?)``: the run's current time, in UTC."""
    return _out("utcNow", _now(run), fmt)


def getFutureTime(run: Any, interval: Any, unit: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``getFutureTime(interval, timeUnit, format?)``: now plus the interval."""
    return _out("getFutureTime", _shift(_now(run), interval, string_arg("getFutureTime", unit), "getFutureTime"), fmt)


def getPastTime(run: Any, interval: Any, unit: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``getPastTime(interval, timeUnit, format?)``: now minus the interval."""
    amount = -number_arg("getPastTime", interval)
    return _out("getPastTime", _shift(_now(run), amount, string_arg("getPastTime", unit), "getPastTime"), fmt)


def startOfDay(value: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``startOfDay(timestamp, format?)``."""
    stamp = _stamp("startOfDay", value)
    return _out("startOfDay", stamp.replace(hour=0, minute=0, second=0, microsecond=0), fmt)


def startOfHour(value: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``startOfHour(timestamp, format?)``."""
    stamp = _stamp("startOfHour", value)
    return _out("startOfHour", stamp.replace(minute=0, second=0, microsecond=0), fmt)


def startOfMonth(value: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``startOfMonth(timestamp, format?)``."""
    stamp = _stamp("startOfMonth", value)
    return _out("startOfMonth", stamp.replace(day=1, hour=0, minute=0, second=0, microsecond=0), fmt)


def dayOfMonth(value: Any) -> int:  # noqa: N802
    """Return ``dayOfMonth(timestamp)``."""
    return _stamp("dayOfMonth", value).day


def dayOfWeek(value: Any) -> int:  # noqa: N802
    """Return ``dayOfWeek(timestamp)``: Sunday is 0."""
    return (_stamp("dayOfWeek", value).weekday() + 1) % 7


def dayOfYear(value: Any) -> int:  # noqa: N802
    """Return ``dayOfYear(timestamp)``."""
    return _stamp("dayOfYear", value).timetuple().tm_yday


def ticks(value: Any) -> int:
    """Return ``ticks(timestamp)``: 100-nanosecond intervals since 0001-01-01T00:00:00."""
    stamp = _stamp("ticks", value).replace(tzinfo=None)
    delta = stamp - datetime(1, 1, 1)
    return (delta.days * 86400 + delta.seconds) * 10_000_000 + delta.microseconds * 10


def dateDifference(start: Any, end: Any) -> str:  # noqa: N802
    """Return ``dateDifference(startDate, endDate)``: ``end - start`` as a .NET TimeSpan (``d.hh:mm:ss``)."""
    first, second = _stamp("dateDifference", start), _stamp("dateDifference", end)
    if (first.tzinfo is None) != (second.tzinfo is None):
        first, second = first.replace(tzinfo=None), second.replace(tzinfo=None)
    delta = second - first
    sign = "-" if delta < timedelta(0) else ""
    delta = abs(delta)
    hours, rest = divmod(delta.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    out = f"{sign}{delta.days}." if delta.days else sign
    out += f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    return out + (f".{delta.microseconds:06d}0" if delta.microseconds else "")


def convertTimeZone(value: Any, source: Any, target: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``convertTimeZone(timestamp, sourceTimeZone, destinationTimeZone, format?)``."""
    stamp, src, dst = _stamp("convertTimeZone", value), _zone("convertTimeZone", source), _zone("convertTimeZone", target)
    aware = stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=src)
    moved = aware.astimezone(dst)
    moved = moved.astimezone(UTC) if str(dst) == "UTC" else moved.replace(tzinfo=None)
    return _out("convertTimeZone", moved, fmt)


def convertFromUtc(value: Any, target: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``convertFromUtc(timestamp, destinationTimeZone, format?)``: the local time, without offset."""
    stamp, dst = _stamp("convertFromUtc", value), _zone("convertFromUtc", target)
    aware = stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)
    return _out("convertFromUtc", aware.astimezone(dst).replace(tzinfo=None), fmt)


def convertToUtc(value: Any, source: Any, fmt: Any = None) -> str:  # noqa: N802
    """Return ``convertToUtc(timestamp, sourceTimeZone, format?)``."""
    stamp, src = _stamp("convertToUtc", value), _zone("convertToUtc", source)
    aware = stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=src)
    return _out("convertToUtc", aware.astimezone(UTC), fmt)

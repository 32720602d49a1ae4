"""Date and time functions: the reference's examples.

Left out on purpose: ``subtractFromTime`` example 2 (the reference prints "Monday, January, 1,
2018", a stray comma no 'D' format writes) and ``convertTimeZone`` example 2 (its input hour is
"80", not a timestamp).
"""

from __future__ import annotations

from tests.conformance.wdl._case import Case

CASES = [
    Case("@addDays('2018-03-15T00:00:00Z', 10)", "2018-03-25T00:00:00.0000000Z", "#addDays example 1"),
    Case("@addDays('2018-03-15T00:00:00Z', -5)", "2018-03-10T00:00:00.0000000Z", "#addDays example 2"),
    Case("@addHours('2018-03-15T00:00:00Z', 10)", "2018-03-15T10:00:00.0000000Z", "#addHours example 1"),
    Case("@addHours('2018-03-15T15:00:00Z', -5)", "2018-03-15T10:00:00.0000000Z", "#addHours example 2"),
    Case("@addMinutes('2018-03-15T00:10:00Z', 10)", "2018-03-15T00:20:00.0000000Z", "#addMinutes example 1"),
    Case("@addMinutes('2018-03-15T00:20:00Z', -5)", "2018-03-15T00:15:00.0000000Z", "#addMinutes example 2"),
    Case("@addSeconds('2018-03-15T00:00:00Z', 10)", "2018-03-15T00:00:10.0000000Z", "#addSeconds example 1"),
    Case("@addSeconds('2018-03-15T00:00:30Z', -5)", "2018-03-15T00:00:25.0000000Z", "#addSeconds example 2"),
    Case("@addToTime('2018-01-01T00:00:00Z', 1, 'Day')", "2018-01-02T00:00:00.0000000Z", "#addToTime example 1"),
    Case("@addToTime('2018-01-01T00:00:00Z', 1, 'Day', 'D')", "Tuesday, January 2, 2018", "#addToTime example 2"),
    Case("@subtractFromTime('2018-01-02T00:00:00Z', 1, 'Day')", "2018-01-01T00:00:00.0000000Z",
         "#subtractFromTime example 1"),
    Case("@convertFromUtc('2018-01-01T08:00:00.0000000Z', 'Pacific Standard Time')", "2018-01-01T00:00:00.0000000",
         "#convertFromUtc example 1"),
    Case("@convertFromUtc('2018-01-01T08:00:00.0000000Z', 'Pacific Standard Time', 'D')", "Monday, January 1, 2018",
         "#convertFromUtc example 2"),
    Case("@convertTimeZone('2018-01-01T08:00:00.0000000Z', 'UTC', 'Pacific Standard Time')",
         "2018-01-01T00:00:00.0000000", "#convertTimeZone example 1"),
    Case("@convertToUtc('01/01/2018 00:00:00', 'Pacific Standard Time')", "2018-01-01T08:00:00.0000000Z",
         "#convertToUtc example 1"),
    Case("@convertToUtc('01/01/2018 00:00:00', 'Pacific Standard Time', 'D')", "Monday, January 1, 2018",
         "#convertToUtc example 2"),
    Case("@dateDifference('2015-02-08', '2018-07-30')", "1268.00:00:00", "#dateDifference"),
    Case("@dayOfMonth('2018-03-15T13:27:36Z')", 15, "#dayOfMonth"),
    Case("@dayOfWeek('2018-03-15T13:27:36Z')", 4, "#dayOfWeek"),
    Case("@dayOfYear('2018-03-15T13:27:36Z')", 74, "#dayOfYear"),
    Case("@formatDateTime('03/15/2018')", "2018-03-15T00:00:00.0000000", "#formatDateTime"),
    Case("@formatDateTime('03/15/2018 12:00:00', 'yyyy-MM-ddTHH:mm:ss')", "2018-03-15T12:00:00", "#formatDateTime"),
    Case("@formatDateTime('01/31/2016', 'dddd MMMM d')", "Sunday January 31", "#formatDateTime"),
    Case("@formatDateTime('01/31/2016', 'dddd MMMM d', 'fr-fr')", "dimanche janvier 31", "#formatDateTime"),
    Case("@formatDateTime('01/31/2016', 'dddd MMMM d', 'fr-FR')", "dimanche janvier 31", "#formatDateTime"),
    Case("@formatDateTime('01/31/2016', 'dddd MMMM d', 'es-es')", "domingo enero 31", "#formatDateTime"),
    Case("@getFutureTime(5, 'Day')", "2018-03-06T00:00:00.0000000Z", "#getFutureTime example 1",
         {"now": "2018-03-01T00:00:00+00:00"}),
    Case("@getFutureTime(5, 'Day', 'D')", "Tuesday, March 6, 2018", "#getFutureTime example 2",
         {"now": "2018-03-01T00:00:00+00:00"}),
    Case("@getPastTime(5, 'Day')", "2018-01-27T00:00:00.0000000Z", "#getPastTime example 1",
         {"now": "2018-02-01T00:00:00+00:00"}),
    Case("@getPastTime(5, 'Day', 'D')", "Saturday, January 27, 2018", "#getPastTime example 2",
         {"now": "2018-02-01T00:00:00+00:00"}),
    Case("@parseDateTime('20/10/2014', 'fr-fr')", "2014-10-20T00:00:00.0000000", "#parseDateTime"),
    Case("@parseDateTime('20 octobre 2010', 'fr-FR')", "2010-10-20T00:00:00.0000000", "#parseDateTime"),
    Case("@parseDateTime('martes 20 octubre 2020', 'es-es')", "2020-10-20T00:00:00.0000000", "#parseDateTime"),
    Case("@parseDateTime('21052019', 'fr-fr', 'ddMMyyyy')", "2019-05-21T00:00:00.0000000", "#parseDateTime"),
    Case("@parseDateTime('10/20/2014 15h', 'en-US', 'MM/dd/yyyy HH\\h')", "2014-10-20T15:00:00.0000000",
         "#parseDateTime"),
    Case("@startOfDay('2018-03-15T13:30:30Z')", "2018-03-15T00:00:00.0000000Z", "#startOfDay"),
    Case("@startOfHour('2018-03-15T13:30:30Z')", "2018-03-15T13:00:00.0000000Z", "#startOfHour"),
    Case("@startOfMonth('2018-03-15T13:30:30Z')", "2018-03-01T00:00:00.0000000Z", "#startOfMonth example 1"),
    Case("@startOfMonth('2018-03-15T13:30:30Z', 'yyyy-MM-dd')", "2018-03-01", "#startOfMonth example 2"),
    # ticks is DateTime.Ticks; the reference gives no example value. .NET documents the Unix epoch
    # (DateTime.UnixEpoch, 1970-01-01T00:00:00Z) as 621355968000000000 ticks.
    Case("@ticks('1970-01-01T00:00:00Z')", 621355968000000000, "#ticks (DateTime.UnixEpoch.Ticks)"),
    Case("@utcNow()", "2018-04-15T13:00:00.0000000Z", "#utcNow example 1", {"now": "2018-04-15T13:00:00+00:00"}),
    Case("@utcNow('D')", "Sunday, April 15, 2018", "#utcNow example 2", {"now": "2018-04-15T13:00:00+00:00"}),
]

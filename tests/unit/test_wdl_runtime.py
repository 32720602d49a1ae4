"""The WDL function library's rules beyond the reference's examples: errors, nulls, formats, edges."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from queue_core.compat import _wdl as w
from queue_core.errors import TerminalError


class _Run:
    def __init__(self, body: Any = None, outputs: dict[str, Any] | None = None) -> None:
        self._body, self._outputs = body, outputs or {}

    def trigger_body(self) -> Any:
        return self._body

    def body(self, name: str) -> Any:
        return self._outputs[name]["body"]

    def now(self) -> datetime:
        return datetime(2024, 2, 29, 23, 30, 5, 123456, tzinfo=UTC)


# -- failures name the function, as Logic Apps' InvalidTemplate does -------------------------------


@pytest.mark.parametrize(("call", "message"), [
    (lambda: w.toLower(None), "'toLower' expects its parameter to be a string. The provided value is of type 'Null'"),
    (lambda: w.substring("abc", 1, 5), "'substring'"),
    (lambda: w.substring("abc", 4), "'substring'"),
    (lambda: w.div(1, 0), "'div' cannot divide by zero"),
    (lambda: w.mod(1, 0), "'mod' cannot divide by zero"),
    (lambda: w.int_("abc"), "'int' could not parse 'abc'"),
    (lambda: w.int_("1_000"), "'int'"),
    (lambda: w.float_("ten"), "'float'"),
    (lambda: w.bool_("yes"), "'bool'"),
    (lambda: w.json_("{nope"), "'json' could not parse"),
    (lambda: w.addProperty({"a": 1}, "a", 2), "'addProperty' cannot add the property 'a'"),
    (lambda: w.and_(True, "true"), "'and' expects its parameter to be a boolean"),
    (lambda: w.greater(1, "a"), "'greater' expects two parameters of matching types"),
    (lambda: w.add("1", 2), "'add' expects its parameters to be numbers"),
    (lambda: w.replace("abc", "", "x"), "'replace'"),
    (lambda: w.formatDateTime("not a date"), "'formatDateTime' was given 'not a date'"),
    (lambda: w.addToTime("2018-01-01", 1, "Fortnight"), "'addToTime' was given the time unit"),
    (lambda: w.convertToUtc("2018-01-01", "Mars Standard Time"), "'convertToUtc' was given the time zone"),
    (lambda: w.uriHost("/relative/path"), "'uriHost' was given '/relative/path', which is not an absolute URI"),
    (lambda: w.sort([1, "a"]), "'sort'"),
    (lambda: w.union([1], {"a": 1}), "'union' expects collections of one kind"),
    (lambda: w.range_(1, -1), "'range'"),
    (lambda: w.guid("Q"), "'guid'"),
    (lambda: w.nthIndexOf("abc", "a", 0), "'nthIndexOf'"),
    (lambda: w.member([1, 2], 5), "cannot select '5' from an array of 2 items"),
    (lambda: w.formDataValue(_Run(outputs={"A": {"body": {"$formdata": [{"key": "k", "value": 1},
                                                                       {"key": "k", "value": 2}]}}}), "A", "k"),
     "'formDataValue' found 2 values"),
])
def test_a_function_given_values_it_cannot_take_fails_the_action_naming_it(call: Any, message: str) -> None:
    with pytest.raises(TerminalError) as caught:
        call()
    assert message in str(caught.value)
    assert str(caught.value).startswith("The template language function ")


# -- text conversion and nulls ------------------------------------------------------------------------


def test_string_conversion() -> None:
    assert w.string(None) == ""
    assert w.string(True) == "True"
    assert w.string(2.5) == "2.5"
    assert w.string(10.0) == "10"
    assert w.string({"name": "Sophie Owen"}) == '{"name":"Sophie Owen"}'
    assert w.string([1, "a"]) == '[1,"a"]'
    assert w.string(Decimal("1.50")) == "1.50"
    assert w.concat("a", None, 1, False) == "a1False"


def test_nulls_in_collections_and_comparisons() -> None:
    assert w.empty(None) is True
    assert w.empty({}) is True
    assert w.first([]) is None and w.last("") == ""
    assert w.json_(None) == {}
    assert w.equals(None, "") is True
    assert w.less(None, "a") is True
    assert w.coalesce("", None) == ""


def test_equality_is_deep_and_numeric() -> None:
    assert w.equals({"a": [1, 2.0]}, {"a": [1.0, 2]}) is True
    assert w.equals("1", 1) is False
    assert w.equals([1], [1, 2]) is False


# -- strings -------------------------------------------------------------------------------------------


def test_case_rules() -> None:
    assert w.lastIndexOf("Hello hello", "HELLO") == 6
    assert w.startsWith("Hello", "hE") is True
    assert w.contains("Hello", "hello") is False
    assert w.replace("aAa", "a", "b") == "bAb"


def test_nth_index_from_the_end() -> None:
    assert w.nthIndexOf("123456789123465789", "1", -1) == 9
    assert w.nthIndexOf("123456789123465789", "1", -2) == 0
    assert w.nthIndexOf("123456789123465789", "1", -3) == -1


def test_guid_formats() -> None:
    assert re.fullmatch(r"[0-9a-f]{32}", w.guid("N"))
    assert re.fullmatch(r"\{[0-9a-f-]{36}\}", w.guid("B"))
    assert re.fullmatch(r"\{0x[0-9a-f]{8},0x[0-9a-f]{4},0x[0-9a-f]{4},\{(0x[0-9a-f]{2},){7}0x[0-9a-f]{2}\}\}", w.guid("X"))
    assert w.guid() != w.guid()


@pytest.mark.parametrize(("number", "fmt", "locale", "out"), [
    (1234.5678, "N2", None, "1,234.57"),
    (1234.5678, "F0", None, "1235"),
    (2.5, "F0", None, "3"),
    (-2.5, "F0", None, "-3"),
    (0.256, "P1", None, "25.6%"),
    (42, "D5", None, "00042"),
    (255, "X", None, "FF"),
    (255, "x4", None, "00ff"),
    (-17.35, "C2", None, "-$17.35"),
    (1234567.891, "#,##0.0", None, "1,234,567.9"),
    (5, "0.00", None, "5.00"),
    (0.5, "#.##", None, ".5"),
    (1234.5, "N1", "de-de", "1.234,5"),
    (12345, "E2", None, "1.23E+004"),
])
def test_format_number(number: Any, fmt: str, locale: str | None, out: str) -> None:
    assert w.formatNumber(number, fmt, locale) == out


def test_is_int_and_is_float() -> None:
    assert w.isInt(" -12 ") is True
    assert w.isInt("1.0") is False
    assert w.isInt("1_000") is False
    assert w.isFloat("1e3") is True
    assert w.isFloat("abc") is False
    assert w.isFloat("10.000,00") is False


# -- dates ---------------------------------------------------------------------------------------------


def test_timestamps_keep_their_kind() -> None:
    assert w.formatDateTime("2018-03-15T13:27:36.1234567Z") == "2018-03-15T13:27:36.1234560Z"
    assert w.formatDateTime("2018-03-15T13:27:36+02:00") == "2018-03-15T11:27:36.0000000Z"
    assert w.formatDateTime("2018-03-15 13:27") == "2018-03-15T13:27:00.0000000"
    assert w.formatDateTime("Mon, 09 Apr 2018 18:47:12 GMT", "s") == "2018-04-09T18:47:12"


@pytest.mark.parametrize(("fmt", "out"), [
    ("s", "2018-03-05T09:07:03"),
    ("u", "2018-03-05 09:07:03Z"),
    ("R", "Mon, 05 Mar 2018 09:07:03 GMT"),
    ("d", "3/5/2018"),
    ("g", "3/5/2018 9:07 AM"),
    ("T", "9:07:03 AM"),
    ("Y", "March 2018"),
    ("M", "March 5"),
    ("dd/MM/yy h:mm tt", "05/03/18 9:07 AM"),
    ("yyyyMMddHHmmss", "20180305090703"),
    ("ddd, MMM d 'at' HH\\h", "Mon, Mar 5 at 09h"),
    ("HH:mm:ss.FFF", "09:07:03"),
    ("HH:mm:ss.fff", "09:07:03.000"),
    ("zzz K", "+00:00 Z"),
])
def test_dotnet_date_formats(fmt: str, out: str) -> None:
    assert w.formatDateTime("2018-03-05T09:07:03Z", fmt) == out


def test_adding_months_clamps_the_day_and_units_are_case_insensitive() -> None:
    assert w.addToTime("2018-01-31T00:00:00Z", 1, "month") == "2018-02-28T00:00:00.0000000Z"
    assert w.subtractFromTime("2020-02-29T00:00:00Z", 1, "Year") == "2019-02-28T00:00:00.0000000Z"
    assert w.addToTime("2018-01-01T00:00:00Z", 2, "Week", "yyyy-MM-dd") == "2018-01-15"


def test_now_comes_from_the_run() -> None:
    run = _Run()
    assert w.utcNow(run) == "2024-02-29T23:30:05.1234560Z"
    assert w.utcNow(run, "yyyy-MM-dd") == "2024-02-29"
    assert w.getFutureTime(run, 1, "Hour", "yyyy-MM-ddTHH") == "2024-03-01T00"
    assert w.getPastTime(run, 1, "Month", "yyyy-MM-dd") == "2024-01-29"


def test_time_zones() -> None:
    assert w.convertTimeZone("2018-07-01T12:00:00", "W. Europe Standard Time", "UTC") == "2018-07-01T10:00:00.0000000Z"
    assert w.convertFromUtc("2018-07-01T12:00:00Z", "India Standard Time", "HH:mm") == "17:30"
    assert w.convertToUtc("2018-07-01T12:00:00", "Eastern Standard Time") == "2018-07-01T16:00:00.0000000Z"


def test_every_windows_zone_in_the_table_is_a_real_zone() -> None:
    from zoneinfo import ZoneInfo

    from queue_core.compat._wdl_dates import WINDOWS_ZONES
    for windows, iana in WINDOWS_ZONES.items():
        assert ZoneInfo(iana).utcoffset(datetime(2024, 1, 1)) is not None, windows
    assert w.convertFromUtc("2024-01-01T00:00:00Z", "Nepal Standard Time", "HH:mm") == "05:45"
    assert w.convertFromUtc("2024-01-01T00:00:00Z", "Dateline Standard Time", "yyyy-MM-dd HH") == "2023-12-31 12"


def test_date_difference_and_ticks() -> None:
    assert w.dateDifference("2018-01-01T10:00:00Z", "2018-01-01T12:30:15Z") == "02:30:15"
    assert w.dateDifference("2018-01-02", "2018-01-01") == "-1.00:00:00"
    assert w.ticks("0001-01-01T00:00:00Z") == 0


# -- conversions, URIs, form data -------------------------------------------------------------------


def test_uri_encoding() -> None:
    assert w.uriComponent("a b+c/é~") == "a%20b%2Bc%2F%C3%A9~"
    assert w.decodeUriComponent("a+b%20c") == "a+b c"
    assert w.dataUriToString("data:,hello%20world") == "hello world"


def test_uri_parts_and_defaults() -> None:
    assert w.uriPort("https://contoso.com/x") == 443
    assert w.uriPort("http://contoso.com") == 80
    assert w.uriPath("https://contoso.com") == "/"
    assert w.uriQuery("https://contoso.com/a") == ""
    assert w.uriScheme("HTTPS://contoso.com") == "https"


def test_object_collections() -> None:
    assert w.union({"a": 1, "b": 2}, {"b": 3}) == {"a": 1, "b": 3}
    assert w.intersection({"a": 1, "b": 2}, {"a": 1, "b": 3}) == {"a": 1}
    assert w.contains({"key": 1}, "key") is True
    assert w.union([{"a": 1}], [{"a": 1}, 2]) == [{"a": 1}, 2]
    source = {"a": 1}
    w.setProperty(source, "b", 2)
    assert source == {"a": 1}


def test_form_data_from_an_encoded_body() -> None:
    content = base64.b64encode(b"feedUrl=https%3A%2F%2Fa.example%2Frss&tag=x&tag=y").decode()
    run = _Run(body={"$content-type": "application/x-www-form-urlencoded", "$content": content})
    assert w.triggerFormDataValue(run, "feedUrl") == "https://a.example/rss"
    assert w.triggerFormDataMultiValues(run, "tag") == ["x", "y"]
    assert w.triggerFormDataValue(run, "missing") is None
    with pytest.raises(TerminalError, match="form-encoded"):
        w.triggerFormDataValue(_Run(body={"a": 1}), "a")


def test_decimal_keeps_precision_until_written() -> None:
    total = w.add(w.decimal("0.1"), w.decimal("0.2"))
    assert isinstance(total, Decimal) and w.string(total) == "0.3"
    assert w.add(w.decimal("0.1"), 1) == Decimal("1.1")

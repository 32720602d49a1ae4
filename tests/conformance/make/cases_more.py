"""Pinned cases of make2's additions: Make's text-and-binary functions over binary data
(``toBinary``/``toString``, ``ascii`` with diacritics removed, keyed hashes)."""

from __future__ import annotations

from typing import Any

from tests.conformance.make.runner import MakeCase

_BIN = "https://help.make.com/text-and-binary-functions (ascii, base64, toBinary + toString, sha1/sha256/sha512)"
# The HMAC test vector: https://en.wikipedia.org/wiki/HMAC#Examples (HMAC_SHA256("key", "The quick brown fox …"))
_HMAC = _BIN + "; the vector of https://en.wikipedia.org/wiki/HMAC#Examples"
_DATES = ("https://www.make.com/en/help/functions/date---time-functions (formatDate example 7; the note: a timezone "
          "not in the tz database is ignored and the organization's timezone used, UTC in a scaffolded run)")
_FOX = "The quick brown fox jumps over the lazy dog"


def _compose(value: str) -> dict[str, Any]:
    return {"module": "util:ComposeTransformer", "version": 1, "parameters": {}, "mapper": {"value": value},
            "metadata": {"designer": {"x": 300, "y": 0}}}


def _case(ident: str, value: str, expected: str, source: str = _BIN, **fields: Any) -> MakeCase:
    return MakeCase(id=ident, module=_compose(value), input=fields, output=[{"value": expected}], source=source)


CASES = [
    _case("iml-to-binary-base64-then-to-string", '{{toString(toBinary(1.b; base64))}}', "Make", b="TWFrZQ=="),
    _case("iml-base64-of-text", "{{base64(1.t)}}", "TWFrZQ==", t="Make"),
    _case("iml-base64-of-binary-data", "{{base64(toBinary(1.t))}}", "TWFrZQ==", t="Make"),
    _case("iml-length-of-binary-data", "{{length(toBinary(1.b; base64))}}", "4", b="TWFrZQ=="),
    _case("iml-ascii-removes-diacritics", "{{ascii(1.t; true)}}", "escrz", t="ěščřž"),
    _case("iml-ascii-drops-non-ascii", "{{ascii(1.t)}}", "caff ", t="caffè ☕"),
    _case("iml-sha256-hmac-with-a-key", '{{sha256(1.t; "hex"; "key")}}',
          "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8", _HMAC, t=_FOX),
    _case("iml-sha1-hmac-base64", '{{sha1(1.t; "base64"; "key")}}', "3nybhbi3iqa8ino29wqQcBydtNk=", _HMAC, t=_FOX),
    _case("iml-sha256-of-binary-data", "{{sha256(toBinary(1.b; base64))}}",
          "ccdd25d4230fb997a7ee1166f8afabd157248eb812ea55ec7c3d1b7c8af7fa11", b="TWFrZQ=="),
    _case("iml-format-date-in-utc", '{{formatDate(1.d; "DD.MM.YYYY HH:mm"; "UTC")}}', "01.10.2018 07:32", _DATES,
          d="2018-10-01T07:32:00.000Z"),
    _case("iml-format-date-in-prague", '{{formatDate(1.d; "DD.MM.YYYY HH:mm"; "Europe/Prague")}}', "01.10.2018 09:32",
          _DATES, d="2018-10-01T07:32:00.000Z"),
    _case("iml-format-date-ignores-an-unknown-timezone", '{{formatDate(1.d; "DD.MM.YYYY HH:mm"; "Mars/Base")}}',
          "01.10.2018 07:32", _DATES, d="2018-10-01T07:32:00.000Z"),
    _case("iml-parse-date-ignores-an-unknown-timezone",
          '{{formatDate(parseDate(1.t; "DD.MM.YYYY HH:mm"; "Not a zone"); "YYYY-MM-DD HH:mm"; "UTC")}}',
          "2018-10-01 09:32", _DATES, t="01.10.2018 09:32"),
]

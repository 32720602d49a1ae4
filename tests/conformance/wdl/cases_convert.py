"""Conversion and URI parsing functions: the reference's examples."""

from __future__ import annotations

from tests.conformance.wdl._case import Case, Fails

CASES = [
    Case("@base64('hello')", "aGVsbG8=", "#base64"),
    Case("@base64ToString('aGVsbG8=')", "hello", "#base64ToString"),
    Case("@decodeBase64('aGVsbG8=')", "hello", "#decodeBase64 (deprecated: use base64ToString)"),
    Case("@bool(1)", True, "#bool"),
    Case("@bool(0)", False, "#bool"),
    Case("@bool(-1)", True, "#bool"),
    Case("@bool('true')", True, "#bool"),
    Case("@bool('false')", False, "#bool"),
    Case("@dataUri('hello')", "data:text/plain;charset=utf-8;base64,aGVsbG8=", "#dataUri"),
    Case("@dataUriToString('data:text/plain;charset=utf-8;base64,aGVsbG8=')", "hello", "#dataUriToString"),
    Case("@decodeUriComponent('https%3A%2F%2Fcontoso.com')", "https://contoso.com", "#decodeUriComponent"),
    Case("@encodeUriComponent('https://contoso.com')", "https%3A%2F%2Fcontoso.com", "#encodeUriComponent"),
    Case("@uriComponent('https://contoso.com')", "https%3A%2F%2Fcontoso.com", "#uriComponent"),
    Case("@uriComponentToString('https%3A%2F%2Fcontoso.com')", "https://contoso.com", "#uriComponentToString"),
    Case("@float('10,000.333')", 10000.333, "#float example 1"),
    Case("@float('10.000,333', 'de-DE')", 10000.333, "#float example 2"),
    Case("@int('10')", 10, "#int"),
    Case("@json('[1, 2, 3]')", [1, 2, 3], "#json example 1"),
    Case("@json('{\"fullName\": \"Sophia Owen\"}')", {"fullName": "Sophia Owen"}, "#json example 2"),
    Case("@json(xml('<?xml version=\"1.0\"?> <root> <person id=\"1\"> <name>Sophia Owen</name> "
         "<occupation>Engineer</occupation> </person> </root>'))",
         {"?xml": {"@version": "1.0"}, "root": {"person": {"@id": "1", "name": "Sophia Owen", "occupation": "Engineer"}}},
         "#json example 3"),
    Case("@json(xml('<?xml version=\"1.0\"?> <root> <person id=\"1\"> <name>Sophia Owen</name> "
         "<occupation>Engineer</occupation> </person> <person id=\"2\"> <name>John Doe</name> "
         "<occupation>Engineer</occupation> </person> </root>'))",
         {"?xml": {"@version": "1.0"}, "root": {"person": [
             {"@id": "1", "name": "Sophia Owen", "occupation": "Engineer"},
             {"@id": "2", "name": "John Doe", "occupation": "Engineer"}]}}, "#json example 4"),
    # An XML value's text is its XML; the reference shows each result as XML (indentation is display only).
    Case("@{xml('<name>Sophia Owen</name>')}", "<name>Sophia Owen</name>", "#xml example 1"),
    Case("@{xml(json('{ \"name\": \"Sophia Owen\" }'))}", "<name>Sophia Owen</name>", "#xml example 2"),
    Case("@{xml(json('{\"person\": {\"name\": \"Sophia Owen\", \"city\": \"Seattle\"}}'))}",
         "<person><name>Sophia Owen</name><city>Seattle</city></person>", "#xml example 3"),
    Case("@xml('<name>Sophia Owen</name>')", {"$content-type": "application/xml;charset=utf-8",
                                               "$content": "PG5hbWU+U29waGlhIE93ZW48L25hbWU+"},
         "#xml (an XML value is content: the envelope of binary content with an XML type)"),
    Case("@xml('not <xml')", Fails("'xml' could not parse"), "#xml (the string must be XML)"),
    Case("@string(10)", "10", "#string example 1"),
    Case("@decimal('1.2345678912312131')", 1.234567891231213, "#decimal example 1 (used as a number)"),
    Case("@string(decimal('1.2345678912312131'))", "1.2345678912312131", "#decimal example 2"),
    Case("@add(decimal('1.2345678912312131'), decimal('1.2345678912312131'))", 2.469135782462426, "#decimal example 3"),
    Case("@string(add(decimal('1.2345678912312131'), decimal('1.2345678912312131')))", "2.4691357824624262",
         "#decimal example 4"),
    Case("@uriHost('https://www.localhost.com:8080')", "www.localhost.com", "#uriHost"),
    Case("@uriPath('https://www.contoso.com/catalog/shownew.htm?date=today')", "/catalog/shownew.htm", "#uriPath"),
    Case("@uriPathAndQuery('https://www.contoso.com/catalog/shownew.htm?date=today')",
         "/catalog/shownew.htm?date=today", "#uriPathAndQuery"),
    Case("@uriPort('https://www.localhost:8080')", 8080, "#uriPort"),
    Case("@uriQuery('https://www.contoso.com/catalog/shownew.htm?date=today')", "?date=today", "#uriQuery"),
    # The reference prints "http" for this https URI (a documentation slip); the scheme is pinned.
    Case("@uriScheme('https://www.contoso.com/catalog/shownew.htm?date=today')", "https", "#uriScheme"),
]

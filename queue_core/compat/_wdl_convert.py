"""WDL conversion functions (text encodings, ``bool``, ``json``) and URI parsing functions.

Strings are UTF-8 when encoded (``base64('hello')`` is ``aGVsbG8=``). ``uriComponent`` escapes
as .NET's ``Uri.EscapeDataString`` (everything but ``A-Z a-z 0-9 - _ . ~``); its inverse leaves
``+`` alone. A URI function needs an absolute URI, as .NET's ``Uri`` does. ``binary`` and
``base64ToBinary`` return binary content, the ``$content`` envelope; ``dataUriToBinary``,
``decodeDataUri`` and ``uriComponentToBinary`` are not here (``_wdl.UNSUPPORTED`` says why).
"""

from __future__ import annotations

import base64 as b64
import binascii
import json as jsonlib
import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from ._wdl_values import binary_content, fail, is_number, kind, string_arg, text
from ._wdl_xml import is_xml
from ._wdl_xml import to_json as xml_to_json


def base64(value: Any) -> str:
    """Return ``base64(value)``: the UTF-8 bytes of the text, base64-encoded."""
    return b64.b64encode(text(value).encode("utf-8")).decode("ascii")


def base64ToString(value: Any) -> str:  # noqa: N802 - the WDL name
    """Return ``base64ToString(value)``: the base64 string decoded as UTF-8 text."""
    try:
        return b64.b64decode(string_arg("base64ToString", value), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        fail("base64ToString", f"was given {value!r}, which is not base64-encoded UTF-8 text.")


def binary(value: Any) -> dict[str, str]:
    """Return ``binary(value)``: the UTF-8 bytes of the text as binary content (the ``$content`` envelope)."""
    return {"$content-type": "application/octet-stream", "$content": base64(value)}


def base64ToBinary(value: Any) -> dict[str, str]:  # noqa: N802
    """Return ``base64ToBinary(value)``: the base64 string's bytes as binary content."""
    encoded = string_arg("base64ToBinary", value)
    try:
        b64.b64decode(encoded, validate=True)
    except binascii.Error:
        fail("base64ToBinary", f"was given {value!r}, which is not base64-encoded.")
    return {"$content-type": "application/octet-stream", "$content": encoded}


def decodeBase64(value: Any) -> str:  # noqa: N802
    """Return ``decodeBase64(value)`` (deprecated): ``base64ToString``."""
    return base64ToString(value)


def dataUri(value: Any) -> str:  # noqa: N802
    """Return ``dataUri(value)``: ``data:text/plain;charset=utf-8;base64,…``."""
    return "data:text/plain;charset=utf-8;base64," + base64(value)


_DATA_URI = re.compile(r"data:([^,]*?)(;base64)?,(.*)", re.DOTALL)


def dataUriToString(value: Any) -> str:  # noqa: N802
    """Return ``dataUriToString(value)``: the text a data URI holds."""
    match = _DATA_URI.fullmatch(string_arg("dataUriToString", value))
    if match is None:
        fail("dataUriToString", f"was given {value!r}, which is not a data URI.")
    payload = match.group(3)
    if match.group(2):
        return base64ToString(payload)
    return unquote(payload)


def encodeUriComponent(value: Any) -> str:  # noqa: N802
    """Return ``encodeUriComponent(value)``: URL-unsafe characters percent-escaped."""
    return quote(text(value), safe="")


def uriComponent(value: Any) -> str:  # noqa: N802
    """Return ``uriComponent(value)`` (the same as ``encodeUriComponent``)."""
    return quote(text(value), safe="")


def decodeUriComponent(value: Any) -> str:  # noqa: N802
    """Return ``decodeUriComponent(value)``: percent escapes decoded (``+`` stays ``+``)."""
    return unquote(string_arg("decodeUriComponent", value))


def uriComponentToString(value: Any) -> str:  # noqa: N802
    """Return ``uriComponentToString(value)``."""
    return unquote(string_arg("uriComponentToString", value))


def bool_(value: Any) -> bool:
    """Return ``bool(value)``: a Boolean, a number (non-zero is true), or ``'true'``/``'false'``."""
    if isinstance(value, bool):
        return value
    if is_number(value):
        return bool(value != 0)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    fail("bool", f"cannot convert {value!r} (of type '{kind(value)}') to a Boolean.")


def string(value: Any) -> str:
    """Return ``string(value)``: null is ``""``; objects and arrays are their JSON."""
    return text(value)


def json_(value: Any) -> Any:
    """Return ``json(value)``: the JSON value a string (or binary content) holds, an XML value's JSON; null is ``{}``."""
    if value is None:
        return {}
    if is_xml(value):
        return xml_to_json(value)
    content = binary_content(value)
    if content is not None:
        value = content.decode("utf-8", errors="replace")
    elif isinstance(value, dict | list) or is_number(value) or isinstance(value, bool):
        return value
    try:
        return jsonlib.loads(string_arg("json", value))
    except ValueError as err:
        fail("json", f"could not parse the string as JSON: {err}.")


# -- URI parsing ----------------------------------------------------------------------------

_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21, "ws": 80, "wss": 443, "ldap": 389, "nntp": 119,
                  "gopher": 70, "telnet": 23, "mailto": 25, "news": 119}


def _uri(function: str, value: Any) -> Any:
    raw = string_arg(function, value).strip()
    parts = urlsplit(raw)
    if not parts.scheme or not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", raw):
        fail(function, f"was given {value!r}, which is not an absolute URI.")
    return parts


def uriHost(value: Any) -> str:  # noqa: N802
    """Return ``uriHost(uri)``: the host name."""
    return _uri("uriHost", value).hostname or ""


def uriPath(value: Any) -> str:  # noqa: N802
    """Return ``uriPath(uri)``: the path (``/`` when there is none)."""
    return _uri("uriPath", value).path or "/"


def uriPathAndQuery(value: Any) -> str:  # noqa: N802
    """Return ``uriPathAndQuery(uri)``: the path and the query."""
    parts = _uri("uriPathAndQuery", value)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def uriQuery(value: Any) -> str:  # noqa: N802
    """Return ``uriQuery(uri)``: the query with its ``?`` (``""`` when there is none)."""
    query = _uri("uriQuery", value).query
    return f"?{query}" if query else ""


def uriScheme(value: Any) -> str:  # noqa: N802
    """Return ``uriScheme(uri)``: the scheme, lowercase."""
    return str(_uri("uriScheme", value).scheme).lower()


def uriPort(value: Any) -> int:  # noqa: N802
    """Return ``uriPort(uri)``: the port, or the scheme's default port."""
    parts = _uri("uriPort", value)
    try:
        port = parts.port
    except ValueError:
        fail("uriPort", f"was given {value!r}, whose port is not a number.")
    if port is not None:
        return int(port)
    scheme = str(parts.scheme).lower()
    if scheme not in _DEFAULT_PORTS:
        return -1
    return _DEFAULT_PORTS[scheme]

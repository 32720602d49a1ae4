"""Make's text-and-binary IML functions over binary data (https://help.make.com/text-and-binary-functions).

Binary data (a file's ``data``, ``toBinary(…)``) is Python ``bytes`` here. The help page's examples
pin the behaviour: ``toString(toBinary("TWFrZQ=="; base64))`` is ``Make``, ``base64("Make")`` is
``TWFrZQ==``, ``ascii("ěščřž"; true)`` is ``escrz`` (the diacritics removed, not the letters).
The hashes take text or binary data; with a key they are the HMAC of it (``sha256(text; [encoding];
[key]; [key encoding])``: output encoding ``hex`` (default), ``base64`` or ``latin1``; key encoding
``text`` (default), ``hex`` or ``base64``). An encoding not listed raises ``MakeFunctionError``
naming it (never a guess).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import unicodedata
from collections.abc import Callable
from datetime import UTC, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import MakeFunctionError
from ._make_filter import text

__all__ = ["BINARY", "zone_of"]


def _bytes(value: Any) -> bytes:
    """Return ``value`` as binary data: bytes as they are, anything else as its UTF-8 text."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return text(value).encode("utf-8")


def _to_binary(value: Any, encoding: Any = None) -> bytes:
    """``toBinary(value; [encoding])``: text read in ``encoding`` (``base64``, ``hex``), else its UTF-8 bytes."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    kind = text(encoding).strip().lower()
    raw = text(value)
    try:
        if kind == "base64":  # read leniently, as Node's Buffer does: URL-safe letters, no padding, spaces
            clean = "".join(raw.split()).replace("-", "+").replace("_", "/").rstrip("=")
            return base64.b64decode(clean + "=" * (-len(clean) % 4))
        if kind == "hex":
            return bytes.fromhex(raw)
    except ValueError as exc:
        raise MakeFunctionError(f"toBinary: {raw[:40]!r} is not {kind} text") from exc
    if kind in ("", "utf8", "utf-8", "text"):
        return raw.encode("utf-8")
    raise MakeFunctionError(f"toBinary: the encoding {text(encoding)!r} is not translated (base64, hex are)")


def _to_string(value: Any, *_: Any) -> str:
    """``toString(value)``: binary data decoded as UTF-8; any other value as Make writes it into text."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return text(value)


def _ascii(value: Any, remove_diacritics: Any = False) -> str:
    """``ascii(text; [remove diacritics])``: the non-ASCII characters dropped; with ``true`` an accented
    letter keeps its base letter first (``ěščřž`` -> ``escrz``)."""
    source = _to_string(value)
    if remove_diacritics is True or text(remove_diacritics).strip().lower() == "true":
        source = "".join(c for c in unicodedata.normalize("NFKD", source) if not unicodedata.combining(c))
    return source.encode("ascii", "ignore").decode("ascii")


def _key(key: Any, encoding: Any) -> bytes:
    kind = text(encoding).strip().lower() or "text"
    if kind == "text":
        return _bytes(key)
    try:
        if kind == "hex":
            return bytes.fromhex(text(key))
        if kind == "base64":
            return base64.b64decode(text(key))
    except ValueError as exc:
        raise MakeFunctionError(f"the key is not {kind} text") from exc
    raise MakeFunctionError(f"the key encoding {text(encoding)!r} is not translated (text, hex, base64 are)")


def _hash(algorithm: str) -> Callable[..., str]:
    def digest(value: Any, encoding: Any = "hex", key: Any = None, key_encoding: Any = "text") -> str:
        data = _bytes(value)
        if key is not None and text(key) != "":
            if algorithm == "md5":
                raise MakeFunctionError("md5 takes no key (Make's sha1/sha256/sha512 do)")
            raw = hmac.new(_key(key, key_encoding), data, algorithm).digest()
        else:
            raw = hashlib.new(algorithm, data).digest()
        kind = text(encoding).strip().lower() or "hex"
        if kind == "hex":
            return raw.hex()
        if kind == "base64":
            return base64.b64encode(raw).decode("ascii")
        if kind == "latin1":
            return raw.decode("latin1")
        raise MakeFunctionError(f"{algorithm}: the encoding {text(encoding)!r} is not translated (hex, base64, latin1 are)")

    return digest


def zone_of(zone: Any) -> tzinfo:
    """Return the timezone a date function's ``timezone`` argument names. Make recognises the tz database
    names only: "any other value will be ignored and the organization's timezone used instead"
    (https://www.make.com/en/help/functions/date---time-functions); the organisation's is UTC here."""
    try:
        return ZoneInfo(text(zone).strip())
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _length(value: Any) -> int:
    if isinstance(value, bytes | bytearray):
        return len(value)
    return len(value) if isinstance(value, list | dict) else len(text(value))


BINARY: dict[str, Callable[..., Any]] = {
    "toBinary": _to_binary, "toString": _to_string, "ascii": _ascii, "length": _length,
    "base64": lambda v: base64.b64encode(_bytes(v)).decode("ascii"),
    "md5": _hash("md5"), "sha1": _hash("sha1"), "sha256": _hash("sha256"), "sha512": _hash("sha512"),
}

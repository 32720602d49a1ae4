"""Bytes on a call, kept out of every record: multipart bodies sent, binary answers received.

A multipart/form-data body (RFC 7578) is recorded with each file's size and sha256, never its
bytes; its boundary is derived from the parts' digest, so one call prepared on any attempt has the
same body, the same fingerprint and the same record. A binary answer (``is_binary``) is stored
with its size and sha256 instead of its body.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Answers whose body is text a record may keep (besides text/*): JSON, XML, forms, JavaScript.
_TEXT_TYPES = ("json", "xml", "javascript", "x-www-form-urlencoded", "yaml", "csv", "html")

# What a call's ``files=`` maps a part's name to: (file name, bytes, content type).
FilePart = tuple[str, bytes, str]


@dataclass(frozen=True)
class Multipart:
    """One multipart body: the bytes sent, its content type, and the secret- and byte-free record."""

    body: bytes
    content_type: str
    recorded: dict[str, Any]  # {"fields": {...}, "files": {name: {fileName, mimeType, size, sha256}}}
    canonical: str  # what the fingerprint covers (the record, sorted)


def file_record(part: FilePart) -> dict[str, Any]:
    """Return what a record keeps of a file part: its name, type, size and sha256."""
    name, data, mime = part
    return {"fileName": name, "mimeType": mime, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def encode(fields: Mapping[str, Any] | None, files: Mapping[str, FilePart], subtype: str = "form-data") -> Multipart:
    """Return the multipart body of ``fields`` (text values; a list repeats the name) and ``files``.

    Fields come first, then files, each in the order given (as a form lists them). ``None``
    field values are left out; booleans are ``true``/``false``; a file part with an empty file
    name has no ``filename`` (a typed part, as Google's ``multipart/related`` uploads take).
    """
    texts: list[tuple[str, str]] = []
    for name, value in (fields or {}).items():
        for one in value if isinstance(value, list | tuple) else [value]:
            if one is not None:
                texts.append((str(name), ("true" if one else "false") if isinstance(one, bool) else str(one)))
    recorded = {"fields": {k: v for k, v in texts}, "files": {str(k): file_record(p) for k, p in files.items()}}
    canonical = json.dumps({"fields": texts, "files": recorded["files"]}, sort_keys=True, separators=(",", ":"))
    boundary = "cutover-" + hashlib.sha256(canonical.encode()).hexdigest()[:32]
    chunks: list[bytes] = []
    for name, text in texts:
        chunks.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"\r\n\r\n'.encode()
                      + text.encode() + b"\r\n")
    for name, (file_name, data, mime) in files.items():
        named = f'; filename="{_quoted(file_name)}"' if file_name else ""
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(str(name))}"{named}'
                f'\r\nContent-Type: {mime}\r\n\r\n')
        chunks.append(head.encode() + data + b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return Multipart(b"".join(chunks), f"multipart/{subtype}; boundary={boundary}", recorded, "multipart:" + canonical)


def is_binary(response: Any) -> bool:
    """Tell whether an answer's body is bytes rather than text (its content type, else whether it decodes as UTF-8)."""
    content = response.content
    if not content:
        return False
    kind = str(response.headers.get("content-type") or "").lower()
    if kind.startswith("text/") or any(t in kind for t in _TEXT_TYPES):
        return False
    if kind:
        return True
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False

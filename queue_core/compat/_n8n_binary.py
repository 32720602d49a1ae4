"""n8n's binary data model in scaffolded code: an item's ``binary`` property, as n8n 1.x keeps it.

An item is ``{"json": {...}, "binary": {<property>: <entry>}}``; an entry is what n8n's
``prepareBinaryData`` makes in its ``default`` binary mode: ``mimeType``, ``fileType`` (json, html,
image, audio, video, text, pdf; left out for any other type), ``fileExtension``, ``data`` (the bytes,
base64), ``directory`` (for an HTTP answer, its URL), ``fileName`` and ``fileSize`` (pretty-bytes'
text: ``"12.3 kB"``). A key n8n leaves undefined is left out, as n8n's JSON leaves it out.

Bounded: an item's binary data may hold at most ``max_item_bytes()`` bytes (10 MiB, else
``CUTOVER_N8N_BINARY_MAX_BYTES``); a node that would make a bigger one fails (NodeFailed, naming
the node, the sizes and the variable), so a job's payload (a sub-workflow's items) and its steps
stay bounded. Records never keep the bytes: the decision trace holds items' ``json`` only, the
gateway stores a multipart part's and a binary answer's size and sha256 (``queue_core.gateway.binary``).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import posixpath
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from ..errors import NodeFailed
from ..gateway.request import OFFLINE_HEADERS

Item = dict[str, Any]
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
_UNITS = ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")
# HTTP Request's autodetect takes an answer of these content types as a file (n8n's binaryContentTypes).
FILE_CONTENT_TYPES = (
    "image/", "audio/", "video/", "application/octet-stream", "application/gzip", "application/zip",
    "application/vnd.rar", "application/epub+zip", "application/x-bzip", "application/x-bzip2", "application/x-cdf",
    "application/vnd.amazon.ebook", "application/msword",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.ms-fontobject",
    "application/vnd.oasis.opendocument.presentation", "application/pdf", "application/x-tar", "application/vnd.visio",
    "application/vnd.ms-excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/x-7z-compressed",
)


def max_item_bytes() -> int:
    """Return the most bytes one item's binary data may hold (``CUTOVER_N8N_BINARY_MAX_BYTES``, else 10 MiB)."""
    value = os.environ.get("CUTOVER_N8N_BINARY_MAX_BYTES", "")
    return int(value) if value.strip().isdigit() else DEFAULT_MAX_BYTES


@cache
def _mime() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = json.loads((Path(__file__).with_name("_n8n_mime.json")).read_text("utf-8"))
    return table


def mime_extension(mime_type: str) -> str | None:
    """Return the file extension n8n gives a MIME type (mime-types' ``extension``), or None."""
    return _mime()["extension"].get(mime_type.split(";")[0].strip().lower())


def mime_lookup(path: str) -> str | None:
    """Return the MIME type n8n gives a file path by its extension (mime-types' ``lookup``), or None."""
    ext = posixpath.splitext("x." + path)[1][1:].lower()
    return _mime()["type"].get(ext) if ext else None


def file_type(mime_type: str) -> str | None:
    """Return n8n's ``fileTypeFromMimeType``: json, html, image, audio, video, text, pdf, or None."""
    for prefix, kind in (("application/json", "json"), ("text/html", "html"), ("image/", "image"),
                         ("audio/", "audio"), ("video/", "video"), ("text/", "text"),
                         ("application/javascript", "text"), ("application/pdf", "pdf")):
        if mime_type.startswith(prefix):
            return kind
    return None


def pretty_bytes(size: int) -> str:
    """Return ``size`` as n8n's ``fileSize`` writes it (pretty-bytes 5: decimal units, 3 significant digits)."""
    if size < 1:
        return f"{size} B"
    exponent = min(int(math.floor(math.log10(size) / 3)), len(_UNITS) - 1)
    number = float(f"{size / 1000 ** exponent:.3g}")
    shown = str(int(number)) if number.is_integer() else repr(number)
    return f"{shown} {_UNITS[exponent]}"


def entry(data: bytes, *, mime_type: str | None = None, file_path: str | None = None,
          directory: str | None = None) -> dict[str, Any]:
    """Return the binary entry n8n's ``prepareBinaryData`` makes of ``data`` (default mode: base64 inline).

    The MIME type is ``mime_type``, else the path's by its extension, else ``text/plain``; the
    extension is the path's, else the type's; ``directory`` (an HTTP answer's URL) or the path's folder.
    """
    mime = mime_type or (mime_lookup(file_path) if file_path else None)
    extension = mime_extension(mime) if mime else None
    mime = mime or "text/plain"
    out: dict[str, Any] = {"mimeType": mime, "fileType": file_type(mime), "fileExtension": extension, "data": ""}
    if file_path:
        trimmed = file_path.rstrip("/") or file_path[:1]  # Node's path.parse drops trailing slashes
        folder, base = posixpath.split(trimmed)
        folder = "" if folder == trimmed else folder
        if directory or folder:
            out["directory"] = directory or folder
        out["fileName"] = base
        ext = posixpath.splitext(base)[1][1:]
        if ext:
            out["fileExtension"] = ext
    out["data"] = base64.b64encode(data).decode("ascii")
    out["fileSize"] = pretty_bytes(len(data))
    return {k: v for k, v in out.items() if v is not None}


def _parameters(parts: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in parts:
        key, _, value = part.partition("=")
        value = unquote(value.split("=")[0]).strip() if "=" in part else "undefined"
        if value.startswith('"') and value.endswith('"') and len(value) > 1:
            value = value[1:-1]
        found[key.lower().strip()] = value
    return found


def disposition_filename(header: str | None) -> str | None:
    """Return the file name of a Content-Disposition header as n8n reads it (``filename*`` before ``filename``)."""
    if not header:
        return None
    if not header.startswith(("attachment", "inline")):
        header = f"attachment; {header}"
    found = _parameters(header.split(";")[1:])
    wildcard = found.get("filename*")
    if wildcard:
        pieces = wildcard.split("'")
        return pieces[2] if len(pieces) > 2 else None
    return found.get("filename")


def _request_url(response: Any) -> Any:
    try:
        return response.request.url
    except RuntimeError:  # a response built without its request (a test's): its own URL stands in
        return response.url


def answer_entry(response: Any, output: str = "data", *, followed: bool = True) -> dict[str, Any]:
    """Return the binary entry n8n's HTTP Request makes of an answer (response format "file").

    The file name is the Content-Disposition's, else the URL's path; the MIME type the
    Content-Type's (up to a space or ``;``). When n8n's client followed redirects (``followed``:
    v4+ by default, or the Follow Redirects option) the path is the answer URL's and ``directory``
    that URL (without user and password); else the path is the request's, with its query. A
    file with no name but an extension is called ``<output>.<ext>`` (or the URL's last segment
    when the URL ends with the extension), as n8n's ``setFilename`` does.
    """
    sent = _request_url(response)
    url = urlsplit(str(response.url))
    full = str(response.url)
    if "@" in url.netloc:  # n8n keeps the answer's URL without user and password
        full = urlunsplit((url.scheme, url.netloc.rsplit("@", 1)[1], url.path, url.query, url.fragment))
    where = (url.path or "/") if followed else sent.raw_path.decode("ascii", "replace")
    path = disposition_filename(response.headers.get("content-disposition")) or where[1:]
    content_type = str(response.headers.get("content-type") or "")
    mime = content_type.split(" ")[0].split(";")[0] or None
    made = entry(response.content, mime_type=mime, file_path=path or None,
                 directory=full if path and followed else None)
    if "fileName" not in made and made.get("fileExtension"):
        request_url = str(sent)
        ext = made["fileExtension"]
        made["fileName"] = request_url.split("/")[-1] if request_url.endswith(ext) else f"{output}.{ext}"
    return made


def is_file(response: Any) -> bool:
    """Tell whether HTTP Request's autodetect takes the answer as a file (its content type)."""
    kind = str(response.headers.get("content-type") or "")
    return "application/json" not in kind and any(t in kind for t in FILE_CONTENT_TYPES)


def bounded(item: Item, node: str) -> Item:
    """Return ``item``; raise NodeFailed when its binary data holds more than ``max_item_bytes()``."""
    binary = item.get("binary") or {}
    total = sum(len(str(e.get("data") or "")) * 3 // 4 for e in binary.values() if isinstance(e, dict))
    limit = max_item_bytes()
    if total > limit:
        raise NodeFailed(f"{node}: the item's binary data would hold {total} bytes, over the runtime's limit of "
                         f"{limit} bytes per item (set CUTOVER_N8N_BINARY_MAX_BYTES to allow more)")
    return item


def file_response(item: Item, response: Any, output: str = "data", *, full: bool = False, followed: bool = True,
                  node: str = "HTTP Request") -> list[Item]:
    """Return HTTP Request's item for a file answer: the input item's json (with the full response,
    its headers, statusCode and statusMessage) and binary, with the answer under ``output``.

    A recorded answer (a shadow run: the legacy node's output, which an export keeps without the
    bytes) is that output's items, with the recorded metadata as the binary entry when there is one.
    """
    if any(response.headers.get(h) for h in OFFLINE_HEADERS):
        return recorded_files(item, response, output)
    if full:
        body: dict[str, Any] = {"headers": {k.lower(): v for k, v in response.headers.items()},
                                "statusCode": response.status_code, "statusMessage": response.reason_phrase}
    else:
        body = item.get("json") or {}
    if len(response.content) > max_item_bytes():
        raise NodeFailed(f"{node}: the answer is {len(response.content)} bytes, over the runtime's limit of "
                         f"{max_item_bytes()} bytes per item (set CUTOVER_N8N_BINARY_MAX_BYTES to allow more)")
    binary = {**(item.get("binary") or {}), output: answer_entry(response, output, followed=followed)}
    return [bounded({"json": body, "binary": binary}, node)]


def recorded_files(item: Item, response: Any, output: str) -> list[Item]:
    """Return a recorded answer's items (a shadow run's: the legacy node's output json), each with the
    input's binary and a stand-in entry under ``output``: the export keeps no bytes, so none are made up."""
    try:
        recorded = response.json()
    except ValueError:
        recorded = None
    rows = recorded if isinstance(recorded, list) else [recorded] if isinstance(recorded, dict) else []
    # An export keeps items' json only here (the importer's): the entry stands in for the file, without bytes.
    stand_in = {"mimeType": "application/octet-stream", "data": "", "fileName": output, "fileSize": pretty_bytes(0)}
    binary = {**(item.get("binary") or {}), output: stand_in}
    return [{"json": row if isinstance(row, dict) else {"value": row}, "binary": dict(binary)} for row in rows]


def binary_of(item: Item, name: Any, index: int = 0, node: str | None = None) -> dict[str, Any]:
    """Return the item's binary entry ``name``; NodeFailed, in n8n's words (``assertBinaryData``), when it has none."""
    where = f"{node}: " if node else ""
    binary = item.get("binary")
    if binary is None:
        raise NodeFailed(f"{where}This operation expects the node's input data to contain a binary file '{name}', "
                         f"but none was found [item {index}]")
    found = binary.get(str(name))
    if not isinstance(found, dict):
        raise NodeFailed(f"{where}The item has no binary field '{name}' [item {index}]")
    return found


# A shadow or dry-run item without the binary property (a recorded trigger or node output: an export
# keeps no bytes) uploads this empty part: the call is not sent, its intent records size 0.
STAND_IN_PART = ("", b"", "application/octet-stream")


def offline_stand_in(ctx: Any, item: Item, name: str) -> bool:
    """Tell whether an upload of ``name`` takes STAND_IN_PART: a shadow/dry-run job whose item lacks that property."""
    if ctx is None or str(getattr(ctx, "mode", "live")) == "live":
        return False
    return not isinstance((item.get("binary") or {}).get(name), dict)


def file_part(item: Item, name: str, index: int = 0, ctx: Any = None) -> tuple[str, bytes, str]:
    """Return the item's binary entry ``name`` as a multipart file part: (file name, bytes, MIME type).

    An entry recorded without its bytes gives an empty part; with ``ctx`` in a shadow or dry-run
    job, an item without the property gives STAND_IN_PART (live, NodeFailed in n8n's words).
    """
    if offline_stand_in(ctx, item, name):
        return STAND_IN_PART
    found = binary_of(item, name, index)
    try:
        data = base64.b64decode(str(found.get("data") or ""), validate=False)
    except (binascii.Error, ValueError):
        data = b""
    return str(found.get("fileName") or "file"), data, str(found.get("mimeType") or "application/octet-stream")

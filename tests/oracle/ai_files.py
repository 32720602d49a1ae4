"""Gemini's Files API as the loopback stand-in answers it (``ai_server`` routes ``/upload/…`` and ``/v1beta/files/…`` here).

What n8n's Gemini audio/image/document operations call before ``:generateContent``:

- ``POST /upload/v1beta/files`` (``X-Goog-Upload-Command: start``): an empty answer whose
  ``x-goog-upload-url`` header names a session (``/upload/session/<n>``) that remembers the file's MIME
  type (``X-Goog-Upload-Header-Content-Type``);
- ``POST /upload/session/<n>`` with the bytes (``upload, finalize``): ``{"file": {name, uri, mimeType,
  state: "PROCESSING", sizeBytes}}``, the name ``files/<case>-<sha256[:12]>``, ``<case>`` the bytes' first
  word (a case's file starts with its tag), so the URI the model call carries tells which bytes arrived;
- ``GET /v1beta/files/<id>``: the file, ``state: "ACTIVE"`` (so a client polls once).

Each upload is kept (case, path, ``{"size", "sha256", "mimeType"}``) with the other requests.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from typing import Any

_lock = threading.Lock()
_sessions: dict[str, str] = {}
_files: dict[str, dict[str, Any]] = {}
_count = itertools.count(1)


def start(base: str, headers: Any) -> tuple[dict[str, str], dict[str, Any]]:
    """Open an upload session; return (answer headers, answer body)."""
    session = str(next(_count))
    with _lock:
        _sessions[session] = str(headers.get("X-Goog-Upload-Header-Content-Type") or "application/octet-stream")
    return {"x-goog-upload-url": f"{base}/upload/session/{session}"}, {}


def finish(base: str, path: str, data: bytes) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Take a session's bytes; return (the case, what is kept of the upload, the answer)."""
    digest = hashlib.sha256(data).hexdigest()
    case = data.split(b" ", 1)[0].decode("utf-8", "replace")
    with _lock:
        mime = _sessions.pop(path.rsplit("/", 1)[-1], "application/octet-stream")
    name = f"files/{case}-{digest[:12]}"
    file = {"name": name, "uri": f"{base}/v1beta/{name}", "mimeType": mime, "sizeBytes": str(len(data))}
    with _lock:
        _files[name] = file
    return case, {"size": len(data), "sha256": digest, "mimeType": mime}, {"file": {**file, "state": "PROCESSING"}}


def get(path: str) -> tuple[str, dict[str, Any]]:
    """Answer ``GET /v1beta/files/<id>``: (the case, the file, ACTIVE; an unknown one FAILED)."""
    name = path.removeprefix("/v1beta/")
    with _lock:
        file = _files.get(name)
    case = name.removeprefix("files/").rsplit("-", 1)[0]
    if file is None:
        return case, {"name": name, "state": "FAILED", "error": {"message": f"no file {name}"}}
    return case, {**file, "state": "ACTIVE"}

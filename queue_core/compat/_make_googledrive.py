"""Make's Google Drive, Docs and Calendar modules at run time (``make.googledrive.copy_file(…)``).

- Drive v3: Copy a file (``POST files/{id}/copy``: the new name and folder), Get a file (its
  metadata, then its content: ``alt=media``, or ``export`` in the format asked for a Google Docs,
  Sheets, Slides or Drawings file; the bundle is the metadata with ``data``), Delete a file
  (``DELETE files/{id}``), Create a folder (``POST files``, the folder MIME type), Search for files/folders (``GET files?q=``), Upload a file (``uploadType=multipart``: the metadata, then the data).
  Each file's bundle is the Drive file resource (``fields=*``).
- Docs v1: Replace a text in a document: one ``replaceAllText`` request per pair, case matched.
- Calendar v3: Create an event (``POST calendars/{id}/events``; a Google Meet link asked with
  ``conferenceDataVersion=1``), Get and Delete an event (``events/{eventId}``) and Search events (``GET calendars/{id}/events``: one bundle per
  event); an event's bundle is the API's event with ``start`` and ``end`` as their date-time.
- Watch files in a folder: a poller (``_make_poll``): files created (or modified) since the last poll.

In a shadow replay the first call's answer is the module's recorded output: it is returned as it is.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from ..errors import ModuleFailed
from ._make_filter import instant, text
from ._make_google import bundles_of, recorded
from ._make_poll import positive_limit, start_items

DRIVE = "https://www.googleapis.com/drive/v3/files"
UPLOAD = "https://www.googleapis.com/upload/drive/v3/files"
DOCS = "https://docs.googleapis.com/v1/documents"
CALENDAR = "https://www.googleapis.com/calendar/v3/calendars"
_EXPORTS = {"application/vnd.google-apps.document": "documents", "application/vnd.google-apps.spreadsheet": "spreadsheets",
            "application/vnd.google-apps.presentation": "presentations", "application/vnd.google-apps.drawing": "drawings"}

__all__ = ["copy_file", "create_event", "create_folder", "delete_event", "get_event", "search_files", "delete_file", "event_bundle", "file_id", "get_file", "replace_text",
           "search_events", "upload_file", "watch_files"]


def file_id(value: Any) -> str:
    """Return a Drive id: Make's picker writes a path (``/<folder>/<id>``), its last part."""
    found = [part for part in text(value).strip().split("/") if part]
    if not found:
        raise ModuleFailed("Google Drive: the file (or folder) ID is empty")
    return found[-1]


def _json(response: Any, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ModuleFailed(f"Google {what}: the answer is not JSON ({response.text[:200]!r})") from None


async def copy_file(ctx: Any, provider: str, *, step: str, file: Any, name: Any = None, folder: Any = None) -> Any:
    """Copy a file: ``POST files/{id}/copy`` named ``name`` into ``folder``; the new file."""
    body: dict[str, Any] = {}
    if text(name):
        body["name"] = text(name)
    if text(folder):
        body["parents"] = [file_id(folder)]
    response = await ctx.call(provider, "POST", f"{DRIVE}/{file_id(file)}/copy", step=step,
                              params={"fields": "*", "supportsAllDrives": "true"}, json=body)
    found = recorded(response)
    return found if found is not None else _json(response, "Drive Copy a file")


async def get_file(ctx: Any, provider: str, *, step: str, file: Any, formats: dict[str, Any]) -> Any:
    """Get a file: its metadata, then its content (a Google file exported in the format asked); metadata + ``data``."""
    fid = file_id(file)
    response = await ctx.call(provider, "GET", f"{DRIVE}/{fid}", step=step, params={"fields": "*", "supportsAllDrives": "true"})
    found = recorded(response)
    if found is not None:
        return found
    meta = _json(response, "Drive Get a file")
    kind = _EXPORTS.get(text(meta.get("mimeType")))
    if kind is not None:
        target = text(formats.get(kind))
        if not target:
            raise ModuleFailed(f"Google Drive Get a file: no export format for {meta.get('mimeType')}")
        content = await ctx.call(provider, "GET", f"{DRIVE}/{fid}/export", step=step, params={"mimeType": target})
    else:
        content = await ctx.call(provider, "GET", f"{DRIVE}/{fid}", step=step, params={"alt": "media", "supportsAllDrives": "true"})
    return {**meta, "data": content.content}


async def delete_file(ctx: Any, provider: str, *, step: str, file: Any) -> Any:
    """Delete a file: ``DELETE files/{id}`` (permanently); an empty bundle."""
    response = await ctx.call(provider, "DELETE", f"{DRIVE}/{file_id(file)}", step=step, params={"supportsAllDrives": "true"})
    found = recorded(response)
    return found if found is not None else {}


async def upload_file(ctx: Any, provider: str, *, step: str, filename: Any, data: Any, folder: Any = None,
                      title: Any = None) -> Any:
    """Upload a file: a multipart upload of the metadata (name: the new file name, else the file's; folder)
    and the data; the new file."""
    meta: dict[str, Any] = {"name": text(title) or text(filename)}
    if text(folder):
        meta["parents"] = [file_id(folder)]
    payload = data if isinstance(data, bytes | bytearray) else text(data).encode("utf-8")
    boundary = f"cutover-{uuid.uuid4().hex}"
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{json.dumps(meta)}\r\n"
            f"--{boundary}\r\nContent-Type: application/octet-stream\r\n\r\n").encode() + bytes(payload) + \
        f"\r\n--{boundary}--".encode()
    response = await ctx.call(provider, "POST", UPLOAD, step=step, params={"uploadType": "multipart", "fields": "*",
                                                                           "supportsAllDrives": "true"},
                              content=body, headers={"Content-Type": f"multipart/related; boundary={boundary}"})
    found = recorded(response)
    return found if found is not None else _json(response, "Drive Upload a file")


async def replace_text(ctx: Any, provider: str, *, step: str, document: Any, pairs: Any) -> Any:
    """Replace a text in a document: ``POST documents/{id}:batchUpdate``, one ``replaceAllText`` per pair."""
    requests = [{"replaceAllText": {"containsText": {"text": text(p.get("oldText")), "matchCase": True},
                                    "replaceText": text(p.get("newText"))}}
                for p in pairs or [] if isinstance(p, dict) and text(p.get("oldText"))]
    response = await ctx.call(provider, "POST", f"{DOCS}/{file_id(document)}:batchUpdate", step=step,
                              json={"requests": requests})
    found = recorded(response)
    return found if found is not None else _json(response, "Docs Replace a text")


def _moment(value: Any, field: str) -> str:
    found = instant(value)
    if found is None:
        raise ModuleFailed(f"Google Calendar: {field} {text(value)!r} is not a date")
    return found.isoformat()


def event_bundle(event: Any) -> Any:
    """Return Make's bundle of a Calendar event: the API's event, ``start``/``end`` as their date-time (or date)."""
    if not isinstance(event, dict):
        return event
    out = dict(event)
    for key in ("start", "end"):
        if isinstance(out.get(key), dict):
            out[key] = out[key].get("dateTime") or out[key].get("date")
    return out


def _duration(value: Any) -> timedelta:
    match = re.fullmatch(r"\s*(\d+):([0-5]\d)(?::([0-5]\d))?\s*", text(value))
    if not match:
        raise ModuleFailed(f"Google Calendar Create an event: duration {text(value)!r} is not HH:mm")
    return timedelta(hours=int(match.group(1)), minutes=int(match.group(2)), seconds=int(match.group(3) or 0))


async def create_event(ctx: Any, provider: str, *, step: str, calendar: Any, event: dict[str, Any], all_day: bool = False,
                       meet: bool = False, send_updates: Any = None, duration: Any = None) -> Any:
    """Create an event: ``POST calendars/{id}/events``; Make's bundle of the event created. With no end,
    the end is the start plus ``duration`` (``HH:mm``)."""
    body = {k: text(v) if isinstance(v, datetime) else v for k, v in event.items() if v not in (None, "", [], {})}
    if "end" not in body and text(duration) and "start" in body:
        begin = instant(body["start"])
        if begin is None:
            raise ModuleFailed(f"Google Calendar: start {text(body['start'])!r} is not a date")
        body["end"] = (begin + _duration(duration)).isoformat()
    for key in ("start", "end"):
        if key not in body:
            raise ModuleFailed(f"Google Calendar Create an event: the {key} is not mapped")
        moment = _moment(body[key], key)
        body[key] = {"date": moment[:10]} if all_day else {"dateTime": moment}
    if isinstance(body.get("attendees"), list):
        body["attendees"] = [{k: v for k, v in a.items() if v not in (None, "")} for a in body["attendees"]
                             if isinstance(a, dict) and a.get("email")]
    params: dict[str, Any] = {}
    if meet:
        params["conferenceDataVersion"] = "1"
        body["conferenceData"] = {"createRequest": {"requestId": str(uuid.uuid4()),
                                                    "conferenceSolutionKey": {"type": "hangoutsMeet"}}}
    if text(send_updates):
        params["sendUpdates"] = text(send_updates)
    response = await ctx.call(provider, "POST", f"{CALENDAR}/{quote(text(calendar), safe='@.')}/events", step=step,
                              params=params, json=body)
    found = recorded(response)
    return found if found is not None else event_bundle(_json(response, "Calendar Create an event"))


async def search_events(ctx: Any, provider: str, *, step: str, calendar: Any, query: dict[str, Any], limit: Any = None) -> list[Any]:
    """Search events: ``GET calendars/{id}/events``; one bundle per event (at most ``limit``)."""
    params = {k: (_moment(v, k) if k in ("timeMin", "timeMax", "updatedMin") else text(v).lower() if isinstance(v, bool) else text(v))
              for k, v in query.items() if v not in (None, "")}
    top = positive_limit(limit)
    if top:
        params["maxResults"] = str(top)
    response = await ctx.call(provider, "GET", f"{CALENDAR}/{quote(text(calendar), safe='@.')}/events", step=step, params=params)
    found = recorded(response)
    if found is not None:
        return bundles_of(found)
    items = (_json(response, "Calendar Search events") or {}).get("items") or []
    items = items[:top] if top else items
    return [{**event_bundle(e), "__IMTINDEX__": i, "__IMTLENGTH__": len(items)} for i, e in enumerate(items, 1)]


async def watch_files(ctx: Any, provider: str, *, step: str, folder: Any, watch: str = "create", mime: Any = None,
                      limit: Any = None) -> list[Any]:
    """Watch files in a folder: start a job per file created (``modify``: modified) in it since the last poll."""
    field = "createdTime" if watch == "create" else "modifiedTime"
    cursor = await ctx.poll_cursor(default=None)
    if not isinstance(cursor, dict):  # the first poll: from now on
        since = ctx.now().astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        return await start_items(ctx, [], id_of=lambda f: f["id"], cursor={"since": since})
    q = f"'{file_id(folder)}' in parents and trashed = false and {field} > '{text(cursor.get('since'))}'"
    if text(mime) not in ("", "all"):
        q += f" and mimeType = '{text(mime)}'"
    response = await ctx.call(provider, "GET", DRIVE, step=step, params={
        "q": q, "orderBy": field, "fields": "files(*)", "pageSize": "100", "supportsAllDrives": "true",
        "includeItemsFromAllDrives": "true"})
    files = [f for f in (_json(response, "Drive Watch files") or {}).get("files") or [] if isinstance(f, dict)]
    top = positive_limit(limit)
    files = files[:top] if top else files
    since = files[-1].get(field) if files else cursor.get("since")
    return await start_items(ctx, files, id_of=lambda f: f["id"] if watch == "create" else f"{f['id']}@{f.get(field)}",
                             cursor={"since": since})


async def create_folder(ctx: Any, provider: str, *, step: str, name: Any, parent: Any = None) -> Any:
    """Create a folder: ``POST files`` of the folder MIME type in ``parent``; the new folder."""
    body: dict[str, Any] = {"name": text(name), "mimeType": "application/vnd.google-apps.folder"}
    if text(parent):
        body["parents"] = [file_id(parent)]
    response = await ctx.call(provider, "POST", DRIVE, step=step, params={"fields": "*", "supportsAllDrives": "true"},
                              json=body)
    found = recorded(response)
    return found if found is not None else _json(response, "Drive Create a folder")


def _event_url(calendar: Any, event: Any) -> str:
    if not text(event):
        raise ModuleFailed("Google Calendar: the event ID is empty")
    return f"{CALENDAR}/{quote(text(calendar), safe='@.')}/events/{quote(text(event), safe='')}"


async def get_event(ctx: Any, provider: str, *, step: str, calendar: Any, event: Any) -> Any:
    """Get an event: ``GET calendars/{id}/events/{eventId}``; Make's bundle of the event."""
    response = await ctx.call(provider, "GET", _event_url(calendar, event), step=step)
    found = recorded(response)
    return found if found is not None else event_bundle(_json(response, "Calendar Get an event"))


async def delete_event(ctx: Any, provider: str, *, step: str, calendar: Any, event: Any, send_updates: Any = None) -> Any:
    """Delete an event: ``DELETE calendars/{id}/events/{eventId}``; an empty bundle."""
    params = {"sendUpdates": text(send_updates)} if text(send_updates) else {}
    response = await ctx.call(provider, "DELETE", _event_url(calendar, event), step=step, params=params)
    found = recorded(response)
    return found if found is not None else {}


_FOLDER = "application/vnd.google-apps.folder"


def _quoted(value: Any) -> str:
    return "'" + text(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


async def search_files(ctx: Any, provider: str, *, step: str, retrieve: Any = "file_folder", search: Any = "title",
                       query: Any = None, folder: Any = None, limit: Any = None) -> list[Any]:
    """Search for files/folders: ``GET files?q=…`` (by name, full text or a Drive query; files, folders or
    both; in a folder); one bundle per file found (at most ``limit``)."""
    terms = ["trashed = false"]
    if text(query):
        kind = text(search) or "title"
        if kind not in ("title", "fulltext", "custom"):
            raise ModuleFailed(f"Google Drive Search for files/folders: search {kind!r} is not known")
        terms.append(text(query) if kind == "custom" else f"{'name' if kind == 'title' else 'fullText'} contains {_quoted(query)}")
    if text(retrieve) == "file":
        terms.append(f"mimeType != '{_FOLDER}'")
    elif text(retrieve) == "folder":
        terms.append(f"mimeType = '{_FOLDER}'")
    if text(folder):
        terms.append(f"{_quoted(file_id(folder))} in parents")
    top = positive_limit(limit)
    params = {"q": " and ".join(terms), "fields": "files(*)", "pageSize": str(top or 100), "supportsAllDrives": "true",
              "includeItemsFromAllDrives": "true"}
    response = await ctx.call(provider, "GET", DRIVE, step=step, params=params)
    found = recorded(response)
    if found is not None:
        return bundles_of(found)
    files = [f for f in (_json(response, "Drive Search for files/folders") or {}).get("files") or [] if isinstance(f, dict)]
    files = files[:top] if top else files
    return [{**f, "__IMTINDEX__": i, "__IMTLENGTH__": len(files)} for i, f in enumerate(files, 1)]

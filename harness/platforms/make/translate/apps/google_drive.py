"""Make's Google Drive, Docs and Calendar modules: each one ``make.googledrive.<module>(…)`` call.

The mapper's fields map onto the catalogue's ``google-drive`` (``file.copy``, ``file.get``,
``file.delete``, ``file.upload``), ``google-docs`` (``document.replaceText``) and
``google-calendar`` (``event.create``, ``event.search``) operations: ``file`` / ``folderId``
(an id, or the Drive path Make's picker writes), ``name``, ``filename`` and ``data``, the export
formats of Google files, ``replaceText`` pairs, and the event's ``calendar``, ``summary``,
``start``/``end``, ``attendees``, ``conferenceDate`` (a Meet link)… Watch files is in ``..triggers``.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps.google_common import awaited, only, required
from harness.platforms.make.translate.base import Gen, ModuleCode

__all__ = ["OPERATIONS", "TRANSLATORS"]

GOOGLEAPIS = "https://www.googleapis.com"
DOCS = "https://docs.googleapis.com"


def copy_file(module: Module, gen: Gen) -> ModuleCode:
    """Copy a file: ``POST drive/v3/files/{id}/copy`` with the new name and folder."""
    required(module, "file")
    only(module, "select", "name", "copy", "destination", "file", "folderId")
    return awaited(module, gen, "googledrive.copy_file", GOOGLEAPIS, file=module.mapper["file"],
                   name=module.mapper.get("name") or "", folder=module.mapper.get("folderId") or "")


def get_file(module: Module, gen: Gen) -> ModuleCode:
    """Get a file: its metadata, then its content (a Google file exported in the format asked)."""
    required(module, "file")
    only(module, "select", "file", "formatDocuments", "formatSpreadsheets", "formatPresentations", "formatDrawings")
    m = module.mapper
    formats = {"documents": m.get("formatDocuments"), "spreadsheets": m.get("formatSpreadsheets"),
               "presentations": m.get("formatPresentations"), "drawings": m.get("formatDrawings")}
    return awaited(module, gen, "googledrive.get_file", GOOGLEAPIS, file=m["file"], formats=formats)


def delete_file(module: Module, gen: Gen) -> ModuleCode:
    """Delete a file: ``DELETE drive/v3/files/{id}``."""
    required(module, "file")
    only(module, "select", "select1", "file")
    if module.mapper.get("select1") not in (None, "file", "folder"):
        raise Untranslatable(f"deleting {module.mapper.get('select1')!r} is not translated")
    return awaited(module, gen, "googledrive.delete_file", GOOGLEAPIS, file=module.mapper["file"])


def upload_file(module: Module, gen: Gen) -> ModuleCode:
    """Upload a file: a multipart upload into the folder."""
    required(module, "filename", "data")
    only(module, "select", "title", "filename", "data", "convert", "destination", "folderId")
    m = module.mapper
    if m.get("convert"):
        raise Untranslatable("converting the upload to a Google format (convert) is not translated")
    return awaited(module, gen, "googledrive.upload_file", GOOGLEAPIS, filename=m["filename"], data=m["data"],
                   folder=m.get("folderId") or "", title=m.get("title") or "")


def replace_text(module: Module, gen: Gen) -> ModuleCode:
    """Replace a text in a document: one Docs ``replaceAllText`` request per pair."""
    required(module, "document", "replaceText")
    only(module, "destination", "document", "replaceText")
    return awaited(module, gen, "googledrive.replace_text", DOCS, document=module.mapper["document"],
                   pairs=module.mapper["replaceText"])


_EVENT_FIELDS = ("summary", "description", "location", "start", "end", "attendees", "colorId", "visibility",
                 "transparency", "recurrence")


def create_event(module: Module, gen: Gen) -> ModuleCode:
    """Create an event (in detail): ``POST calendar/v3/calendars/{id}/events``."""
    m = module.mapper
    required(module, "calendar", "start")
    only(module, "select", "calendar", *_EVENT_FIELDS, "guestPermissions", "allDayEvent", "conferenceDate",
         "sendUpdates", "useDefault", "duration", "attachments", "overrides", "eventType")
    if m.get("select", "detail") != "detail":
        raise Untranslatable(f"creating an event {m.get('select')!r} (quick add) is not translated")
    if m.get("end") in (None, "") and m.get("duration") in (None, ""):
        raise Untranslatable("the event has neither an end nor a duration")
    if m.get("attachments") or m.get("eventType") not in (None, "", "default"):
        raise Untranslatable("event attachments and event types are not translated")
    overrides = m.get("overrides") or []
    if not isinstance(overrides, list) or any(not isinstance(o, dict) or set(o) - {"method", "minutes"} for o in overrides):
        raise Untranslatable("reminder overrides other than (method, minutes) pairs are not translated")
    event = {k: m.get(k) for k in _EVENT_FIELDS}
    if isinstance(m.get("useDefault"), bool) or overrides:
        event["reminders"] = {"useDefault": bool(m.get("useDefault")) and not overrides, **({"overrides": overrides} if overrides else {})}
    guests = m.get("guestPermissions")
    if isinstance(guests, dict):
        event.update(guests)
    return awaited(module, gen, "googledrive.create_event", GOOGLEAPIS, calendar=m["calendar"], event=event,
                   all_day=bool(m.get("allDayEvent")), meet=bool(m.get("conferenceDate")), send_updates=m.get("sendUpdates"),
                   duration=m.get("duration") if m.get("end") in (None, "") else "")


def search_events(module: Module, gen: Gen) -> ModuleCode:
    """Search events: ``GET calendar/v3/calendars/{id}/events``; one bundle per event."""
    m = module.mapper
    required(module, "calendar")
    only(module, "calendar", "timeMin", "timeMax", "updatedMin", "singleEvents", "q", "orderBy", "limit", "eventTypes")
    query = {k: m.get(k) for k in ("timeMin", "timeMax", "updatedMin", "singleEvents", "q", "orderBy")}
    if m.get("eventTypes"):
        raise Untranslatable("filtering by event types is not translated")
    return awaited(module, gen, "googledrive.search_events", GOOGLEAPIS, many=True, calendar=m["calendar"],
                   query=query, limit=m.get("limit"))


def create_folder(module: Module, gen: Gen) -> ModuleCode:
    """Create a folder: ``POST drive/v3/files`` of the folder MIME type, in its parent folder."""
    only(module, "select", "name", "destination", "folderId")
    required(module, "name")
    return awaited(module, gen, "googledrive.create_folder", GOOGLEAPIS, name=module.mapper["name"],
                   parent=module.mapper.get("folderId") or "")


def search_files(module: Module, gen: Gen) -> ModuleCode:
    """Search for files/folders: ``GET drive/v3/files?q=…``; one bundle per file found."""
    m = module.mapper
    only(module, "select", "retrieve", "searchType", "query", "limit", "destination", "folderId")
    if m.get("retrieve", "file_folder") not in ("file", "folder", "file_folder"):
        raise Untranslatable(f"retrieving {m.get('retrieve')!r} is not translated")
    return awaited(module, gen, "googledrive.search_files", GOOGLEAPIS, many=True, retrieve=m.get("retrieve") or "file_folder",
                   search=m.get("searchType") or "title", query=m.get("query") or "", folder=m.get("folderId") or "",
                   limit=m.get("limit"))


def get_event(module: Module, gen: Gen) -> ModuleCode:
    """Get an event: ``GET calendar/v3/calendars/{id}/events/{eventId}``."""
    only(module, "calendar", "eventId")
    required(module, "calendar", "eventId")
    return awaited(module, gen, "googledrive.get_event", GOOGLEAPIS, calendar=module.mapper["calendar"],
                   event=module.mapper["eventId"])


def delete_event(module: Module, gen: Gen) -> ModuleCode:
    """Delete an event: ``DELETE calendar/v3/calendars/{id}/events/{eventId}``."""
    only(module, "calendar", "eventId", "sendUpdates")
    required(module, "calendar", "eventId")
    return awaited(module, gen, "googledrive.delete_event", GOOGLEAPIS, calendar=module.mapper["calendar"],
                   event=module.mapper["eventId"], send_updates=module.mapper.get("sendUpdates"))


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    "google-drive:createAFolder": create_folder, "google-drive:searchForFilesFolders": search_files, "google-calendar:getAnEvent": get_event,
    "google-calendar:deleteAnEvent": delete_event,
    "google-drive:copyAFile": copy_file, "google-drive:getAFile": get_file, "google-drive:deleteAFile": delete_file,
    "google-drive:uploadAFile": upload_file, "google-docs:replaceATextInADocument": replace_text,
    "google-calendar:createAnEvent": create_event, "google-calendar:searchEvents": search_events,
}

# module type -> (catalogue app, operation): the call each makes, for the catalogue's table (operation x platform)
OPERATIONS: dict[str, tuple[str, str]] = {
    "google-drive:copyAFile": ("google-drive", "file.copy"), "google-drive:getAFile": ("google-drive", "file.download"),
    "google-drive:deleteAFile": ("google-drive", "file.delete"), "google-drive:uploadAFile": ("google-drive", "file.upload"),
    "google-drive:createAFolder": ("google-drive", "folder.create"),
    "google-drive:searchForFilesFolders": ("google-drive", "fileFolder.search"),
    "google-docs:replaceATextInADocument": ("google-docs", "document.replaceText"),
    "google-calendar:createAnEvent": ("google-calendar", "event.create"),
    "google-calendar:searchEvents": ("google-calendar", "event.search"),
    "google-calendar:getAnEvent": ("google-calendar", "event.get"),
    "google-calendar:deleteAnEvent": ("google-calendar", "event.delete"),
}

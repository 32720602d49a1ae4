"""The Google operations Make's modules call that the n8n rows did not have (Sheets, Gmail, Drive, Docs, Calendar).

Same-named apps merge with the earlier rows (``harness.catalogue.merged``): the provider, base URL
and secret are theirs; these add operations. Paths are the Google REST APIs' own (public facts);
``harness.platforms.make.translate.apps.google*`` map Make's mapper fields onto them.
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret

_SHEET = "/v4/spreadsheets/{documentId}"
_GMAIL = "/gmail/v1/users/me"
_FILES = "/drive/v3/files"


def _app(name: str, provider: str, base_url: str, secret: Secret | None, *operations: Operation) -> App:
    return App(name, provider, base_url, secret, {op.name: op for op in operations})


GOOGLE: tuple[App, ...] = (
    _app("google-sheets", "google-sheets", "https://sheets.googleapis.com",
         Secret(Auth.BEARER, "GOOGLE_SHEETS_TOKEN", what="a Google OAuth access token"),
         Operation("sheet.updateRow", "PUT", _SHEET + "/values/{range}", body=("values",), query=("valueInputOption",),
                   note="one row's range ('<sheet>'!A<n>:<last><n>); a null cell is left as it is"),
         Operation("spreadsheet.get", "GET", _SHEET, query=("fields",),
                   note="Make's Delete a row reads the sheet's numeric id (sheets.properties) for sheet.delete"),
         Operation("sheet.readRange", "GET", _SHEET + "/values/{range}",
                   query=("valueRenderOption", "dateTimeRenderOption"),
                   note="Make's Search rows filters, sorts and limits the rows read")),
    _app("gmail", "gmail", "https://gmail.googleapis.com", Secret(Auth.BEARER, "GMAIL_TOKEN", what="a Google OAuth access token"),
         Operation("thread.get", "GET", _GMAIL + "/threads/{threadId}", query=("format",)),
         Operation("attachment.get", "GET", _GMAIL + "/messages/{messageId}/attachments/{attachmentId}"),
         Operation("label.getAll", "GET", _GMAIL + "/labels")),
    _app("google-drive", "google-drive", "https://www.googleapis.com",
         Secret(Auth.BEARER, "GOOGLE_DRIVE_TOKEN", what="a Google OAuth access token"),
         Operation("file.copy", "POST", _FILES + "/{fileId}/copy", body=("name", "parents"), query=("fields", "supportsAllDrives")),
         Operation("file.get", "GET", _FILES + "/{fileId}", query=("fields", "supportsAllDrives")),
         Operation("file.export", "GET", _FILES + "/{fileId}/export", query=("mimeType",)),
         Operation("file.delete", "DELETE", _FILES + "/{fileId}", query=("supportsAllDrives",))),
    _app("google-docs", "google-docs", "https://docs.googleapis.com",
         Secret(Auth.BEARER, "GOOGLE_DOCS_TOKEN", what="a Google OAuth access token"),
         Operation("document.replaceText", "POST", "/v1/documents/{documentId}:batchUpdate", body=("requests",),
                   note="one replaceAllText request per (old text, new text) pair")),
    _app("google-calendar", "google-calendar", "https://www.googleapis.com",
         Secret(Auth.BEARER, "GOOGLE_CALENDAR_TOKEN", what="a Google OAuth access token"),
         Operation("event.get", "GET", "/calendar/v3/calendars/{calendar}/events/{eventId}"),
         Operation("event.delete", "DELETE", "/calendar/v3/calendars/{calendar}/events/{eventId}", query=("sendUpdates",)),
         Operation("event.search", "GET", "/calendar/v3/calendars/{calendar}/events",
                   query=("timeMin", "timeMax", "updatedMin", "singleEvents", "q", "orderBy", "maxResults"))),
)

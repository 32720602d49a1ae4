"""Pinned cases of Make's Gmail, Google Drive, Docs and Calendar modules.

Gmail sends the MIME message base64url-encoded (``raw``); the case decodes what was sent and checks
its headers and body. Drive, Docs and Calendar send their v3 / v1 REST requests; a shadow replay's
answer (the recorded output, marked by the gateway's header) is the module's output as it is.
"""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_GMAIL = "https://www.make.com/en/help/app/gmail (Send an email: users.messages.send, https://developers.google.com/gmail/api/reference/rest/v1/users.messages/send)"
_DRIVE = "https://www.make.com/en/help/app/google-drive (Copy a file: files.copy, https://developers.google.com/drive/api/reference/rest/v3/files/copy)"
_DOCS = "https://www.make.com/en/help/app/google-docs (Replace a text in a document: documents.batchUpdate replaceAllText)"
_CAL = "https://www.make.com/en/help/app/google-calendar (Create an event: events.insert, https://developers.google.com/calendar/api/v3/reference/events/insert)"
_SEARCH = "https://www.make.com/en/help/app/google-calendar (Search events: events.list, one bundle per event)"
RECORDED = {"X-Cutover-Recorded": "1"}


def _module(kind: str, version: int, mapper: dict) -> dict:
    return {"module": kind, "version": version, "parameters": {"__IMTCONN__": 1}, "mapper": mapper,
            "metadata": {"designer": {"x": 300, "y": 0}}}


_EVENT = {"kind": "calendar#event", "id": "ev1", "status": "confirmed", "summary": "Meeting With Ada",
          "start": {"dateTime": "2024-06-03T10:00:00Z"}, "end": {"dateTime": "2024-06-03T10:30:00Z"},
          "hangoutLink": "https://meet.google.com/abc"}
_FLAT = {**_EVENT, "start": "2024-06-03T10:00:00Z", "end": "2024-06-03T10:30:00Z"}

CASES = [
    MakeCase(
        id="gmail-send-v2-html",
        module=_module("google-email:ActionSendEmail", 2, {"cc": [], "to": ["{{1.email}}"], "bcc": [], "from": "",
                                                           "html": "<p>Hi {{1.name}}</p>", "subject": "Welcome {{1.name}}",
                                                           "attachments": []}),
        input={"email": "ada@example.com", "name": "Ada"},
        replies=(Reply(200, json={"id": "m1", "threadId": "t1", "labelIds": ["SENT"]}),),
        calls=(Call("POST", "https://gmail.googleapis.com/gmail/v1/users/me/messages/send"),),
        output=[{"id": "m1", "threadId": "t1", "labelIds": ["SENT"]}],
        source=_GMAIL),
    MakeCase(
        id="gmail-send-v4-shadow-recorded",
        module=_module("google-email:sendAnEmail", 4, {"to": ["{{1.email}}"], "subject": "Proposal", "bodyType": "rawHtml",
                                                       "content": "<b>Ready</b>"}),
        input={"email": "ada@example.com"},
        replies=(Reply(200, json={"id": "m9", "threadId": "t9", "labelIds": ["SENT"]}, headers=RECORDED),),
        calls=(Call("POST", "https://gmail.googleapis.com/gmail/v1/users/me/messages/send"),),
        output=[{"id": "m9", "threadId": "t9", "labelIds": ["SENT"]}],
        source=_GMAIL),
    MakeCase(
        id="drive-copy-a-file",
        module=_module("google-drive:copyAFile", 4, {"select": "list", "name": "Proposal - {{1.client}}", "copy": "drive",
                                                     "destination": "drive", "file": "/Templates/1TPL",
                                                     "folderId": "/Clients/1FOLD"}),
        input={"client": "Ada"},
        replies=(Reply(200, json={"kind": "drive#file", "id": "1NEW", "name": "Proposal - Ada",
                                  "webViewLink": "https://docs.google.com/document/d/1NEW/edit"}),),
        calls=(Call("POST", "https://www.googleapis.com/drive/v3/files/1TPL/copy",
                    json={"name": "Proposal - Ada", "parents": ["1FOLD"]}),),
        output=[{"kind": "drive#file", "id": "1NEW", "name": "Proposal - Ada",
                 "webViewLink": "https://docs.google.com/document/d/1NEW/edit"}],
        source=_DRIVE),
    MakeCase(
        id="drive-delete-a-file",
        module=_module("google-drive:deleteAFile", 4, {"file": "{{1.id}}", "select": "map", "select1": "file"}),
        input={"id": "1OLD"},
        replies=(Reply(204, text=""),),
        calls=(Call("DELETE", "https://www.googleapis.com/drive/v3/files/1OLD"),),
        output=[{}],
        source="https://www.make.com/en/help/app/google-drive (Delete a file: files.delete)"),
    MakeCase(
        id="docs-replace-text",
        module=_module("google-docs:replaceATextInADocument", 1, {
            "destination": "drive", "document": "{{1.doc}}",
            "replaceText": [{"oldText": "CLIENT_NAME", "newText": "{{1.client}}"}, {"oldText": "[DATE]", "newText": "June 3"}]}),
        input={"doc": "1DOC", "client": "Ada"},
        replies=(Reply(200, json={"documentId": "1DOC", "replies": [{"replaceAllText": {"occurrencesChanged": 2}}, {}]}),),
        calls=(Call("POST", "https://docs.googleapis.com/v1/documents/1DOC:batchUpdate", json={"requests": [
            {"replaceAllText": {"containsText": {"text": "CLIENT_NAME", "matchCase": True}, "replaceText": "Ada"}},
            {"replaceAllText": {"containsText": {"text": "[DATE]", "matchCase": True}, "replaceText": "June 3"}}]}),),
        output=[{"documentId": "1DOC", "replies": [{"replaceAllText": {"occurrencesChanged": 2}}, {}]}],
        source=_DOCS),
    MakeCase(
        id="calendar-create-event",
        module=_module("google-calendar:createAnEvent", 5, {
            "end": "{{1.end}}", "start": "{{1.start}}", "select": "detail", "summary": "Meeting With {{1.name}}",
            "calendar": "team@example.com", "attendees": [{"email": "{{1.email}}", "displayName": "{{1.name}}"}],
            "visibility": "default", "allDayEvent": False, "transparency": "opaque", "conferenceDate": False,
            "guestPermissions": {"guestsCanModify": False, "guestsCanInviteOthers": True, "guestsCanSeeOtherGuests": True}}),
        input={"start": "2024-06-03T10:00:00Z", "end": "2024-06-03T10:30:00Z", "name": "Ada", "email": "ada@example.com"},
        replies=(Reply(200, json=_EVENT),),
        calls=(Call("POST", "https://www.googleapis.com/calendar/v3/calendars/team@example.com/events", params={}, json={
            "summary": "Meeting With Ada", "start": {"dateTime": "2024-06-03T10:00:00+00:00"},
            "end": {"dateTime": "2024-06-03T10:30:00+00:00"},
            "attendees": [{"email": "ada@example.com", "displayName": "Ada"}], "visibility": "default",
            "transparency": "opaque", "guestsCanModify": False, "guestsCanInviteOthers": True,
            "guestsCanSeeOtherGuests": True}),),
        output=[_FLAT],
        source=_CAL),
    MakeCase(
        id="calendar-search-events",
        module=_module("google-calendar:searchEvents", 5, {"limit": "1", "timeMax": "{{1.end}}", "timeMin": "{{1.start}}",
                                                           "calendar": "team@example.com", "singleEvents": True}),
        input={"start": "2024-06-03T10:00:00Z", "end": "2024-06-03T11:00:00Z"},
        replies=(Reply(200, json={"kind": "calendar#events", "items": [_EVENT]}),),
        calls=(Call("GET", "https://www.googleapis.com/calendar/v3/calendars/team@example.com/events",
                    params={"timeMin": "2024-06-03T10:00:00+00:00", "timeMax": "2024-06-03T11:00:00+00:00",
                            "singleEvents": "true", "maxResults": "1"}),),
        output=[{**_FLAT, "__IMTINDEX__": 1, "__IMTLENGTH__": 1}],
        source=_SEARCH),
    MakeCase(
        id="calendar-search-events-none",
        module=_module("google-calendar:searchEvents", 5, {"calendar": "team@example.com", "q": "standup"}),
        replies=(Reply(200, json={"kind": "calendar#events", "items": []}),),
        calls=(Call("GET", "https://www.googleapis.com/calendar/v3/calendars/team@example.com/events", params={"q": "standup"}),),
        output=[],
        source=_SEARCH),
    MakeCase(
        id="gmail-list-attachments",
        module=_module("google-email:listEmailAttachments", 4, {"include": ["attachment"], "messageId": "{{1.id}}",
                                                                "returnAttachmentData": True}),
        input={"id": "m2"},
        replies=(Reply(200, json={"id": "m2", "payload": {"parts": [
                     {"mimeType": "text/plain", "body": {"data": ""}},
                     {"mimeType": "application/pdf", "filename": "inv.pdf", "body": {"attachmentId": "a1", "size": 3}}]}}),
                 Reply(200, json={"size": 3, "data": "UERG"})),
        calls=(Call("GET", "https://gmail.googleapis.com/gmail/v1/users/me/messages/m2", params={"format": "full"}),
               Call("GET", "https://gmail.googleapis.com/gmail/v1/users/me/messages/m2/attachments/a1")),
        output=[{"filename": "inv.pdf", "mimeType": "application/pdf", "size": 3, "data": b"PDF"}],
        source="https://www.make.com/en/help/app/gmail (List email attachments: one bundle per attachment)"),
    MakeCase(
        id="drive-get-a-file",
        module=_module("google-drive:getAFile", 4, {"file": "{{1.id}}", "select": "map", "formatDrawings": "image/jpeg",
                                                    "formatDocuments": "application/pdf"}),
        input={"id": "1IMG"},
        replies=(Reply(200, json={"id": "1IMG", "name": "moto.jpg", "mimeType": "image/jpeg"}),
                 Reply(200, content=b"JPEG")),
        calls=(Call("GET", "https://www.googleapis.com/drive/v3/files/1IMG"),
               Call("GET", "https://www.googleapis.com/drive/v3/files/1IMG", params={"alt": "media", "supportsAllDrives": "true"})),
        output=[{"id": "1IMG", "name": "moto.jpg", "mimeType": "image/jpeg", "data": b"JPEG"}],
        source="https://www.make.com/en/help/app/google-drive (Download a file: files.get alt=media, Google files exported)"),
    MakeCase(
        id="drive-get-a-google-doc-exported",
        module=_module("google-drive:getAFile", 4, {"file": "1DOC", "select": "map", "formatDocuments": "application/pdf"}),
        replies=(Reply(200, json={"id": "1DOC", "name": "Brief", "mimeType": "application/vnd.google-apps.document"}),
                 Reply(200, content=b"%PDF")),
        calls=(Call("GET", "https://www.googleapis.com/drive/v3/files/1DOC"),
               Call("GET", "https://www.googleapis.com/drive/v3/files/1DOC/export", params={"mimeType": "application/pdf"})),
        output=[{"id": "1DOC", "name": "Brief", "mimeType": "application/vnd.google-apps.document", "data": b"%PDF"}],
        source="https://www.make.com/en/help/app/google-drive (Download a file: a Google Docs file exported in the format chosen)"),
    MakeCase(
        id="drive-upload-a-file",
        module=_module("google-drive:uploadAFile", 4, {"data": "{{1.text}}", "select": "value", "convert": False,
                                                       "filename": "{{1.name}}", "folderId": "/Invoices/1h0H",
                                                       "destination": "drive"}),
        input={"text": "hello", "name": "note.txt"},
        replies=(Reply(200, json={"kind": "drive#file", "id": "1UP", "name": "note.txt"}),),
        calls=(Call("POST", "https://www.googleapis.com/upload/drive/v3/files",
                    params={"uploadType": "multipart", "fields": "*", "supportsAllDrives": "true"}),),
        output=[{"kind": "drive#file", "id": "1UP", "name": "note.txt"}],
        source="https://www.make.com/en/help/app/google-drive (Upload a file: files.create uploadType=multipart)"),
    MakeCase(
        id="email-send-over-smtp",
        module=_module("email:ActionSendEmail", 7, {
            "to": ["{{1.email}}"], "subject": "Order {{1.id}} confirmed", "contentType": "text", "attachments": [], "cc": [],
            "bcc": [], "from": "shop@example.com", "sender": "", "replyTo": "", "inReplyTo": "", "references": [],
            "priority": "normal", "headers": [], "text": "Hi {{1.name}}"}),
        input={"email": "ada@example.com", "id": 7, "name": "Ada"},
        replies=(Reply(200, json={"accepted": ["ada@example.com"], "rejected": [], "messageId": "<x@y>"}),),
        calls=(Call("SMTP", "/send", provider="smtp"),),
        output=[{}],
        source="https://apps.make.com/email (Send an email: the message over the connection's SMTP server)"),
    MakeCase(
        id="gmail-reply-in-thread",
        module=_module("google-email:replyToAnEmail", 4, {"bodyType": "rawHtml", "content": "<p>Thanks {{1.name}}</p>",
                                                          "threadId": "{{1.thread}}", "replyMode": "sender"}),
        input={"name": "Ada", "thread": "t2"},
        replies=(Reply(200, json={"id": "t2", "messages": [{"id": "m1", "payload": {"headers": [
                     {"name": "From", "value": "Ada <ada@example.com>"}, {"name": "Subject", "value": "Invoice 7"},
                     {"name": "Message-ID", "value": "<abc@mail>"}]}}]}),
                 Reply(200, json={"id": "m3", "threadId": "t2", "labelIds": ["SENT"]})),
        calls=(Call("GET", "https://gmail.googleapis.com/gmail/v1/users/me/threads/t2", params={"format": "metadata"}),
               Call("POST", "https://gmail.googleapis.com/gmail/v1/users/me/messages/send")),
        output=[{"id": "m3", "threadId": "t2", "labelIds": ["SENT"]}],
        source="https://www.make.com/en/help/app/gmail (Reply to an email: in the thread, to its sender, Re: its subject)"),
    MakeCase(
        id="drive-create-a-folder",
        module=_module("google-drive:createAFolder", 4, {"select": "list", "name": "Client {{1.name}}", "destination": "drive",
                                                         "folderId": "/Clients/1FOLD"}),
        input={"name": "Ada"},
        replies=(Reply(200, json={"kind": "drive#file", "id": "1NEWF", "name": "Client Ada",
                                  "mimeType": "application/vnd.google-apps.folder"}),),
        calls=(Call("POST", "https://www.googleapis.com/drive/v3/files", json={
            "name": "Client Ada", "mimeType": "application/vnd.google-apps.folder", "parents": ["1FOLD"]}),),
        output=[{"kind": "drive#file", "id": "1NEWF", "name": "Client Ada", "mimeType": "application/vnd.google-apps.folder"}],
        source="https://www.make.com/en/help/app/google-drive (Create a folder: files.create with the folder MIME type)"),
    MakeCase(
        id="calendar-get-an-event",
        module=_module("google-calendar:getAnEvent", 5, {"calendar": "team@example.com", "eventId": "{{1.id}}"}),
        input={"id": "ev1"},
        replies=(Reply(200, json=_EVENT),),
        calls=(Call("GET", "https://www.googleapis.com/calendar/v3/calendars/team@example.com/events/ev1"),),
        output=[_FLAT],
        source="https://www.make.com/en/help/app/google-calendar (Get an event: events.get)"),
    MakeCase(
        id="calendar-delete-an-event",
        module=_module("google-calendar:deleteAnEvent", 5, {"calendar": "team@example.com", "eventId": "ev1",
                                                            "sendUpdates": "all"}),
        replies=(Reply(204, text=""),),
        calls=(Call("DELETE", "https://www.googleapis.com/calendar/v3/calendars/team@example.com/events/ev1",
                    params={"sendUpdates": "all"}),),
        output=[{}],
        source="https://www.make.com/en/help/app/google-calendar (Delete an event: events.delete)"),
    MakeCase(
        id="drive-search-files-by-title-in-folder",
        module=_module("google-drive:searchForFilesFolders", 4, {"select": "list", "retrieve": "file", "searchType": "title",
                                                                 "query": "{{1.name}}", "limit": 2, "destination": "drive",
                                                                 "folderId": "/Invoices/1DOCS"}),
        input={"name": "Ada's invoice"},
        replies=(Reply(200, json={"files": [{"id": "f1", "name": "Ada's invoice.pdf"}, {"id": "f2", "name": "Ada's invoice 2.pdf"},
                                            {"id": "f3", "name": "Ada's invoice 3.pdf"}]}),),
        calls=(Call("GET", "https://www.googleapis.com/drive/v3/files", params={
            "q": "trashed = false and name contains 'Ada\\'s invoice' and mimeType != 'application/vnd.google-apps.folder' "
                 "and '1DOCS' in parents", "fields": "files(*)", "pageSize": "2", "supportsAllDrives": "true",
            "includeItemsFromAllDrives": "true"}),),
        output=[{"id": "f1", "name": "Ada's invoice.pdf", "__IMTINDEX__": 1, "__IMTLENGTH__": 2},
                {"id": "f2", "name": "Ada's invoice 2.pdf", "__IMTINDEX__": 2, "__IMTLENGTH__": 2}],
        source="https://www.make.com/en/help/app/google-drive (Search for files/folders: files.list with a Drive query)"),
    MakeCase(
        id="calendar-create-event-by-duration-with-reminders",
        module=_module("google-calendar:createAnEvent", 5, {
            "select": "detail", "calendar": "team@example.com", "summary": "Call", "start": "{{1.start}}",
            "duration": "01:30", "useDefault": False, "overrides": [{"method": "popup", "minutes": 10}]}),
        input={"start": "2024-06-03T10:00:00Z"},
        replies=(Reply(200, json=_EVENT),),
        calls=(Call("POST", "https://www.googleapis.com/calendar/v3/calendars/team@example.com/events", json={
            "summary": "Call", "start": {"dateTime": "2024-06-03T10:00:00+00:00"},
            "end": {"dateTime": "2024-06-03T11:30:00+00:00"},
            "reminders": {"useDefault": False, "overrides": [{"method": "popup", "minutes": 10}]}}),),
        output=[_FLAT],
        source=_CAL + " (Duration: HH:mm after the start; reminders)"),
]

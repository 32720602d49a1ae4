"""Gmail v2 draft create, Telegram file get and uploads: n8n's calls (respx); Gmail's attachments as a precise TODO."""

from __future__ import annotations

import base64
import email
from email.policy import default

import httpx
import respx

from tests.support.app_calls import run_node, scaffold_node

BASES = {"gmail": "https://gmail.googleapis.com", "telegram": "https://api.telegram.org"}


@respx.mock
def test_draft_create_posts_the_mime_message_as_message_raw_and_outputs_the_draft() -> None:
    respx.post("https://gmail.googleapis.com/gmail/v1/users/me/drafts").mock(
        return_value=httpx.Response(200, json={"id": "r-1", "message": {"id": "m1"}}))
    node = {"name": "Draft", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "parameters": {
        "resource": "draft", "subject": "={{ $json.subject }}", "message": "Hi there", "options": {"ccList": "b@x.test"}}}
    ctx, out, error = run_node(node, [{"subject": "Quote"}], BASES)
    assert error is None and out == [{"id": "r-1", "message": {"id": "m1"}}]
    raw = ctx.sent[0][3]["message"]["raw"]
    parsed = email.message_from_bytes(base64.urlsafe_b64decode(raw), policy=default)
    assert parsed["Subject"] == "Quote" and parsed["Cc"] == "b@x.test" and parsed["To"] is None
    assert parsed.get_content_type() == "text/plain" and parsed.get_content().strip() == "Hi there"


def test_a_draft_in_a_thread_is_not_translated() -> None:
    node = {"name": "Draft", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "parameters": {
        "resource": "draft", "subject": "s", "message": "m", "options": {"threadId": "t1"}}}
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "options.threadId" in status


@respx.mock
def test_telegram_file_get_posts_get_file_and_with_download_fetches_the_file_into_binary_data() -> None:
    respx.post(url__regex=r"https://api.telegram.org/bot.*/getFile").mock(
        return_value=httpx.Response(200, json={"ok": True, "result": {"file_path": "voice/1.oga"}}))
    download = respx.get(url__regex=r"https://api.telegram.org/file/bot.*/voice/1.oga").mock(
        return_value=httpx.Response(200, content=b"OggS\x00\x02"))
    node = {"name": "File", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "parameters": {
        "resource": "file", "fileId": "={{ $json.id }}", "download": False}}
    ctx, out, error = run_node(node, [{"id": "F1"}], BASES)
    assert error is None and ctx.sent[0][3] == {"file_id": "F1"} and not download.called
    assert out == [{"ok": True, "result": {"file_path": "voice/1.oga"}}]
    del node["parameters"]["download"]  # type: ignore[attr-defined]
    ctx, out, error = run_node(node, [{"id": "F1"}], BASES)
    assert error is None and out == [{"ok": True, "result": {"file_path": "voice/1.oga"}}]
    assert "__auth_env__" in str(download.calls.last.request.url)  # the token is the gateway's, on the wire only
    entry = ctx.n8n_flows[-1].outputs["File"][0][0]["binary"]["data"]
    assert entry == {"mimeType": "audio/ogg", "fileType": "audio", "fileExtension": "oga", "fileName": "1.oga",
                     "data": base64.b64encode(b"OggS\x00\x02").decode(), "fileSize": "6 B"}


@respx.mock
def test_telegram_send_audio_with_binary_file_uploads_the_items_binary_as_a_multipart_form() -> None:
    route = respx.post(url__regex=r"https://api.telegram.org/bot.*/sendAudio").mock(
        return_value=httpx.Response(200, json={"ok": True, "result": {"message_id": 9}}))
    node = {"name": "Audio", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "parameters": {
        "operation": "sendAudio", "chatId": "={{ $json.chat }}", "binaryData": True,
        "additionalFields": {"caption": "hi"}}}
    voice = {"data": base64.b64encode(b"ID3\x00").decode(), "mimeType": "audio/mpeg", "fileName": "a.mp3"}
    ctx, out, error = run_node(node, [{"json": {"chat": 42}, "binary": {"data": voice}}], BASES)
    assert error is None and out == [{"ok": True, "result": {"message_id": 9}}]
    body = route.calls.last.request.content
    assert b'name="audio"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\nID3\x00' in body
    assert ctx.sent[0][3]["fields"] == {"chat_id": "42", "caption": "hi", "disable_notification": "false"}
    nameless = {"data": voice["data"], "mimeType": "audio/mpeg"}
    _, _, error = run_node(node, [{"json": {"chat": 42}, "binary": {"data": nameless}}], BASES)
    assert error is not None and "File name is needed to sendAudio" in str(error)


def test_telegram_send_document_by_file_id_stays_a_todo_with_the_call() -> None:
    node = {"name": "Doc", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "parameters": {
        "operation": "sendDocument", "chatId": "1", "file": "FILE_ID"}}
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "sendDocument" in status and "file id or URL" in status


def test_gmail_message_get_is_a_todo_naming_what_n8n_does_with_the_message() -> None:
    node = {"name": "Get", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "parameters": {
        "operation": "get", "messageId": "={{ $json.id }}", "simple": False, "options": {"downloadAttachments": True}}}
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "attachment_0" in status
    node["parameters"] = {"operation": "get", "messageId": "m1"}
    status, _ = scaffold_node(node)
    assert "format=metadata" in status and "$GMAIL_TOKEN" in status

"""Gmail v2 draft create and Telegram file get: n8n's calls (respx), and binary transfers as precise TODOs."""

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
def test_telegram_file_get_without_download_posts_get_file_and_with_download_is_a_binary_todo() -> None:
    respx.post(url__regex=r"https://api.telegram.org/bot.*/getFile").mock(
        return_value=httpx.Response(200, json={"ok": True, "result": {"file_path": "voice/1.oga"}}))
    node = {"name": "File", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "parameters": {
        "resource": "file", "fileId": "={{ $json.id }}", "download": False}}
    ctx, out, error = run_node(node, [{"id": "F1"}], BASES)
    assert error is None and ctx.sent[0][3] == {"file_id": "F1"}
    assert out == [{"ok": True, "result": {"file_path": "voice/1.oga"}}]
    del node["parameters"]["download"]  # type: ignore[attr-defined]
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "binary property 'data'" in status


def test_gmail_message_get_is_a_todo_naming_what_n8n_does_with_the_message() -> None:
    node = {"name": "Get", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "parameters": {
        "operation": "get", "messageId": "={{ $json.id }}", "simple": False, "options": {"downloadAttachments": True}}}
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "attachment_0" in status
    node["parameters"] = {"operation": "get", "messageId": "m1"}
    status, _ = scaffold_node(node)
    assert "format=metadata" in status and "$GMAIL_TOKEN" in status

"""Telegram's bot token as a path segment the gateway never records, and Gmail's MIME message."""

from __future__ import annotations

import base64
import email
import json
from email.policy import default
from pathlib import Path

import httpx
import pytest

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.compat import n8n
from queue_core.gateway import Gateway
from queue_core.gateway.request import SECRET_SEGMENT
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call

TOKEN = "123456:ABC-secret-token"
PROVIDERS = parse_providers({"telegram": {"base_url": "https://api.telegram.org", "auth_env": "TELEGRAM_BOT_TOKEN"}})


async def test_the_bot_token_goes_in_the_path_on_the_wire_and_in_no_record_intent_or_header() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True, "echo": str(request.url)})

    ctx = MemoryCallContext()
    async with Gateway(PROVIDERS, None, transport=httpx.MockTransport(answer),
                       environ={"TELEGRAM_BOT_TOKEN": TOKEN}) as gw:
        await call(gw, ctx, "telegram", "POST", f"https://api.telegram.org/bot{SECRET_SEGMENT}/sendMessage",
                   step="tell", json={"chat_id": 1, "text": "hi"})
    [request] = seen
    assert request.url.path == f"/bot{TOKEN}/sendMessage" and "authorization" not in request.headers
    stored = json.dumps([ctx.calls, ctx.events, ctx.intents])
    assert TOKEN not in stored and SECRET_SEGMENT in stored


def test_a_telegram_send_message_node_is_translated_with_n8ns_defaults(tmp_path: Path) -> None:
    workflow = {"name": "t", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Tell", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "position": [1, 0],
         "parameters": {"chatId": "42", "text": "={{ $json.msg }}", "additionalFields": {"appendAttribution": False}}}],
        "connections": {"Start": {"main": [[{"node": "Tell", "type": "main", "index": 0}]]}}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="t", into=tmp_path / "a", force=True)
    assert {r.node: r.status for r in written.scaffold.rows}["Tell"] == "translated"
    source = written.path.read_text(encoding="utf-8")
    assert f"'https://api.telegram.org/bot', '{SECRET_SEGMENT}', '/sendMessage'" in source
    assert n8n.telegram_message("42", "hi", {}, attribution=False, version=1.2) == {
        "chat_id": "42", "text": "hi", "parse_mode": "Markdown", "disable_web_page_preview": True}
    assert n8n.telegram_message("42", "see https://x.io", {}, version=1.1)["text"].startswith(
        "see https://x.io\n\n_This message was sent automatically with _[n8n](https://n8n.io/")


def test_gmail_raw_is_a_base64url_mime_message_built_by_the_email_package() -> None:
    raw = n8n.mime_message("a@x.test, Bo <b@x.test>", "Grüße", "<p>hi</p>", html=True, cc="c@x.test")
    parsed = email.message_from_bytes(base64.urlsafe_b64decode(raw), policy=default)
    assert parsed["To"] == "a@x.test, Bo <b@x.test>" and parsed["Cc"] == "c@x.test" and parsed["Subject"] == "Grüße"
    assert parsed.get_content_type() == "text/html" and parsed.get_content().strip() == "<p>hi</p>"
    with pytest.raises(ValueError, match="'nobody' in the 'To' field"):
        n8n.mime_message("nobody", "s", "m")


@pytest.mark.parametrize(("operation", "extra", "body"), [
    ("addLabels", {"labelIds": ["Label_1"]}, "json={'addLabelIds': ['Label_1']}"),
    ("markAsRead", {}, "json={'removeLabelIds': ['UNREAD']}"),
])
def test_gmail_label_operations_modify_the_message(tmp_path: Path, operation: str, extra: dict[str, object],
                                                   body: str) -> None:
    workflow = {"name": "g", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Label", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [1, 0],
         "parameters": {"operation": operation, "messageId": "={{ $json.id }}", **extra}}],
        "connections": {"Start": {"main": [[{"node": "Label", "type": "main", "index": 0}]]}}}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="g", into=tmp_path / "a", force=True)
    assert {r.node: r.status for r in written.scaffold.rows}["Label"] == "translated"
    source = written.path.read_text(encoding="utf-8")
    assert "'https://gmail.googleapis.com/gmail/v1/users/me/messages/', n8n.get(item['json'], 'id'), '/modify')" in source
    assert body in source


def test_slack_channel_invite_posts_the_channel_and_joined_users_and_outputs_the_channel(tmp_path: Path) -> None:
    workflow = {"name": "s", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Invite", "type": "n8n-nodes-base.slack", "typeVersion": 2.2, "position": [1, 0],
         "parameters": {"resource": "channel", "operation": "invite", "userIds": ["U1", "U2"],
                        "channelId": {"__rl": True, "mode": "id", "value": "C9"}}}],
        "connections": {"Start": {"main": [[{"node": "Invite", "type": "main", "index": 0}]]}}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="s", into=tmp_path / "a", force=True)
    assert {r.node: r.status for r in written.scaffold.rows}["Invite"] == "translated"
    source = written.path.read_text(encoding="utf-8")
    assert "'https://slack.com/api/conversations.invite'" in source
    assert "json={'channel': 'C9', 'users': ','.join((n8n.text(u) for u in ['U1', 'U2']))}" in source
    assert "n8n.get(response.json(), 'channel')" in source

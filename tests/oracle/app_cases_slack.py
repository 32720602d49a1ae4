"""Slack (v2.x) cases for ``app_oracle``: the operations the estate uses, with Slack Web API replies."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

SLACK = "n8n-nodes-base.slack"
TOKEN_CREDENTIAL = Credential("slackApi", {"accessToken": TOKEN})
NO_LINK = {"includeLinkToWorkflow": False}  # the link names the n8n instance's URL and id

_POSTED = {"ok": True, "channel": "C0ABWP1UGDP", "ts": "1503435956.000247",
           "message": {"type": "message", "subtype": "bot_message", "text": "hello", "ts": "1503435956.000247",
                       "bot_id": "B123ABC456"}}

CASES = [
    AppCase("slack v2.2 message.post channel text", SLACK, 2.2,
            {"select": "channel", "channelId": {"__rl": True, "value": "C0ABWP1UGDP", "mode": "id"},
             "text": "={{ $json.text }}", "otherOptions": NO_LINK},
            TOKEN_CREDENTIAL, [Reply("POST", "/api/chat.postMessage", _POSTED)],
            items=({"text": "hello"}, {"text": "second *bold*"}),
            differs="the channel is sent as its resource locator object; n8n also sends otherOptions and outputs "
                    "ts as message_timestamp"),
]

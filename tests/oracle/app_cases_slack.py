"""Slack (v2.x) cases for ``app_oracle``: the operations the estate uses, with Slack Web API replies
(chat.postMessage: ``ok``, ``channel``, ``ts``, ``message``; conversations.invite/create: ``ok``, ``channel``)."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

SLACK = "n8n-nodes-base.slack"
TOKEN_CREDENTIAL = Credential("slackApi", {"accessToken": TOKEN})
OAUTH = Credential("slackOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                      "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
NO_LINK = {"includeLinkToWorkflow": False}  # the link names the n8n instance's URL and id

_POSTED = {"ok": True, "channel": "C0ABWP1UGDP", "ts": "1503435956.000247",
           "message": {"type": "message", "subtype": "bot_message", "text": "hello", "ts": "1503435956.000247",
                       "bot_id": "B123ABC456"}}
_CHANNEL = {"ok": True, "channel": {"id": "C09UY0P5L7L", "name": "engineering", "is_channel": True,
                                    "is_private": False, "created": 1449252889, "creator": "W012A3BCD",
                                    "is_archived": False, "is_general": False, "members": ["W012A3BCD", "U0ABC"]}}
_CHANNEL_LOCATOR = {"__rl": True, "value": "C0ABWP1UGDP", "mode": "id"}
# Blocks as JSON text: given an object, n8n sets its ``text`` on the input item's own object (the Input
# node's output changes after the fact), which the scaffold does not copy.
_ITEMS = ({"text": "hello", "user": "U0ABC",
           "blocks": '{"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]}'},
          {"text": "second *bold*", "user": "U0DEF",
           "blocks": '{"blocks": [{"type": "divider"}]}'})


def _post(label: str, version: float, parameters: dict[str, object], credential: Credential = TOKEN_CREDENTIAL) -> AppCase:
    return AppCase(f"slack v{version:g} message.post {label}", SLACK, version, parameters, credential,
                   [Reply("POST", "/api/chat.postMessage", _POSTED)], items=_ITEMS)


CASES = [
    _post("channel text", 2.2, {"select": "channel", "channelId": _CHANNEL_LOCATOR, "text": "={{ $json.text }}",
                                "otherOptions": NO_LINK}),
    _post("oauth channel text", 2.3, {"authentication": "oAuth2", "select": "channel", "channelId": _CHANNEL_LOCATOR,
                                      "text": "={{ $json.text }}", "otherOptions": NO_LINK}, OAUTH),
    _post("text options", 2.4, {"resource": "message", "operation": "post", "select": "channel",
                                 "channelId": _CHANNEL_LOCATOR, "messageType": "text", "text": "=*{{ $json.text }}*",
                                 "otherOptions": {**NO_LINK, "mrkdwn": False, "unfurl_links": True}}),
    _post("blocks", 2.4, {"resource": "message", "operation": "post", "select": "channel", "channelId": _CHANNEL_LOCATOR,
                          "messageType": "block", "blocksUi": "={{ $json.blocks }}", "text": "={{ $json.text }}",
                          "otherOptions": NO_LINK}),
    _post("user", 2.4, {"select": "user", "user": {"__rl": True, "value": "={{ $json.user }}", "mode": "id"},
                        "text": "=ready: {{ $json.text }}", "otherOptions": NO_LINK}),
    AppCase("slack v2.3 channel.invite", SLACK, 2.3,
            {"resource": "channel", "operation": "invite",
             "channelId": {"__rl": True, "value": "C09UY0P5L7L", "mode": "list", "cachedResultName": "engineering"},
             "userIds": "={{ [$json.user] }}"},
            TOKEN_CREDENTIAL, [Reply("POST", "/api/conversations.invite", _CHANNEL)], items=_ITEMS),
    AppCase("slack v2.2 channel.invite", SLACK, 2.2,
            {"resource": "channel", "operation": "invite", "channelId": "={{ $json.user }}-room",
             "userIds": "={{ [$json.user, 'U0XYZ'] }}"},
            TOKEN_CREDENTIAL, [Reply("POST", "/api/conversations.invite", _CHANNEL)], items=_ITEMS[:1]),
    AppCase("slack v2.2 channel.create", SLACK, 2.2, {"resource": "channel", "channelId": "={{ $json.user }}-room"},
            TOKEN_CREDENTIAL, [Reply("POST", "/api/conversations.create", _CHANNEL)], items=_ITEMS),
]

CASES += [
    AppCase("slack v2 message.post legacy channel parameter", SLACK, 2,
            {"channel": "#sales-alerts", "text": "=*HOT LEAD* {{ $json.text }}", "otherOptions": {}},
            TOKEN_CREDENTIAL, [Reply("POST", "/api/chat.postMessage", _POSTED)], items=_ITEMS[:1],
            refused="its v2 node has no channelId: n8n says 'The workflow has issues' and runs nothing"),
    # n8n's default from v2.1: the "Automated with this n8n workflow" link, which names the n8n instance's URL,
    # the workflow's id and the instance's id; the translation leaves it out (the automation leaves n8n)
    AppCase("slack v2.4 message.post default link", SLACK, 2.4,
            {"resource": "message", "operation": "post", "select": "channel", "channelId": _CHANNEL_LOCATOR,
             "messageType": "text", "text": "={{ $json.text }}", "otherOptions": {}},
            TOKEN_CREDENTIAL, [Reply("POST", "/api/chat.postMessage", _POSTED)], items=_ITEMS[:1],
            differs="n8n appends its workflow link (instance URL, workflow id, instance id) to the text"),
]

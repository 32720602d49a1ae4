"""Pinned cases of Zap steps that call out: Webhooks by Zapier requests, Slack messages, Storage by Zapier.

Webhooks: Zapier's help "Send webhooks in Zaps"
(https://help.zapier.com/hc/en-us/articles/8496326446989-Send-webhooks-in-Zaps): POST and PUT send
the data as a form (``first_name=Bryan&last_name=Helmig&age=27``) or JSON by the Payload Type, GET
sends query strings, Custom Request sends its raw data as typed; the response is parsed into the
step's fields. Slack: a real Zap export's "Send Channel Message" step (channel, text, bot name and
icon, unfurl, link names) sent as Slack documents ``chat.postMessage``
(https://api.slack.com/methods/chat.postMessage: ``username``, ``icon_emoji``, ``unfurl_links``,
``link_names``); no later step reads its output, which is not compared. Storage: its REST API,
``store.zapier.com/api/records`` (``POST {key: value}`` to set, ``GET ?key=`` to read).
"""

from __future__ import annotations

from tests.conformance.zapier.runner import Case

WEBHOOKS = "https://help.zapier.com/hc/en-us/articles/8496326446989-Send-webhooks-in-Zaps"
SLACK = "https://api.slack.com/methods/chat.postMessage"
STORAGE = "https://store.zapier.com/ (Storage by Zapier's REST API)"
_PERSON = {"first_name": "Bryan", "last_name": "Helmig", "age": "27"}


def _hook(action: str, **params: object) -> dict[str, object]:
    return {"type_of": "write", "selected_api": "WebHookCLIAPI@1.0.36", "action": action, "params": params}


CASES: tuple[Case, ...] = (
    Case("POST as a form", WEBHOOKS, _hook("post", url="https://hooks.example.test/people", payload_type="form",
                                           data=_PERSON),
         replies=({"id": 7, "status": "created"},),
         requests=({"method": "POST", "url": "https://hooks.example.test/people", "data": _PERSON},),
         output={"id": 7, "status": "created"}),
    Case("POST as JSON with mapped fields", WEBHOOKS,
         _hook("post", url="https://hooks.example.test/people", payload_type="json",
               data={"first_name": "{{1__first}}", "last_name": "Helmig", "age": "27"}),
         trigger={"first": "Bryan"}, replies=({"ok": True},),
         requests=({"method": "POST", "url": "https://hooks.example.test/people", "json": _PERSON},),
         output={"ok": True}),
    Case("PUT as JSON", WEBHOOKS, _hook("put", url="https://hooks.example.test/people/7", payload_type="json",
                                        data={"age": "28"}),
         replies=({"id": 7, "age": "28"},),
         requests=({"method": "PUT", "url": "https://hooks.example.test/people/7", "json": {"age": "28"}},),
         output={"id": 7, "age": "28"}),
    Case("GET with query strings", WEBHOOKS,
         _hook("get", url="https://hooks.example.test/search", params={"q": "{{1__name}}"}),
         trigger={"name": "Bryan"}, replies=({"results": 1},),
         requests=({"method": "GET", "url": "https://hooks.example.test/search", "params": {"q": "Bryan"}},),
         output={"results": 1}),
    Case("Custom Request sends its raw data as typed", WEBHOOKS,
         _hook("custom", method="PATCH", url="https://hooks.example.test/people/7", data='{"age": {{1__age}}}'),
         trigger={"age": 28}, replies=({"id": 7},),
         requests=({"method": "PATCH", "url": "https://hooks.example.test/people/7", "content": b'{"age": 28}'},),
         output={"id": 7}),
    Case("Slack Send Channel Message as a bot", SLACK,
         {"type_of": "write", "selected_api": "SlackAPI", "action": "channel_message",
          "params": {"channel": "C024Y16JP", "as_bot": "yes", "username": "QBot", "icon": ":watercooler:",
                     "unfurl": "yes", "link_names": "yes", "add_edit_link": "false",
                     "text": "Hello {{1__name}}"}},
         trigger={"name": "team"}, replies=({"ok": True, "channel": "C024Y16JP", "ts": "1.2"},),
         requests=({"method": "POST", "url": "/api/chat.postMessage",
                    "json": {"channel": "C024Y16JP", "text": "Hello team", "username": "QBot",
                             "icon_emoji": ":watercooler:", "unfurl_links": True, "link_names": True}},)),
    Case("Storage set value", STORAGE,
         {"type_of": "write", "selected_api": "StorageCLIAPI", "action": "set_value",
          "params": {"key": "last_seen", "value": "{{1__id}}"}},
         trigger={"id": "42"}, replies=({"last_seen": "42"},),
         requests=({"method": "POST", "url": "/api/records", "json": {"last_seen": "42"}},),
         output={"last_seen": "42"}),
    Case("Storage get value", STORAGE,
         {"type_of": "write", "selected_api": "StorageCLIAPI", "action": "get_value", "params": {"key": "last_seen"}},
         replies=({"last_seen": "41"},),
         requests=({"method": "GET", "url": "/api/records", "params": {"key": "last_seen"}},),
         output={"last_seen": "41"}),
)

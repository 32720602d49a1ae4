"""Pinned cases of Make's messaging and social modules: Slack, Telegram, Twilio, Discord, Instagram, Facebook Pages.

The mapper fields are the ones Make's blueprints carry for these modules (their ``expect``
blocks); the requests are the apps' documented REST calls; the bundles are what Make outputs
(Slack's user object and search matches, Telegram's sent Message, Twilio's Message resource,
Discord's message, the new post's ``id`` for Instagram and Facebook).
"""

from __future__ import annotations

import os

from tests.conformance.make.runner import Call, MakeCase, Reply

_SLACK = ("https://www.make.com/en/help/app/slack (Get a user, Search messages); "
          "https://api.slack.com/methods/users.info; https://api.slack.com/methods/search.messages")
_SLACK_POST = ("https://www.make.com/en/help/app/slack (Create a message: output Channel, Message ID (ts), Message); "
               "https://api.slack.com/methods/chat.postMessage")
_TELEGRAM = ("https://www.make.com/en/help/app/telegram (Send a text message or a reply); "
             "https://core.telegram.org/bots/api#sendmessage")
_TWILIO = "https://www.make.com/en/help/app/twilio (Create a message); https://www.twilio.com/docs/messaging/api/message-resource"
_DISCORD = ("https://www.make.com/en/help/app/discord (Create a message); "
            "https://discord.com/developers/docs/resources/message#create-message")
_GRAPH = ("https://www.make.com/en/help/app/instagram-for-business (Create a photo post); "
          "https://developers.facebook.com/docs/instagram-platform/content-publishing; "
          "https://developers.facebook.com/docs/pages-api/posts (a multi-photo post: unpublished photos, attached_media)")
_RECORDED = {"X-Cutover-Recorded": "recording"}
# Make keeps Twilio's account SID in the connection; the generated code reads $TWILIO_ACCOUNT_SID (the runner has
# no per-case environment yet: asked of make-core in STATUS-make-apps.md)
os.environ.setdefault("TWILIO_ACCOUNT_SID", "AC123")
_D = {"designer": {"x": 300, "y": 0}}


def _module(module: str, mapper: dict, version: int = 1) -> dict:
    return {"module": module, "version": version, "parameters": {"__IMTCONN__": 1}, "mapper": mapper, "metadata": _D}


_USER = {"id": "U1", "name": "ada", "profile": {"real_name_normalized": "Ada L", "image_original": "https://img/u1"}}

_POSTED = {"ok": True, "channel": "C1", "ts": "1717400000.000100", "message": {"text": "Hi *Ada*", "type": "message"}}

CASES = [
    MakeCase(
        id="slack-create-message",
        module=_module("slack:CreateMessage", {"text": "Hi *{{1.name}}*", "parse": False, "mrkdwn": True,
                                               "channel": "{{1.channel}}", "channelWType": "manualy", "thread_ts": ""}, 4),
        input={"name": "Ada", "channel": "C1"},
        replies=(Reply(200, json=_POSTED),),
        calls=(Call("POST", "https://slack.com/api/chat.postMessage", provider="slack",
                    json={"channel": "C1", "text": "Hi *Ada*", "mrkdwn": True, "parse": "none"}),),
        output=[{"channel": "C1", "ts": "1717400000.000100", "message": {"text": "Hi *Ada*", "type": "message"}}],
        source=_SLACK_POST),
    MakeCase(
        id="slack-create-message-blocks",
        module=_module("slack:CreateMessage", {"channel": "C1", "channelWType": "manualy", "text": "fallback",
                                               "blocks": '[{"type": "section", "text": {"type": "mrkdwn", "text": "{{1.t}}"}}]',
                                               "thread_ts": "{{1.ts}}", "reply_broadcast": True}, 4),
        input={"t": "hello", "ts": "1.5"},
        replies=(Reply(200, json=_POSTED),),
        calls=(Call("POST", "https://slack.com/api/chat.postMessage", json={
            "channel": "C1", "text": "fallback", "thread_ts": "1.5", "reply_broadcast": True,
            "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "hello"}}]}),),
        output=[{k: v for k, v in _POSTED.items() if k != "ok"}], source=_SLACK_POST),
    MakeCase(
        id="slack-create-message-not-in-channel",
        module=_module("slack:CreateMessage", {"channel": "C9", "channelWType": "manualy", "text": "x"}, 4),
        replies=(Reply(200, json={"ok": False, "error": "not_in_channel"}),),
        calls=(Call("POST", "https://slack.com/api/chat.postMessage"),),
        error="Slack: not_in_channel", source=_SLACK_POST),
    MakeCase(
        id="slack-get-user",
        module=_module("slack:GetUser", {"user": "{{1.user}}"}, 4), input={"user": "U1"},
        replies=(Reply(200, json={"ok": True, "user": _USER}),),
        calls=(Call("GET", "https://slack.com/api/users.info", params={"user": "U1"}, provider="slack"),),
        output=[_USER], source=_SLACK),
    MakeCase(
        id="slack-get-user-error",
        module=_module("slack:GetUser", {"user": "U404"}, 4),
        replies=(Reply(200, json={"ok": False, "error": "user_not_found"}),),
        calls=(Call("GET", "https://slack.com/api/users.info", params={"user": "U404"}),),
        error="Slack: user_not_found", source=_SLACK),
    MakeCase(
        id="slack-search-messages",
        module=_module("slack:SearchMessages", {"sort": "timestamp", "limit": "1", "query": "DSM in:<#{{1.c}}>",
                                                "sort_dir": "desc"}, 4),
        input={"c": "C9"},
        replies=(Reply(200, json={"ok": True, "messages": {"matches": [
            {"ts": "1.2", "user": "U1", "permalink": "https://x/p1", "channel": {"name": "dsm"}},
            {"ts": "1.1", "user": "U2", "permalink": "https://x/p2", "channel": {"name": "dsm"}}],
            "paging": {"count": 1, "page": 1, "pages": 2}}}),),
        calls=(Call("GET", "https://slack.com/api/search.messages",
                    params={"query": "DSM in:<#C9>", "count": "1", "sort": "timestamp", "sort_dir": "desc"}),),
        output=[{"ts": "1.2", "user": "U1", "permalink": "https://x/p1", "channel": {"name": "dsm"}}], source=_SLACK),
    MakeCase(
        id="slack-search-messages-recorded",
        module=_module("slack:SearchMessages", {"limit": "5", "query": "hello"}, 4),
        replies=(Reply(200, json=[{"ts": "9", "__IMTINDEX__": 1}, {"ts": "8", "__IMTINDEX__": 2}], headers=_RECORDED),),
        calls=(Call("GET", "https://slack.com/api/search.messages", params={"query": "hello", "count": "5"}),),
        output=[{"ts": "9", "__IMTINDEX__": 1}, {"ts": "8", "__IMTINDEX__": 2}], source=_SLACK),
    MakeCase(
        id="telegram-send-reply-message",
        module=_module("telegram:SendReplyMessage", {"chatId": "{{1.chat}}", "text": "Hi {{1.name}}", "parseMode": "",
                                                     "messageThreadId": "", "disableWebPagePreview": True}),
        input={"chat": 42, "name": "Ada"},
        replies=(Reply(200, json={"ok": True, "result": {"message_id": 7, "chat": {"id": 42}, "text": "Hi Ada"}}),),
        calls=(Call("POST", "https://api.telegram.org/bot__auth_env__/sendMessage", provider="telegram",
                    json={"chat_id": 42, "text": "Hi Ada", "disable_web_page_preview": True}),),
        output=[{"message_id": 7, "chat": {"id": 42}, "text": "Hi Ada"}], source=_TELEGRAM),
    MakeCase(
        id="telegram-send-reply-with-markup",
        module=_module("telegram:SendReplyMessage", {
            "chatId": "42", "text": "Pick one", "replyToMessageId": "{{1.mid}}", "parseMode": "HTML",
            "replyMarkupAssembleType": "reply_markup_enter",
            "replyMarkup": '{"inline_keyboard": [[{"text": "Yes", "callback_data": "y"}]]}'}),
        input={"mid": "17"},
        replies=(Reply(200, json={"ok": True, "result": {"message_id": 8, "chat": {"id": 42}}}),),
        calls=(Call("POST", "https://api.telegram.org/bot__auth_env__/sendMessage", json={
            "chat_id": "42", "text": "Pick one", "parse_mode": "HTML", "reply_to_message_id": 17,
            "reply_markup": {"inline_keyboard": [[{"text": "Yes", "callback_data": "y"}]]}}),),
        output=[{"message_id": 8, "chat": {"id": 42}}], source=_TELEGRAM),
    MakeCase(
        id="telegram-send-error",
        module=_module("telegram:SendReplyMessage", {"chatId": "1", "text": "x"}),
        replies=(Reply(200, json={"ok": False, "description": "Bad Request: chat not found"}),),
        calls=(Call("POST", "https://api.telegram.org/bot__auth_env__/sendMessage"),),
        error="Telegram: Bad Request: chat not found", source=_TELEGRAM),
    MakeCase(
        id="twilio-send-sms",
        module=_module("twilio:SendSMS", {"to": "{{1.phone}}", "body": "Hi {{1.name}}", "from": "+15550000000",
                                          "fromType": "phone", "messageBody": "body"}, 2),
        input={"phone": "+15551112222", "name": "Ada"},
        replies=(Reply(201, json={"sid": "SM1", "status": "queued", "to": "+15551112222", "body": "Hi Ada"}),),
        calls=(Call("POST", "https://api.twilio.com/2010-04-01/Accounts/AC123/Messages.json", provider="twilio",
                    data={"To": "+15551112222", "From": "+15550000000", "Body": "Hi Ada"}),),
        output=[{"sid": "SM1", "status": "queued", "to": "+15551112222", "body": "Hi Ada"}], source=_TWILIO),
    MakeCase(
        id="discord-create-message-files",
        module=_module("discord:createMessage", {"files": [{"data": "{{1.data}}", "filename": "{{1.name}}"}],
                                                 "select": "channel", "content": "{{1.name}}", "channelId": "137",
                                                 "message_reference": {}}, 2),
        input={"data": "PNGDATA", "name": "bike.png"},
        replies=(Reply(200, json={"id": "m1", "attachments": [{"url": "https://cdn.discord/bike.png"}]}),),
        calls=(Call("POST", "https://discord.com/api/v10/channels/137/messages", provider="discord",
                    data={"payload_json": '{"content": "bike.png"}'},
                    files={"files[0]": ("bike.png", b"PNGDATA", "image/png")}),),
        output=[{"id": "m1", "attachments": [{"url": "https://cdn.discord/bike.png"}]}], source=_DISCORD),
    MakeCase(
        id="instagram-create-photo-post",
        module=_module("instagram-business:CreatePostPhoto", {"caption": "{{1.text}} #moto", "accountId": "178",
                                                              "image_url": "{{1.attachments[].url}}"}),
        input={"text": "Sunday ride", "attachments": [{"url": "https://img/1.jpg"}]},  # an array into a URL field: text
        replies=(Reply(200, json={"id": "c1"}), Reply(200, json={"id": "media9"})),
        calls=(Call("POST", "https://graph.facebook.com/v21.0/178/media", provider="facebook",
                    json={"image_url": "https://img/1.jpg", "caption": "Sunday ride #moto"}),
               Call("POST", "https://graph.facebook.com/v21.0/178/media_publish", json={"creation_id": "c1"})),
        output=[{"id": "media9"}], source=_GRAPH),
    MakeCase(
        id="instagram-create-photo-post-recorded",
        module=_module("instagram-business:CreatePostPhoto", {"accountId": "178", "image_url": "https://img/1.jpg"}),
        replies=(Reply(200, json={"id": "media9"}, headers=_RECORDED),),
        calls=(Call("POST", "https://graph.facebook.com/v21.0/178/media", json={"image_url": "https://img/1.jpg"}),),
        output=[{"id": "media9"}], source=_GRAPH),
    MakeCase(
        id="facebook-pages-create-post-with-photos",
        module=_module("facebook-pages:CreatePostWithPhotos", {
            "photos": [{"url": "{{1.attachments[].url}}", "type": "url"}, {"url": "https://img/2.jpg", "type": "url",
                                                                            "caption": "second"}],
            "message": "{{1.text}} #moto", "page_id": "674"}, 6),
        input={"attachments": [{"url": "https://img/1.jpg"}], "text": "Ride"},
        replies=(Reply(200, json={"id": "p1"}), Reply(200, json={"id": "p2"}), Reply(200, json={"id": "674_9"})),
        calls=(Call("POST", "https://graph.facebook.com/v21.0/674/photos", provider="facebook",
                    json={"url": "https://img/1.jpg", "published": False}),
               Call("POST", "https://graph.facebook.com/v21.0/674/photos",
                    json={"url": "https://img/2.jpg", "caption": "second", "published": False}),
               Call("POST", "https://graph.facebook.com/v21.0/674/feed",
                    json={"message": "Ride #moto", "attached_media": [{"media_fbid": "p1"}, {"media_fbid": "p2"}]})),
        output=[{"id": "674_9"}], source=_GRAPH),
    MakeCase(
        id="facebook-pages-create-post-with-photos-recorded",
        module=_module("facebook-pages:CreatePostWithPhotos", {"photos": [{"url": "https://img/1.jpg", "type": "url"}],
                                                               "page_id": "674"}, 6),
        replies=(Reply(200, json={"id": "674_9"}, headers=_RECORDED),),
        calls=(Call("POST", "https://graph.facebook.com/v21.0/674/photos"),),
        output=[{"id": "674_9"}], source=_GRAPH),
    MakeCase(
        id="facebook-pages-create-post",
        module=_module("facebook-pages:CreatePost", {"message": "{{1.text}}", "page_id": "557"}, 6),
        input={"text": "Hello page"},
        replies=(Reply(200, json={"id": "557_1"}),),
        calls=(Call("POST", "https://graph.facebook.com/v21.0/557/feed", provider="facebook",
                    json={"message": "Hello page"}),),
        output=[{"id": "557_1"}], source=_GRAPH),
]

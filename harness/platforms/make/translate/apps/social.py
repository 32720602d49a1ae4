"""Make's messaging and social apps onto the catalogue: Slack, Telegram, Twilio, Discord, Instagram, Facebook Pages.

- Slack Get a user: GET ``/api/users.info``; Make outputs the user object (``profile.real_name``…).
  Search messages: GET ``/api/search.messages``, a bundle per match (``ts``, ``user``,
  ``permalink``, ``channel.name``) up to Limit. Slack's ``ok: false`` answer is the module's error.
  Create a message: POST ``/api/chat.postMessage``; Make outputs ``channel``, ``ts`` and ``message``.
- Telegram Bot, Send a text message or a reply: POST ``/bot<token>/sendMessage``; Make outputs the
  sent Message (Telegram's ``result``).
- Twilio Create a message (SMS): a form POST to ``/2010-04-01/Accounts/{AccountSid}/Messages.json``
  (the account SID, kept in Make's connection, from ``$TWILIO_ACCOUNT_SID``); the Message resource.
- Discord Create a message in a channel: POST ``/api/v10/channels/{channelId}/messages`` (a multipart
  form with the module's files); the message Discord answers (``attachments[].url``…).
- Instagram for Business, Create a photo post: container then publish (``make.social.instagram_photo``);
  Facebook Pages, Create a post: POST ``/{page_id}/feed``; Create a post with photos: each photo unpublished,
  then the post with ``attached_media`` (``make.social.facebook_photos_post``); each outputs the new object's ``id``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps._call import field, fields, guarded, op_call, provider_of, required, url_of
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import call, dict_of, lit, stmts

SECRET_SEGMENT = "__auth_env__"  # queue_core.gateway.request.SECRET_SEGMENT: the bot token on the wire only


def _unread(module: Module, *keys: str) -> None:
    for key in keys:
        if module.mapper.get(key) not in (None, "", [], {}):
            raise Untranslatable(f"{module.app}: the {key} field is not translated")


def slack_message(module: Module, gen: Gen) -> ModuleCode:
    """Slack Create a message: POST ``/api/chat.postMessage`` with the fields filled in; ``channel``, ``ts``, ``message``."""
    required(module, "channel", "Channel ID or name")
    body = fields(module, {"channel": "channel", "text": "text", "thread_ts": "thread_ts",
                           "reply_broadcast": "reply_broadcast", "link_names": "link_names", "mrkdwn": "mrkdwn",
                           "unfurl_links": "unfurl_links", "unfurl_media": "unfurl_media", "icon_emoji": "icon_emoji",
                           "icon_url": "icon_url", "username": "username"},
                  flags=("reply_broadcast", "link_names", "mrkdwn", "unfurl_links", "unfurl_media"),
                  texts=("channel", "text", "thread_ts", "icon_emoji", "icon_url", "username"))
    blocks = field(module, "blocks")
    if blocks is not None:
        body.keys.append(lit("blocks"))
        body.values.append(call("make.apps.json_text", blocks, "blocks"))
    parse = module.mapper.get("parse")
    if parse not in (None, ""):
        body.keys.append(lit("parse"))
        body.values.append(ast.IfExp(call("make.apps.flag", template(parse)), lit("full"), lit("none")))
    return op_call(module, gen, "slack", "message.post", shape="slack.message", json=body)


def slack_user(module: Module, gen: Gen) -> ModuleCode:
    """Slack Get a user: GET ``/api/users.info?user=``; the user object."""
    return op_call(module, gen, "slack", "user.info", shape="slack.user",
                   params=dict_of([("user", call("make.text", required(module, "user", "User ID")))]))


def slack_search(module: Module, gen: Gen) -> ModuleCode:
    """Slack Search messages: GET ``/api/search.messages``; a bundle per match, up to Limit."""
    params = fields(module, {"query": "query", "limit": "count", "sort": "sort", "sort_dir": "sort_dir"}, numbers=("limit",),
                    texts=("query",))
    required(module, "query", "Query")
    return op_call(module, gen, "slack", "message.search", shape="slack.matches", many=True, params=params,
                   limit=field(module, "limit"))


def telegram_send(module: Module, gen: Gen) -> ModuleCode:
    """Telegram Bot Send a text message or a reply: POST ``/bot<token>/sendMessage``; the sent Message."""
    _unread(module, "entities")
    assemble = module.mapper.get("replyMarkupAssembleType")
    if assemble not in (None, "", "reply_markup_enter"):
        raise Untranslatable(f"{module.app}: an assembled reply markup ({assemble}) is not translated")
    body = fields(module, {"chatId": "chat_id", "text": "text", "messageThreadId": "message_thread_id",
                           "parseMode": "parse_mode", "disableNotification": "disable_notification",
                           "disableWebPagePreview": "disable_web_page_preview", "protectContent": "protect_content",
                           "replyToMessageId": "reply_to_message_id"},
                  numbers=("messageThreadId", "replyToMessageId"),
                  flags=("disableNotification", "disableWebPagePreview", "protectContent"), texts=("text", "parseMode"))
    markup = field(module, "replyMarkup")
    if markup is not None:
        body.keys.append(lit("reply_markup"))
        body.values.append(call("make.apps.json_text", markup, "replyMarkup"))
    required(module, "chatId", "Chat ID")
    return op_call(module, gen, "telegram", "message.sendMessage", shape="telegram.result",
                   path={"token": SECRET_SEGMENT}, json=body)


def twilio_sms(module: Module, gen: Gen) -> ModuleCode:
    """Twilio Create a message: the form Twilio's Messages API reads; the Message resource."""
    if module.mapper.get("fromType", "phone") != "phone":
        raise Untranslatable(f"twilio: sending from a {module.mapper.get('fromType')!r} (not a phone number) is not translated")
    if module.mapper.get("messageBody", "body") != "body":
        raise Untranslatable("twilio: a content template body is not translated")
    form = fields(module, {"to": "To", "from": "From", "body": "Body", "mediaUrl": "MediaUrl",
                           "statusCallback": "StatusCallback", "applicationSid": "ApplicationSid", "maxPrice": "MaxPrice",
                           "provideFeedback": "ProvideFeedback", "validityPeriod": "ValidityPeriod",
                           "smartEncoded": "SmartEncoded"}, numbers=("maxPrice", "validityPeriod"),
                  flags=("provideFeedback", "smartEncoded"))
    for key in ("to", "from", "body"):
        required(module, key)
    account = call("make.apps.setting", "TWILIO_ACCOUNT_SID", gen.steps[module.id])
    return op_call(module, gen, "twilio", "message.create", shape="body", path={"AccountSid": account}, data=form)


def discord_message(module: Module, gen: Gen) -> ModuleCode:
    """Discord Create a message in a channel: its content (and files) to ``/channels/{channelId}/messages``."""
    if module.mapper.get("select", "channel") != "channel":
        raise Untranslatable(f"discord: a message to a {module.mapper.get('select')!r} (not a channel) is not translated")
    _unread(module, "embeds", "components", "sticker_ids", "allowed_mentions")
    reference = module.mapper.get("message_reference")
    payload = fields(module, {"content": "content", "tts": "tts"}, flags=("tts",), texts=("content",))
    if isinstance(reference, dict) and any(v not in (None, "") for v in reference.values()):
        payload.keys.append(lit("message_reference"))
        payload.values.append(template(reference))
    app, op = catalogue.app("discord"), catalogue.operation("discord", "message.create")
    provider = provider_of(app, module, gen)
    files = module.mapper.get("files")
    lines = stmts("$var = await make.social.discord_message(ctx, $provider, $url, step=$step, json=$payload, files=$files)",
                  var=var(module), provider=provider, step=gen.steps[module.id], payload=payload,
                  url=url_of(app, op, {"channelId": required(module, "channelId", "Channel")}),
                  files=template(files) if isinstance(files, list) else ast.List([], ast.Load()))
    return ModuleCode(lines, bundle=var(module), note=f"discord: message.create -> POST {app.base_url}{op.path}")


def instagram_photo(module: Module, gen: Gen) -> ModuleCode:
    """Instagram for Business Create a photo post: a container of the photo URL, then published; ``{id}``."""
    body = fields(module, {"image_url": "image_url", "caption": "caption", "user_tags": "user_tags",
                           "location_id": "location_id"}, texts=("image_url", "caption", "location_id"))
    required(module, "image_url", "Photo URL")
    app = catalogue.app("instagram-business")
    path = {"accountId": required(module, "accountId", "Page")}
    provider = provider_of(app, module, gen)
    lines = stmts("$var = await make.social.instagram_photo(ctx, $provider, $media, $publish, step=$step, json=$body)",
                  var=var(module), provider=provider, step=gen.steps[module.id], body=body,
                  media=url_of(app, app.operations["media.create"], path),
                  publish=url_of(app, app.operations["media.publish"], path))
    return ModuleCode(lines, bundle=var(module), note="instagram: media.create then media.publish (graph.facebook.com)")


def facebook_post(module: Module, gen: Gen) -> ModuleCode:
    """Facebook Pages Create a post: POST ``/{page_id}/feed`` (a Page token); ``{id}``."""
    _unread(module, "date")  # a scheduled post: Make's date handling (published=false + unix time) is not pinned
    body = fields(module, {"message": "message", "link": "link", "name": "name", "description": "description"},
                  texts=("message", "link", "name", "description"))
    return op_call(module, gen, "facebook-pages", "post.create", shape="body",
                   path={"page_id": required(module, "page_id", "Page")}, json=body,
                   note="facebook: post.create with a Page access token (configure it on the provider)")


def facebook_photos(module: Module, gen: Gen) -> ModuleCode:
    """Facebook Pages Create a post with photos: each photo unpublished, then the post attaching them; ``{id}``."""
    _unread(module, "date")
    photos = module.mapper.get("photos")
    if not isinstance(photos, list) or not photos:
        raise Untranslatable("facebook-pages: the post has no photos")
    for photo in photos:
        if not isinstance(photo, dict) or photo.get("type", "data") not in ("url", "data"):
            raise Untranslatable("facebook-pages: a photo that is neither a URL nor a file")
    app = catalogue.app("facebook-pages")
    path = {"page_id": required(module, "page_id", "Page")}
    provider = provider_of(app, module, gen)
    lines = stmts("$var = await make.social.facebook_photos_post(ctx, $provider, $photos_url, $feed_url, step=$step, "
                  "photos=$photos, message=$message)", var=var(module), provider=provider, step=gen.steps[module.id],
                  photos_url=url_of(app, app.operations["photo.create"], path),
                  feed_url=url_of(app, app.operations["post.create"], path),
                  photos=template(photos), message=call("make.text", field(module, "message")) if field(module, "message")
                  else lit(None))
    return ModuleCode(lines, bundle=var(module), note="facebook: photo.create (unpublished) per photo, then post.create "
                                                      "with attached_media (a Page access token)")


def linkedin_post(module: Module, gen: Gen) -> ModuleCode:
    """LinkedIn Create a post: left a TODO naming its call (the author is the connection's member)."""
    raise Untranslatable("linkedin: the post's author is the member URN of Make's connection (not in the "
                         "blueprint) and Make's output bundle is not pinned here. The call: "
                         f"{catalogue.skeleton('linkedin', 'post.create')}")


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = guarded({
    "facebook-pages:CreatePostWithPhotos": facebook_photos, "linkedin:CreatePost": linkedin_post,
    "slack:CreateMessage": slack_message, "slack:GetUser": slack_user, "slack:SearchMessages": slack_search, "telegram:SendReplyMessage": telegram_send,
    "twilio:SendSMS": twilio_sms, "discord:createMessage": discord_message,
    "instagram-business:CreatePostPhoto": instagram_photo, "facebook-pages:CreatePost": facebook_post,
})
OPERATIONS: dict[str, tuple[str, str]] = {
    "slack:CreateMessage": ("slack", "message.post"), "slack:GetUser": ("slack", "user.info"), "slack:SearchMessages": ("slack", "message.search"),
    "telegram:SendReplyMessage": ("telegram", "message.sendMessage"), "twilio:SendSMS": ("twilio", "message.create"),
    "discord:createMessage": ("discord", "message.create"),
    "instagram-business:CreatePostPhoto": ("instagram-business", "media.create"),
    "facebook-pages:CreatePost": ("facebook-pages", "post.create"),
    "facebook-pages:CreatePostWithPhotos": ("facebook-pages", "photo.create"),
}

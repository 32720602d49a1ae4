"""More of Make's messaging modules onto the catalogue: Telegram Bot > Send a photo (by URL).

Telegram Bot > Send a photo (``telegram:SendPhoto``; fields as a public blueprint sends them: ``chatId``,
``sendType`` ``send_byurl`` with ``httpUrl``, ``caption``, ``parseMode``, ``disableNotification``,
``replyMarkupAssembleType``): POST ``/bot<token>/sendPhoto`` (https://core.telegram.org/bots/api#sendphoto:
``chat_id``, ``photo`` as a URL, ``caption``, ``parse_mode``…). Make outputs the sent Message, Telegram's
``result``, as its Send a text message does (make-apps' ``telegram.result`` shape). A photo uploaded as a
file (another ``sendType``) and an assembled reply markup are TODOs naming them; so is any field this
translation does not read.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps._call import field, fields, guarded, op_call, required
from harness.platforms.make.translate.base import Gen, ModuleCode
from harness.scaffold._code import call, lit

__all__ = ["OPERATIONS", "TRANSLATORS"]

SECRET_SEGMENT = "__auth_env__"  # queue_core.gateway.request.SECRET_SEGMENT: the bot token on the wire only
_PHOTO_FIELDS = {"chatId": "chat_id", "httpUrl": "photo", "caption": "caption", "parseMode": "parse_mode",
                 "messageThreadId": "message_thread_id", "disableNotification": "disable_notification",
                 "protectContent": "protect_content", "replyToMessageId": "reply_to_message_id"}
_READ = {*_PHOTO_FIELDS, "sendType", "replyMarkupAssembleType", "replyMarkup"}


def telegram_photo(module: Module, gen: Gen) -> ModuleCode:
    """Telegram Bot Send a photo by URL: POST ``/bot<token>/sendPhoto``; the sent Message."""
    send_type = module.mapper.get("sendType", "send_byurl")
    if send_type != "send_byurl":
        raise Untranslatable(f"{module.app}: a photo sent as {send_type!r} (an uploaded file) is not translated; "
                             "by URL (send_byurl) is")
    assemble = module.mapper.get("replyMarkupAssembleType")
    if assemble not in (None, "", "reply_markup_enter"):
        raise Untranslatable(f"{module.app}: an assembled reply markup ({assemble}) is not translated")
    unread = sorted(k for k, v in module.mapper.items() if k not in _READ and v not in (None, "", [], {}))
    if unread:
        raise Untranslatable(f"{module.app}: the field(s) {', '.join(unread)} are not translated")
    required(module, "chatId", "Chat ID")
    required(module, "httpUrl", "Photo URL")
    body = fields(module, _PHOTO_FIELDS, numbers=("messageThreadId", "replyToMessageId"),
                  flags=("disableNotification", "protectContent"), texts=("caption", "parseMode", "httpUrl"))
    markup = field(module, "replyMarkup")
    if markup is not None:
        body.keys.append(lit("reply_markup"))
        body.values.append(call("make.apps.json_text", markup, "replyMarkup"))
    return op_call(module, gen, "telegram", "message.sendPhoto", shape="telegram.result",
                   path={"token": SECRET_SEGMENT}, json=body)


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = guarded({"telegram:SendPhoto": telegram_photo})
# module type -> (catalogue app, operation): for the catalogue's table (operation x platform)
OPERATIONS: dict[str, tuple[str, str]] = {"telegram:SendPhoto": ("telegram", "message.sendPhoto")}

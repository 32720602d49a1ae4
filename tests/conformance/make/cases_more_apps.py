"""Pinned cases of make2's app modules: Telegram Bot > Send a photo (by URL)."""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_PHOTO = ("https://www.make.com/en/help/app/telegram (Send a photo: the sent message); "
          "https://core.telegram.org/bots/api#sendphoto (chat_id, photo by URL, caption, parse_mode)")
_D = {"designer": {"x": 600, "y": 0}}
_URL = "https://api.telegram.org/bot__auth_env__/sendPhoto"


def _module(mapper: dict) -> dict:
    return {"module": "telegram:SendPhoto", "version": 1, "parameters": {"__IMTCONN__": 1}, "mapper": mapper,
            "metadata": _D}


_SENT = {"message_id": 9, "chat": {"id": -100123}, "photo": [{"file_id": "AgAD", "width": 90, "height": 90}],
         "caption": "New stack"}

CASES = [
    MakeCase(
        id="telegram-send-photo-by-url",
        module=_module({"chatId": "@my_channel", "sendType": "send_byurl", "httpUrl": "{{1.image.url}}",
                        "caption": "{{substring(1.text; 0; 9)}}", "parseMode": "HTML", "disableNotification": False,
                        "replyMarkupAssembleType": ""}),
        input={"image": {"url": "https://img.example.com/a.png"}, "text": "New stack of the week"},
        replies=(Reply(200, json={"ok": True, "result": _SENT}),),
        calls=(Call("POST", _URL, provider="telegram",
                    json={"chat_id": "@my_channel", "photo": "https://img.example.com/a.png", "caption": "New stack",
                          "parse_mode": "HTML", "disable_notification": False}),),
        output=[_SENT], source=_PHOTO),
    MakeCase(
        id="telegram-send-photo-with-a-reply-markup",
        module=_module({"chatId": "{{1.chat}}", "sendType": "send_byurl", "httpUrl": "https://img.example.com/b.png",
                        "replyToMessageId": "{{1.mid}}", "replyMarkupAssembleType": "reply_markup_enter",
                        "replyMarkup": '{"inline_keyboard": [[{"text": "Open", "url": "https://example.com"}]]}'}),
        input={"chat": 42, "mid": "5"},
        replies=(Reply(200, json={"ok": True, "result": {"message_id": 10, "chat": {"id": 42}}}),),
        calls=(Call("POST", _URL, json={"chat_id": 42, "photo": "https://img.example.com/b.png", "reply_to_message_id": 5,
                                        "reply_markup": {"inline_keyboard": [[{"text": "Open",
                                                                              "url": "https://example.com"}]]}}),),
        output=[{"message_id": 10, "chat": {"id": 42}}], source=_PHOTO),
    MakeCase(
        id="telegram-send-photo-error",
        module=_module({"chatId": "1", "sendType": "send_byurl", "httpUrl": "https://img.example.com/c.png"}),
        replies=(Reply(200, json={"ok": False, "description": "Bad Request: wrong file identifier/HTTP URL specified"}),),
        calls=(Call("POST", _URL),),
        error="Telegram: Bad Request: wrong file identifier/HTTP URL specified", source=_PHOTO),
]

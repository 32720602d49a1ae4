"""make2: the flow tools left as TODOs name why; the binary-data IML functions refuse what they do not know."""

from __future__ import annotations

import pytest

from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen
from harness.platforms.make.translate.modules import translate
from queue_core.compat import make
from queue_core.errors import MakeFunctionError


def _module(app: str, **parameters: object) -> Module:
    return Module(id=5, app=app, version=1, label=f"{app}#5", mapper={}, parameters=dict(parameters))


@pytest.mark.parametrize(("reset", "words"), [("scenario", "durable counter"), ("run", "one job each"),
                                              ("execution", "one job each"), ("weekly", "not one of Make's")])
def test_increment_function_is_a_todo_naming_its_reset(reset: str, words: str) -> None:
    code = translate(_module("util:FunctionIncrement", reset=reset), Gen(providers={}))
    assert code.todo is not None and words in code.todo and "Increment function" in code.todo


def test_aggregate_to_json_is_a_todo_naming_its_source() -> None:
    code = translate(_module("json:AggregateToJSON", feeder=2), Gen(providers={}))
    assert code.todo is not None and "source module 2" in code.todo


def test_binary_functions_refuse_an_unknown_encoding() -> None:
    with pytest.raises(MakeFunctionError, match="utf16"):
        make.fn("toBinary", "abc", "utf16")
    with pytest.raises(MakeFunctionError, match="hex text"):
        make.fn("toBinary", "xyz", "hex")
    assert make.fn("toBinary", "TWFr\nZQ", "base64") == make.fn("toBinary", "TWFrZQ==", "base64") == b"Make"
    with pytest.raises(MakeFunctionError, match="md5 takes no key"):
        make.fn("md5", "abc", "hex", "key")
    assert make.fn("sha256", "abc", "hex", "6b6579", "hex") == make.fn("sha256", "abc", "hex", "key")
    assert make.fn("toString", make.fn("toBinary", "4d616b65", "hex")) == "Make"


def test_telegram_watch_updates_starts_on_the_bot_webhook_with_the_update_as_bundle(tmp_path) -> None:
    """Telegram Bot > Watch updates (``__IMTHOOK__``): Telegram posts the Update to the webhook and Make's
    bundle is that Update (a real blueprint maps ``{{1.message.chat.id}}``, ``{{1.message.photo[3].file_id}}``)."""
    import json
    from types import SimpleNamespace

    from harness.platforms.make.definition import load_blueprint
    from harness.platforms.make.translate import build

    flow = [{"id": 1, "module": "telegram:WatchUpdates", "version": 1, "parameters": {"__IMTHOOK__": 7}, "mapper": {}},
            {"id": 2, "module": "util:SetVariable2", "version": 1, "parameters": {},
             "mapper": {"name": "chat", "value": "{{1.message.chat.id}}"}}]
    (tmp_path / "b.json").write_text(json.dumps({"name": "tg", "flow": flow}))
    scaffold = build(load_blueprint(tmp_path / "b.json"), "tg", {})
    assert [(r.type, r.status) for r in scaffold.rows] == [("telegram:WatchUpdates", "trigger"),
                                                             ("util:SetVariable2", "translated")]
    assert "make.webhook_bundle(trigger)" in scaffold.source
    compile(scaffold.source, "tg.py", "exec")
    update = {"update_id": 1, "message": {"message_id": 5, "chat": {"id": 42, "type": "private"}, "text": "hi"}}
    assert make.webhook_bundle(SimpleNamespace(body=update)) == update


@pytest.mark.parametrize(("mapper", "words"), [
    ({"chatId": "1", "sendType": "send_byfile", "fileName": "a.png", "data": "{{2.data}}"}, "uploaded file"),
    ({"chatId": "1", "httpUrl": "https://x/a.png", "replyMarkupAssembleType": "reply_markup_assemble"}, "assembled"),
    ({"chatId": "1", "httpUrl": "https://x/a.png", "hasSpoiler": True}, "hasSpoiler"),
    ({"chatId": "1", "sendType": "send_byurl"}, "Photo URL")])
def test_telegram_send_photo_leaves_what_it_does_not_read(mapper: dict, words: str) -> None:
    module = Module(id=5, app="telegram:SendPhoto", version=1, label="p", mapper=mapper, parameters={})
    code = translate(module, Gen(providers={}))
    assert code.todo is not None and words in code.todo


def test_an_iml_call_with_too_many_arguments_fails_the_module_by_name() -> None:
    with pytest.raises(MakeFunctionError, match=r"lower\(\) does not take 2 argument"):
        make.fn("lower", "A", "B")
    assert make.fn("lower", "A") == "a"

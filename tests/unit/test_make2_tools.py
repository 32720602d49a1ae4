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

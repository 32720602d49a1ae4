"""make.apps / make.ai / make.social: requests as Make sends them, answers as Make's bundles, recordings unchanged."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from queue_core.compat import make
from queue_core.errors import ModuleFailed


class _Ctx:
    def __init__(self, *replies: httpx.Response) -> None:
        self.replies = list(replies)
        self.calls: list[dict] = []

    async def call(self, provider, method, url, **kwargs):
        self.calls.append({"provider": provider, "method": method, "url": url, **kwargs})
        return self.replies.pop(0)


def _reply(body, headers=None) -> httpx.Response:
    return httpx.Response(200, json=body, headers=headers or {}, request=httpx.Request("GET", "https://x.test"))


def test_compact_drops_what_make_leaves_out() -> None:
    when = datetime(2024, 6, 3, 9, 30, tzinfo=UTC)
    assert make.apps.compact({"a": None, "b": "", "c": {}, "d": [], "e": 0, "f": False, "g": {"h": ""},
                              "i": when, "j": Decimal("2.0"), "k": ["", "x"]}) == {
        "e": 0, "f": False, "i": "2024-06-03T09:30:00.000Z", "j": 2, "k": ["x"]}


def test_num_and_flag() -> None:
    assert make.apps.num("0.7") == 0.7 and make.apps.num(" 12 ") == 12 and make.apps.num("") is None
    with pytest.raises(ModuleFailed, match="field 'n': 'abc' is not a number"):
        make.apps.num("abc", "n")
    assert make.apps.flag("true") is True and make.apps.flag(False) is False and make.apps.flag("") is None
    assert make.apps.epoch_ms("2024-06-03T00:00:00Z") == 1717372800000


def test_airtable_record_is_flattened_and_a_recording_kept() -> None:
    live = _Ctx(_reply({"id": "r1", "createdTime": "t", "fields": {"Name": "A"}}))
    assert asyncio.run(make.apps.call(live, "airtable", "POST", "u", step="s", shape="airtable.record", json={})) == {
        "id": "r1", "createdTime": "t", "Name": "A"}
    recorded = _Ctx(_reply({"id": "r1", "fields": {"x": 1}}, {"X-Cutover-Recorded": "recording"}))
    assert asyncio.run(make.apps.call(recorded, "airtable", "POST", "u", step="s", shape="airtable.record")) == {
        "id": "r1", "fields": {"x": 1}}


def test_slack_error_is_the_modules_error() -> None:
    ctx = _Ctx(_reply({"ok": False, "error": "channel_not_found"}))
    with pytest.raises(ModuleFailed, match="Slack: channel_not_found"):
        asyncio.run(make.apps.call(ctx, "slack", "GET", "u", step="s", shape="slack.user"))


def test_search_pages_until_the_limit_and_keeps_the_query() -> None:
    ctx = _Ctx(_reply({"records": [{"id": "1", "fields": {}}], "offset": "o1"}),
               _reply({"records": [{"id": "2", "fields": {}}, {"id": "3", "fields": {}}], "offset": "o2"}))
    found = asyncio.run(make.apps.search(ctx, "airtable", "GET", "u", step="s", shape="airtable.records", limit="2",
                                         params={"view": "Grid"}))
    assert [b["id"] for b in found] == ["1", "2"]
    assert ctx.calls[1]["params"] == {"view": "Grid", "offset": "o1"}


def test_search_recording_is_the_bundles() -> None:
    ctx = _Ctx(_reply([{"id": "1"}, {"id": "2"}], {"X-Cutover-Recorded": "recording"}))
    assert asyncio.run(make.apps.search(ctx, "clickup", "GET", "u", step="s", shape="clickup.tasks")) == [
        {"id": "1"}, {"id": "2"}]


def test_openai_result_is_the_first_choice() -> None:
    body = {"id": "c", "choices": [{"message": {"content": "hi"}}, {"message": {"content": "ho"}}]}
    assert make.ai.openai_result(body) == {"result": "hi", **body}
    assert make.ai.openai_result({"choices": [{"text": "t"}]}, chat=False)["result"] == "t"


def test_instagram_publishes_the_container_unless_recorded() -> None:
    live = _Ctx(_reply({"id": "c1"}), _reply({"id": "m1"}))
    assert asyncio.run(make.social.instagram_photo(live, "facebook", "m", "p", step="s", json={"caption": ""})) == {
        "id": "m1"}
    assert live.calls[0]["json"] == {} and live.calls[1]["json"] == {"creation_id": "c1"}
    recorded = _Ctx(_reply({"id": "m9"}, {"X-Cutover-Recorded": "recording"}))
    assert asyncio.run(make.social.instagram_photo(recorded, "facebook", "m", "p", step="s", json={})) == {"id": "m9"}
    assert len(recorded.calls) == 1


def test_setting_names_the_variable(monkeypatch) -> None:
    monkeypatch.delenv("TWILIO_ACCOUNT_SID", raising=False)
    with pytest.raises(ModuleFailed, match="set TWILIO_ACCOUNT_SID in the environment"):
        make.apps.setting("TWILIO_ACCOUNT_SID", "send-sms")


def test_stripe_form_brackets_nesting_and_pairs() -> None:
    assert make.apps.stripe_form({"name": "Ada", "address": {"city": "Roma", "line1": ""},
                                  "metadata": [{"key": "k", "value": 1}], "items": [{"price": "p", "qty": 2}],
                                  "locales": ["it", "en"], "flag": False, "empty": []}) == {
        "name": "Ada", "address[city]": "Roma", "metadata[k]": "1", "items[0][price]": "p", "items[0][qty]": "2",
        "locales[0]": "it", "locales[1]": "en", "flag": "false"}
    assert make.apps.epoch_s("2024-06-03T00:00:00Z") == 1717372800

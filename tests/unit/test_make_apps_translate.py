"""What the make-apps translators read of a module beyond its mapper, and what they leave a TODO (with the reason)."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps import data
from harness.platforms.make.translate.modules import Gen, translate


def test_airtable_values_are_typed_by_the_expect_spec_when_the_module_carries_it() -> None:
    module = SimpleNamespace(mapper={"record": {"fldA": "{{1.n}}", "fldB": "{{1.ok}}", "fldC": "{{1.t}}"}},
                             metadata={"expect": [{"name": "record", "spec": [
                                 {"name": "fldA", "type": "number"}, {"name": "fldB", "type": "boolean"},
                                 {"name": "fldC", "type": "text"}]}]})
    source = ast.unparse(data._record(module))  # type: ignore[arg-type]
    assert "'fldA': make.apps.num(make.ref(run.b, 1, 'n'), 'fldA')" in source
    assert "'fldB': make.apps.flag(make.ref(run.b, 1, 'ok'))" in source
    assert "'fldC': make.ref(run.b, 1, 't')" in source
    bare = SimpleNamespace(mapper=module.mapper)  # no metadata: the values go as mapped
    assert "make.apps.num" not in ast.unparse(data._record(bare))  # type: ignore[arg-type]


def _todo(app: str, mapper: dict) -> str | None:
    return translate(Module(7, app, 1, f"{app}#7", mapper, {}), Gen({}, steps={7: "step-7"})).todo


def test_what_is_not_translated_is_a_todo_naming_it() -> None:
    assert "sending from a 'service'" in _todo("twilio:SendSMS", {"fromType": "service", "to": "+1", "body": "x"})
    assert "the Record ID field is not filled in" in _todo("airtable:ActionUpdateRecords", {
        "base": "b", "table": "t", "record": {}})
    assert "an image returned as a file" in _todo("openai-gpt-3:GenerateImage", {"prompt": "p",
                                                                                "response_format": "imageFile"})
    assert "whether Make parses result is not pinned" in _todo("gemini-ai:createACompletionGeminiPro", {
        "model": "m", "contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"responseMimeType": "application/json"}})
    assert "an absolute URL" in _todo("supabase:makeAnApiCall", {"url": "https://x.supabase.co/rest/v1/t", "method": "GET"})
    assert "member URN" in _todo("linkedin:CreatePost", {"content": "hi"})
    assert "the post has no photos" in _todo("facebook-pages:CreatePostWithPhotos", {"page_id": "1"})


def test_the_importer_names_an_app_call_after_its_app() -> None:
    gen = Gen({"api.airtable.com": "at"}, steps={7: "step-7"})
    code = translate(Module(7, "airtable:ActionGetRecord", 3, "g", {"base": "b", "table": "t", "id": "r"}, {}), gen)
    assert code.todo is None
    assert gen.hosts == {"api.airtable.com": "at", "airtable": "at"} and gen.proposals == {}


def test_a_field_shaped_unlike_the_form_is_a_todo_not_a_traceback() -> None:
    why = _todo("anthropic-claude:createAMessage", {"model": "m", "max_tokens": 5, "messages": 3})
    assert why is not None and "a field is not shaped as the module's form shapes it (TypeError" in why
    assert _todo("airtable:ActionSearchRecords", {"base": "b", "table": "t", "sort": True}) is not None

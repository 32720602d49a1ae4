"""The Make runtime pieces make-core adds: Text parser, HTML to text, Create JSON, data store search,
the error-handler directives and the IML functions, each against Make's documented behaviour."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from queue_core.compat import make
from queue_core.errors import MakeFunctionError, ModuleFailed, RetryableError, TerminalError, TodoModule


def test_match_pattern_reads_javascript_named_groups_and_leaves_out_an_unmatched_group() -> None:
    bundles = make.tools.match_pattern("id=7", r"(?<key>\w+)=(\d+)(x)?")
    assert bundles == [{"$1": "id", "$2": "7", "key": "id", "i": 1, "__IMTMATCH__": "id=7"}]


def test_a_bad_pattern_fails_the_module_by_name() -> None:
    with pytest.raises(ModuleFailed, match="Parse job: the pattern"):
        make.tools.match_pattern("x", "(", module="Parse job")


def test_html_to_text_lists_links_and_line_breaks() -> None:
    html = "<ul><li>One</li><li><a href='https://x.test/2'>Two</a></li></ul><p>a<br/>b</p><script>x()</script>"
    assert make.tools.html_to_text(html, newline="crlf")["text"] == " * One\r\n * Two [https://x.test/2]\r\n\r\na\r\nb"


def test_html_to_text_keeps_headings_as_written_when_asked() -> None:
    assert make.tools.html_to_text("<h1>Title</h1><p>x</p>", uppercase_headings=False)["text"] == "Title\n\nx"


def test_create_json_indents_with_space_and_fails_a_non_number() -> None:
    spec = [{"name": "n", "type": "number"}, {"name": "ok", "type": "boolean"}]
    assert make.tools.create_json({"n": "2", "ok": "true"}, spec, space="2")["json"] == '{\n  "n": 2,\n  "ok": true\n}'
    with pytest.raises(ModuleFailed, match="'n' = 'two' is not a number"):
        make.tools.create_json({"n": "two"}, spec, module="JSON")


def test_webhook_respond_refuses_a_status_that_is_not_http() -> None:
    ctx = SimpleNamespace(respond=None)
    with pytest.raises(ModuleFailed, match="'abc' is not an HTTP status"):
        asyncio.run(make.tools.respond(ctx, "abc", "", [], module="Reply"))


class _Ctx:
    def __init__(self, attempt: int = 1) -> None:
        self.attempt = attempt
        self.job_id = "job-1"

    def now(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=UTC)


def test_break_retries_with_the_interval_then_fails() -> None:
    run = make.Run(_Ctx(attempt=2))
    with pytest.raises(RetryableError) as retried:
        run.broke(4, TerminalError("HTTP 400"), "2", "5")
    assert retried.value.delay == 300
    with pytest.raises(TerminalError, match="no retry left"):
        make.Run(_Ctx(attempt=3)).broke(4, TerminalError("HTTP 400"), "2", "5")
    with pytest.raises(TerminalError, match="no retry left"):
        make.Run(_Ctx()).broke(4, TerminalError("HTTP 400"), "2", "5", False)


def test_directives_never_swallow_a_todo_module() -> None:
    run = make.Run(_Ctx())
    for handle in (run.committed, run.rolled_back, run.broke):
        with pytest.raises(TodoModule):
            handle(4, TodoModule("m", "why"))


def test_rollback_turns_a_retryable_error_terminal() -> None:
    with pytest.raises(TerminalError, match="Rollback"):
        make.Run(_Ctx()).rolled_back(4, RetryableError("HTTP 503"))


def test_the_execution_id_is_the_job() -> None:
    assert make.Run(_Ctx()).execution_id == "job-1"


@pytest.mark.parametrize(("args", "expected"), [
    (("2024-03-05", "YYYY-MM-DD"), datetime(2024, 3, 5, tzinfo=UTC)),
    (("5 March 24 3:07 pm", "D MMMM YY h:mm a"), datetime(2024, 3, 5, 15, 7, tzinfo=UTC)),
    (("1700000000", "X"), datetime.fromtimestamp(1700000000, UTC)),
    (("2024-03-05T10:00:00+02:00", "YYYY-MM-DDTHH:mm:ssZ"), datetime(2024, 3, 5, 8, tzinfo=UTC)),
    (("2024-03-05T10:00:00Z",), datetime(2024, 3, 5, 10, tzinfo=UTC)),
])
def test_parse_date_reads_the_moment_tokens(args, expected) -> None:
    assert make.fn("parseDate", *args) == expected


def test_parse_date_names_a_text_of_another_format() -> None:
    with pytest.raises(MakeFunctionError, match="does not have the format 'YYYY-MM-DD'"):
        make.fn("parseDate", "05/03/2024", "YYYY-MM-DD")


def test_array_and_collection_functions() -> None:
    people = [{"n": "b", "a": 2}, {"n": "a", "a": 1}]
    assert make.fn("sort", people, "asc", "n") == [people[1], people[0]]
    assert make.fn("toCollection", people, "n", "a") == {"b": 2, "a": 1}
    assert make.fn("toArray", {"x": 1}) == [{"key": "x", "value": 1}]
    assert make.fn("arrayDifference", [1, 2, 3], [2], "classic") == [1, 3]
    assert make.fn("omit", {"a": 1, "b": 2}, "a") == {"b": 2}
    assert make.fn("pick", {"a": 1, "b": 2}, "a") == {"a": 1}
    assert make.fn("average", [1, 2], 6) == 3


def test_data_store_search_fails_on_an_answer_without_records() -> None:
    class Ctx:
        async def call(self, *args, **kwargs):
            return SimpleNamespace(json=lambda: {"oops": 1}, headers={}, text="{}")

    with pytest.raises(ModuleFailed, match="has no records"):
        asyncio.run(make.store.search_records(Ctx(), "make-datastore", 1, step="s", conditions=[]))


def test_a_query_key_given_twice_is_a_todo(tmp_path) -> None:
    import json

    from harness.platforms.make.definition import load_blueprint
    from harness.platforms.make.translate import build

    flow = [{"id": 1, "module": "gateway:CustomWebHook", "version": 1, "parameters": {}, "mapper": {}},
            {"id": 2, "module": "http:ActionSendData", "version": 3, "parameters": {},
             "mapper": {"url": "https://a.example.com/x", "method": "get",
                        "qs": [{"name": "id", "value": "1"}, {"name": "id", "value": "2"}]}}]
    (tmp_path / "b.json").write_text(json.dumps({"name": "q", "flow": flow}))
    rows = build(load_blueprint(tmp_path / "b.json"), "q", {}).rows
    assert [(r.status, r.why) for r in rows if r.type == "http:ActionSendData"] == [
        ("todo", "a query key given twice (Make serializes repeated keys as an array) is not translated")]


def test_modules_after_a_todo_are_laid_out_and_counted(tmp_path) -> None:
    import json

    from harness.platforms.make.definition import load_blueprint
    from harness.platforms.make.translate import build

    flow = [{"id": 1, "module": "gateway:CustomWebHook", "version": 1, "parameters": {}, "mapper": {}},
            {"id": 2, "module": "builtin:BasicFeeder", "version": 1, "parameters": {}, "mapper": {"array": "{{`1`}}"}},
            {"id": 3, "module": "util:SetVariable2", "version": 1, "parameters": {},
             "mapper": {"name": "x", "value": "{{2.value}}"}},
            {"id": 4, "module": "unknown:Thing", "version": 1, "parameters": {}, "mapper": {}}]
    (tmp_path / "b.json").write_text(json.dumps({"name": "t", "flow": flow}))
    scaffold = build(load_blueprint(tmp_path / "b.json"), "t", {})
    assert [(r.type, r.status) for r in scaffold.rows] == [
        ("gateway:CustomWebHook", "trigger"), ("builtin:BasicFeeder", "todo"), ("util:SetVariable2", "translated"),
        ("unknown:Thing", "todo")]
    compile(scaffold.source, "t.py", "exec")

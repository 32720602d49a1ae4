"""The Make conformance runner's poller support: ctx.poll_cursor answers the case's cursor, ctx.start_new
records what a tick starts, and a case compares both; a 4xx/5xx reply raises as the gateway does."""

from __future__ import annotations

import asyncio

import pytest

from queue_core.errors import RetryableError, TerminalError
from tests.conformance.make.runner import ABSENT, MakeCase, Outcome, Reply, _Context, mismatches

_MODULE = {"module": "google-sheets:watchRows", "version": 2, "parameters": {}, "mapper": {}}


def test_the_context_answers_the_cursor_and_records_the_items_started() -> None:
    ctx = _Context((), cursor={"row": 4})
    assert asyncio.run(ctx.poll_cursor(default={"row": 0})) == {"row": 4}
    assert asyncio.run(_Context(()).poll_cursor(default={"row": 0})) == {"row": 0}
    ids = asyncio.run(ctx.start_new(ctx.automation, [{"n": 5}, {"n": 6}], id_of=lambda i: i["n"], cursor={"row": 6}))
    assert (ids, ctx.started, ctx.next_cursor) == (["5", "6"], [{"n": 5}, {"n": 6}], {"row": 6})


def test_a_case_compares_the_items_started_and_the_cursor_stored() -> None:
    case = MakeCase(id="poll", module=_MODULE, source="https://example.invalid", first=True,
                    started=[{"n": 5}], next_cursor={"row": 5})
    assert mismatches(case, Outcome(True, started=[{"n": 5}], next_cursor={"row": 5})) == []
    found = mismatches(case, Outcome(True, started=[], next_cursor={"row": 4}))
    assert len(found) == 2 and found[0].startswith("started:") and found[1].startswith("cursor stored:")
    assert case.cursor is ABSENT


@pytest.mark.parametrize(("status", "error"), [(404, TerminalError), (429, RetryableError), (503, RetryableError)])
def test_an_error_reply_raises_as_the_gateway_classifies_it(status: int, error: type[Exception]) -> None:
    ctx = _Context((Reply(status, json={"e": 1}),))
    with pytest.raises(error, match=f"HTTP {status}"):
        asyncio.run(ctx.call("p", "GET", "https://p.example.com/x", step="s"))

"""The Wait node: intervals and times given by expressions are evaluated at run time with the first item,
every default comes from the node's description per version, a webhook resume is a durable token wait."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core.compat import n8n
from queue_core.compat._n8n_wait import interval_seconds, moment
from queue_core.errors import NodeFailed


def _scaffold(version: float, timezone: str | None = None, **parameters: Any) -> Any:
    workflow = {"name": "W", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0],
         "parameters": {}},
        {"name": "Hold", "type": "n8n-nodes-base.wait", "typeVersion": version, "position": [200, 0],
         "parameters": parameters}],
        "connections": {"Start": {"main": [[{"node": "Hold", "type": "main", "index": 0}]]}},
        **({"settings": {"timezone": timezone}} if timezone else {})}
    scaffold = build(parse_workflow(workflow, "w.json"), "w", {})
    return scaffold, next(r for r in scaffold.rows if r.node == "Hold")


def test_each_version_waits_its_own_default_interval() -> None:
    v1, _ = _scaffold(1)
    v11, _ = _scaffold(1.1)
    assert "n8n.wait_interval(flow, 'Hold', items, 1, 'hours')" in v1.source  # version 1: 1 hour
    assert "n8n.wait_interval(flow, 'Hold', items, 5, 'seconds')" in v11.source  # version 1.1: 5 seconds


def test_an_amount_given_by_an_expression_is_evaluated_at_run_time() -> None:
    scaffold, row = _scaffold(1.1, amount="={{ $json.delay || 4 }}", unit="minutes")
    assert row.status == "translated" and row.why == "the interval is evaluated at run time"
    assert "n8n.wait_interval(flow, 'Hold', items, lambda item, i:" in scaffold.source
    constant, row = _scaffold(1.1, amount="=10")
    assert row.status == "translated" and "n8n.wait_interval" in constant.source


@pytest.mark.parametrize(("amount", "unit", "seconds"), [
    ("10", "seconds", 10), (" 2 ", "minutes", 120), (1.5, "hours", 5400), ("", "days", 0), (-3, "seconds", 0)])
def test_an_interval_counts_as_javascript_multiplies_it(amount: Any, unit: str, seconds: float) -> None:
    assert interval_seconds("Hold", amount, unit) == seconds


def test_an_amount_that_is_no_number_fails_the_node_naming_it() -> None:
    with pytest.raises(NodeFailed, match="Hold: the wait amount 'soon' is not a number"):
        interval_seconds("Hold", "soon", "seconds")
    with pytest.raises(NodeFailed, match="the wait unit 'weeks'"):
        interval_seconds("Hold", 1, "weeks")


def test_a_specific_time_is_read_in_the_workflows_timezone_when_it_names_none() -> None:
    scaffold, row = _scaffold(1.1, "Europe/Berlin", resume="specificTime", dateTime="2026-03-01T10:00:00")
    assert row.status == "translated"
    assert "n8n.wait_until(flow, 'Hold', items, '2026-03-01T10:00:00', 'Europe/Berlin')" in scaffold.source
    assert moment("Hold", "2026-03-01T10:00:00", "Europe/Berlin") == datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    assert moment("Hold", "2026-03-01T10:00:00Z", "Europe/Berlin") == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    with pytest.raises(NodeFailed, match="`dateTime` parameter is not a valid date"):
        moment("Hold", "", None)


class _Clock:
    """The part of a Context the time waits use: its clock and durable sleeps, noted."""

    mode = "live"

    def __init__(self) -> None:
        self.slept: list[Any] = []

    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    async def sleep_until(self, when: datetime) -> None:
        self.slept.append(when)


def test_the_runtime_reads_the_first_items_expression_and_passes_the_items_on() -> None:
    ctx = _Clock()
    flow = n8n.Flow(ctx)
    items = [{"json": {"delay": "3"}}, {"json": {"delay": "9"}}]
    out = asyncio.run(n8n.wait_interval(flow, "Hold", items, lambda item, i: item["json"]["delay"], "minutes"))
    assert out == items and ctx.slept == [180.0] and flow.outputs["Hold"] == [items]
    ctx.mode = "shadow"  # a replay's clock stands still: the durable sleep is of no time
    asyncio.run(n8n.wait_interval(flow, "Hold", items, 2, "hours"))
    asyncio.run(n8n.wait_until(flow, "Hold", items, "2030-01-01T00:00:00", "UTC"))
    assert ctx.slept[-2:] == [0, 0]
    ctx.mode = "live"
    asyncio.run(n8n.wait_until(flow, "Hold", items, lambda item, i: "2026-01-02T00:00:00", "UTC"))
    assert ctx.slept[-1] == datetime(2026, 1, 2, tzinfo=UTC)


def test_a_webhook_resume_is_a_token_wait_mapped_to_a_step_with_its_limit() -> None:
    scaffold, row = _scaffold(1.1, resume="webhook", httpMethod="POST", limitWaitTime=True, resumeAmount=2,
                              resumeUnit="minutes")
    assert row.status == "translated" and "/waits/<token>/resolve" in row.why
    assert "n8n.wait_webhook(flow, 'Hold', items, key='hold', limit_amount=2, limit_unit='minutes')" in scaffold.source
    assert scaffold.steps["Hold"] == "hold"  # the recorded output a replay answers it with
    until, _ = _scaffold(1, resume="webhook", limitWaitTime=True, limitType="atSpecifiedTime",
                         maxDateAndTime="2026-05-01T00:00:00")
    assert "limit_until='2026-05-01T00:00:00'" in until.source


@pytest.mark.parametrize(("parameters", "reason"), [
    ({"resume": "webhook", "responseMode": "responseNode"}, "answers with 'responseNode' is not translated"),
    ({"resume": "webhook", "options": {"binaryData": True}}, "option(s) binaryData"),
    ({"resume": "form"}, "form submission is not translated"),
])
def test_what_a_webhook_or_form_resume_cannot_do_here_is_a_todo_naming_it(parameters: dict[str, Any],
                                                                          reason: str) -> None:
    _, row = _scaffold(1.1, **parameters)
    assert row.status == "todo" and reason in row.why


def test_a_timed_out_webhook_limit_is_measured_from_the_jobs_clock() -> None:
    from queue_core.compat._n8n_wait import _limit

    flow = n8n.Flow(_Clock())
    assert _limit(flow, "Hold", [], 90, "seconds", None, None) == timedelta(seconds=90)
    assert _limit(flow, "Hold", [], None, None, "2026-01-01T01:00:00", "UTC") == timedelta(hours=1)
    assert _limit(flow, "Hold", [], None, None, None, None) is None


class _Ledger:
    mode = "dry_run"

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def ledger(self, kind: str, detail: Any) -> None:
        self.events.append((kind, detail))


def test_execution_data_follows_n8ns_custom_data_rules() -> None:
    ctx = _Ledger()
    flow = n8n.Flow(ctx)
    items = [{"json": {"n": 1}}]
    pairs = [("order_id", 42.0), ("zero", 0), ("k" * 60, "v" * 600)] + [(f"k{i}", "x") for i in range(10)]
    asyncio.run(n8n.execution_data(flow, "Save", items, lambda item, i: pairs, version=1.1))
    (kind, detail), = ctx.events
    assert kind == "n8n_custom_data" and len(detail["data"]) == 10  # n8n keeps 10 keys
    assert detail["data"]["order_id"] == "42" and detail["data"]["zero"] == ""  # 1.1: a falsy value is ""
    assert detail["data"]["k" * 50] == "v" * 512


@pytest.mark.parametrize(("pair", "version", "message"), [
    (("bad key", "x"), 1.1, 'Custom date key can only contain characters "A-Za-z0-9_" (key "bad key")'),
    (("flag", True), 1.1, 'Custom data values must be a string (key "flag")'),
    (("gone", None), 1, 'Custom data values must be a string (key "gone")'),
])
def test_execution_data_keeps_out_what_n8n_cannot_store_and_goes_on_as_a_production_run_does(
        pair: tuple[Any, Any], version: float, message: str) -> None:
    ctx = _Ledger()
    flow = n8n.Flow(ctx)
    out = asyncio.run(n8n.execution_data(flow, "Save", [{"json": {}}], lambda item, i: [pair, ("ok", "yes")],
                                         version=version))
    assert out == [{"json": {}}]
    ((_, detail),) = ctx.events
    assert detail == {"node": "Save", "set": {"ok": "yes"}, "data": {"ok": "yes"}, "refused": [message]}

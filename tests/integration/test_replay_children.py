"""Replaying runs over many items: the new code's child jobs are read back and compared with the
legacy trace's items, key by key (fan-outs with and without a wait, and a shadow poller)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from harness.shadow._items import compare_items
from harness.shadow.normalize import Rules
from harness.recording import ItemTrace, LegacyTrace, Platform, PollOrigin, RecordedTrigger, TraceStatus
from harness.shadow.cases import Case, Replayed, ReplayOptions, shadow_providers
from harness.shadow.replay import ShadowReplayer
from queue_core import Context, Registry, Trigger, automation

AT = datetime(2024, 6, 17, 9, 15, tzinfo=UTC)
registry = Registry()
PROVIDERS = shadow_providers({}, ["crm", "billing"])


@automation("invoice-batch", registry=registry)
async def invoice_batch(ctx: Context, trigger: Trigger) -> None:
    invoices = trigger.body["invoices"]
    ctx.decide("batch", "nonempty" if invoices else "empty")
    for invoice in invoices:
        await ctx.enqueue("invoice", invoice, key=invoice["id"])
    if trigger.body.get("wait"):
        outcomes = await ctx.wait_for_children(policy="collect")
        ctx.decide("settled", len(outcomes))


@automation("invoice", registry=registry)
async def invoice(ctx: Context, trigger: Trigger) -> None:
    customer = (await ctx.call("crm", "GET", f"/customers/{trigger.body['customer']}", step="customer")).json()
    large = trigger.body["amount"] > customer["limit"]
    ctx.decide("amount", "large" if large else "small")
    if large:
        await ctx.call("crm", "POST", "/escalations", json={"invoice": trigger.body["id"]}, step="escalate")


@automation("poll-invoices", registry=registry)
async def poll_invoices(ctx: Context, trigger: Trigger) -> None:
    cursor = await ctx.poll_cursor(default={"since": 0})
    page = (await ctx.call("billing", "GET", f"/invoices?since={cursor['since']}", step="fetch")).json()
    await ctx.start_new("invoice", page["items"], id_of=lambda i: i["id"], cursor={"since": page["next"]})


@automation("polled-invoice", registry=registry)
async def polled_invoice(ctx: Context, trigger: Trigger) -> None:
    poll = trigger.poll
    assert poll is not None and poll == {**ctx.job.trigger_meta["poll"]}
    ctx.decide("poller", poll["poller"])
    ctx.decide("item", poll["item"])
    ctx.decide("polled_at", poll["at"])


def _invoice(ident: str, amount: int) -> dict[str, Any]:
    return {"id": ident, "amount": amount, "customer": "acme"}


READ = {"step": "customer", "provider": "crm", "method": "GET", "url": "/customers/acme", "body": None}


def _item(key: str, route: str, limit: int = 1000) -> ItemTrace:
    calls = [READ, *([{"step": "escalate", "provider": "crm", "method": "POST", "url": "/escalations",
                       "body": {"invoice": key}}] if route == "large" else [])]
    return ItemTrace(key=key, path=["customer", *(["escalate"] if route == "large" else [])],
                     decisions={"amount": route}, calls=calls, outputs={"customer": {"limit": limit}})


def _case(key: int, auto: str, body: dict[str, Any], items: list[ItemTrace], **legacy: Any) -> Case:
    trigger = RecordedTrigger(f"run-{key}", AT, {}, body, "recorder")
    trace = LegacyTrace(f"run-{key}", TraceStatus.SUCCEEDED, Platform.N8N, items=items, **legacy)
    return Case(key, auto, trigger, trace)


def _replay(db_url: str, cases: list[Case]) -> list[Replayed]:
    async def go() -> list[Replayed]:
        async with ShadowReplayer(db_url, registry, PROVIDERS, ReplayOptions(workers=2, concurrency=8)) as replayer:
            return await replayer.replay(cases)

    return asyncio.run(go())


def _paths(result: Replayed, case: Case) -> list[tuple[str, str]]:
    assert case.legacy is not None
    compared = compare_items(case.legacy, result.children, Rules(base_urls={"crm": "https://crm.shadow.invalid"}))
    return [(d.path, d.kind) for d in compared.disagreements]


def _batch(key: int, wait: bool) -> Case:
    body = {"invoices": [_invoice("inv-7", 200), _invoice("inv-8", 5000)], "wait": wait}
    decisions = {"batch": "nonempty", **({"settled": 2} if wait else {})}
    return _case(key, "invoice-batch", body, [_item("inv-7", "small"), _item("inv-8", "large")], decisions=decisions)


def test_children_of_a_fan_out_are_read_back_final_with_and_without_a_wait(fresh_db_url: str) -> None:
    cases = [_batch(0, wait=False), _batch(1, wait=True)]
    results = _replay(fresh_db_url, cases)
    for result in results:
        assert result.status == "succeeded"
        assert [(c.key, c.automation, c.status) for c in result.children] == [
            ("inv-7", "invoice", "succeeded"), ("inv-8", "invoice", "succeeded")]
        # the child's read was answered from its legacy item's outputs
        assert [c.trace["decisions"] for c in result.children if c.trace] == [{"amount": "small"}, {"amount": "large"}]
    assert results[1].trace["decisions"] == {"batch": "nonempty", "settled": 2}
    assert [_paths(r, c) for r, c in zip(results, cases, strict=True)] == [[], []]


def test_an_item_whose_decision_differs_is_named_by_its_key(fresh_db_url: str) -> None:
    body = {"invoices": [_invoice("inv-7", 200), _invoice("inv-8", 5000)], "wait": True}
    legacy_small = ItemTrace(key="inv-8", path=["customer"], decisions={"amount": "small"}, calls=[READ],
                             outputs={"customer": {"limit": 1000}})  # legacy did not escalate inv-8
    case = _case(0, "invoice-batch", body, [_item("inv-7", "small"), legacy_small],
                 decisions={"batch": "nonempty", "settled": 2})
    (result,) = _replay(fresh_db_url, [case])
    paths = _paths(result, case)
    assert ("items[inv-8].decisions.amount", "value_changed") in paths
    assert ("items[inv-8].calls[escalate]", "extra_in_new") in paths
    assert {p.split("]", 1)[0] for p, _ in paths} == {"items[inv-8"}  # the parent and inv-7 agree


def test_a_missing_and_an_extra_child_are_mismatches_naming_their_keys(fresh_db_url: str) -> None:
    body = {"invoices": [_invoice("inv-7", 200), _invoice("inv-9", 5000)]}
    case = _case(0, "invoice-batch", body, [_item("inv-7", "small"), _item("inv-8", "large")],
                 decisions={"batch": "nonempty"})
    (result,) = _replay(fresh_db_url, [case])
    assert _paths(result, case) == [("items[inv-8]", "missing_in_new"), ("items[inv-9]", "extra_in_new")]


def test_a_shadow_pollers_items_pair_with_legacy_items_by_their_ids(fresh_db_url: str) -> None:
    page = {"items": [_invoice("inv-7", 200), _invoice("inv-8", 5000)], "next": 2}
    trigger = RecordedTrigger("tick-1", AT, {}, {}, "schedule")
    legacy = LegacyTrace("tick-1", TraceStatus.SUCCEEDED, Platform.N8N, path=["fetch"], outputs={"fetch": page},
                         items=[_item("inv-7", "small"), _item("inv-8", "small", 9000)])
    (result,) = _replay(fresh_db_url, [Case(0, "poll-invoices", trigger, legacy)])
    assert result.status == "succeeded"
    assert [c.key for c in result.children] == ["poll:inv-7", "poll:inv-8"]
    assert _paths(result, Case(0, "poll-invoices", trigger, legacy)) == []
    wrong = LegacyTrace("tick-1", TraceStatus.SUCCEEDED, Platform.N8N, path=["fetch"], outputs={"fetch": page},
                        items=[_item("inv-7", "small"), _item("inv-8", "large", 9000)])
    (result,) = _replay(fresh_db_url, [Case(0, "poll-invoices", trigger, wrong)])
    assert ("items[inv-8].decisions.amount", "value_changed") in _paths(result, Case(0, "poll-invoices", trigger, wrong))


def test_a_polled_items_poll_reaches_the_replayed_jobs_trigger_meta(fresh_db_url: str) -> None:
    poll = PollOrigin(poller="New invoices", at=AT, item="inv-7")
    trigger = RecordedTrigger("n8n-51000-inv-7", AT, {}, _invoice("inv-7", 200), "poll", poll)
    legacy = LegacyTrace(trigger.id, TraceStatus.SUCCEEDED, Platform.N8N)
    (result,) = _replay(fresh_db_url, [Case(0, "polled-invoice", trigger, legacy)])
    assert result.trace is not None
    assert result.trace["decisions"] == {"poller": "New invoices", "item": "inv-7", "polled_at": AT.isoformat()}

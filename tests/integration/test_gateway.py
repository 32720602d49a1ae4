"""The provider gateway against a real HTTP fake provider on loopback, budgets in real Postgres."""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from psycopg_pool import AsyncConnectionPool
from standardwebhooks.webhooks import Webhook

from queue_core.errors import (
    ConfigError,
    ForeignURLError,
    IdempotencyConflictError,
    NetworkBlockedError,
    ProviderNotConfiguredError,
    RateLimited,
    RetryableError,
    Snooze,
    TerminalError,
)
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call
from tests.support.fake_provider import FakeProvider
from tests.support.spender import Plan, spend

TOKEN = "tok_live_0123456789abcdef"
WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
ENV = {"CRM_TOKEN": TOKEN, "CRM_WHSEC": WHSEC}


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider().running() as provider:
        yield provider


def gateway(pool: AsyncConnectionPool | None, url: str, source: Any = None, **crm: Any) -> Gateway:
    table = {"crm": {"base_url": url, "auth_env": "CRM_TOKEN", "timeout": 5.0, **crm},
             "other": {"base_url": url}}
    return Gateway(parse_providers(table), pool, response_source=source, environ=ENV)


async def like_a_worker(gw: Gateway, ctx: MemoryCallContext, *args: Any, attempts: int = 8, **kw: Any) -> httpx.Response:
    """Call until success, sleeping out Snooze and RetryableError delays as the worker would."""
    for _ in range(attempts):
        try:
            return await call(gw, ctx, *args, **kw)
        except Snooze as snooze:
            await asyncio.sleep(snooze.delay)
        except RetryableError as exc:
            await asyncio.sleep(min(exc.delay or 0.01, 2.0))
    raise AssertionError(f"no success after {attempts} attempts")


async def test_a_live_call_carries_the_child_key_the_bearer_token_and_a_verifiable_signature(fake) -> None:
    ctx = MemoryCallContext()
    async with gateway(None, fake.url, signing_secret_env="CRM_WHSEC") as gw:
        response = await call(gw, ctx, "crm", "POST", "/contacts", step="create", json={"email": "a@x.test"})
    [seen] = fake.requests
    assert response.status_code == 201
    assert seen.headers["idempotency-key"] == hashlib.sha256(f"{ctx.job_id}:create".encode()).hexdigest()
    assert seen.headers["authorization"] == f"Bearer {TOKEN}"
    assert Webhook(WHSEC).verify(seen.body, seen.headers) == {"email": "a@x.test"}
    assert TOKEN not in repr(ctx.events) + repr(ctx.calls) and "webhook-signature" not in repr(ctx.events)


async def test_the_key_is_the_same_on_every_retry_and_reclaim_and_differs_per_step(fake) -> None:
    first = MemoryCallContext()
    reclaimed = MemoryCallContext(job_id=first.job_id)  # another worker, same job
    fake.fail_next(1, 503)
    async with gateway(None, fake.url) as gw:
        with pytest.raises(RetryableError):
            await call(gw, first, "crm", "POST", "/a", step="s1", json={})
        await call(gw, reclaimed, "crm", "POST", "/a", step="s1", json={})
        await call(gw, reclaimed, "crm", "POST", "/a", step="s2", json={})
    keys = [r.headers["idempotency-key"] for r in fake.requests]
    assert keys[0] == keys[1] != keys[2]


async def test_retries_after_server_errors_produce_exactly_one_effect(fake) -> None:
    fake.fail_next(2, 500)
    async with gateway(None, fake.url) as gw:
        response = await like_a_worker(gw, MemoryCallContext(), "crm", "POST", "/deals", step="d", json={"v": 1})
    assert response.status_code == 201 and len(fake.requests) == 3 and len(fake.effects) == 1


async def test_a_retry_after_a_timeout_gets_the_first_effect_not_a_second_one(fake) -> None:
    fake.stall_next(1, 1.5)  # the effect happens, the answer comes too late
    ctx = MemoryCallContext()
    async with gateway(None, fake.url, timeout=0.3) as gw:
        with pytest.raises(RetryableError, match="timeout"):
            await call(gw, ctx, "crm", "POST", "/deals", step="d", json={"v": 1})
        response = await like_a_worker(gw, ctx, "crm", "POST", "/deals", step="d", json={"v": 1})
    assert len(fake.effects) == 1 and response.headers["idempotent-replayed"] == "true"


async def test_a_429_is_put_back_after_retry_after_and_tightens_the_shared_budget(budget_pool) -> None:
    with FakeProvider(limit=2, window=1.0).running() as fake:
        ctx = MemoryCallContext()
        async with gateway(budget_pool, fake.url, rate="100/1s") as gw:  # config looser than reality
            for step in ("a", "b"):
                await call(gw, ctx, "crm", "POST", "/x", step=step, json={})
            with pytest.raises(RateLimited) as info:  # a put-back of its own: no attempt used
                await call(gw, ctx, "crm", "POST", "/x", step="c", json={})
            [state] = await gw.budget.states("crm")  # type: ignore[union-attr]
            started = time.monotonic()  # the budget now knows, before the network does: the call
            await like_a_worker(gw, ctx, "crm", "POST", "/x", step="c", json={})  # waits out Retry-After
            waited = time.monotonic() - started  # (in its worker, or snoozed: the budget decides)
    assert info.value.delay >= 1.0 and info.value.kind == "rate_limited" and info.value.count == 1
    assert state.blocked_until is not None and 0.9 < waited and fake.throttled == 1 and len(fake.effects) == 3
    assert "HTTP 429" in (state.reason or "") and "budget_tightened" in ctx.kinds()


async def test_an_empty_budget_snoozes_without_sending_and_other_providers_proceed(fake, budget_pool) -> None:
    ctx = MemoryCallContext()
    async with gateway(budget_pool, fake.url, rate="2/1h") as gw:
        await call(gw, ctx, "crm", "POST", "/x", step="a", json={})
        await call(gw, ctx, "crm", "POST", "/x", step="b", json={})
        with pytest.raises(Snooze) as info:
            await call(gw, ctx, "crm", "POST", "/x", step="c", json={})
        other = await call(gw, ctx, "other", "GET", "/y", step="read")
    assert info.value.delay > 60 and "'crm' rate budget (2/1h) is spent" in info.value.reason
    assert other.status_code == 200 and len(fake.requests) == 3 and "c" not in ctx.calls


async def test_a_recorded_success_is_returned_without_calling_again(fake) -> None:
    ctx = MemoryCallContext()
    async with gateway(None, fake.url) as gw:
        first = await call(gw, ctx, "crm", "POST", "/x", step="a", json={"v": 1})
        again = await call(gw, ctx, "crm", "POST", "/x", step="a", json={"v": 1})
    assert len(fake.requests) == 1 and again.status_code == 201 and again.json() == first.json()
    assert ctx.kinds()[-1] == "call_replayed"


async def test_reusing_a_key_for_a_different_body_names_both_fingerprints(fake) -> None:
    ctx = MemoryCallContext()
    async with gateway(None, fake.url) as gw:
        await call(gw, ctx, "crm", "POST", "/x", step="a", json={"v": 1})
        with pytest.raises(IdempotencyConflictError) as info:
            await call(gw, ctx, "crm", "POST", "/x", step="a", json={"v": 2})
    err = info.value
    assert err.stored_fingerprint != err.new_fingerprint
    assert err.stored_fingerprint in str(err) and err.new_fingerprint in str(err) and len(fake.requests) == 1


async def test_a_body_change_after_an_unrecorded_failure_is_also_a_conflict(fake) -> None:
    fake.fail_next(1, 502)
    ctx = MemoryCallContext()
    async with gateway(None, fake.url) as gw:
        with pytest.raises(RetryableError):
            await call(gw, ctx, "crm", "POST", "/x", step="a", json={"v": 1})
        with pytest.raises(IdempotencyConflictError):
            await call(gw, ctx, "crm", "POST", "/x", step="a", json={"v": 2})


async def test_key_order_in_the_body_does_not_change_the_fingerprint(fake) -> None:
    ctx = MemoryCallContext()
    async with gateway(None, fake.url) as gw:
        await call(gw, ctx, "crm", "POST", "/x", step="a", json={"a": 1, "b": 2})
        await call(gw, ctx, "crm", "POST", "/x", step="a", json={"b": 2, "a": 1})
    assert len(fake.requests) == 1


async def test_client_errors_are_terminal_and_overrides_apply(fake) -> None:
    fake.fail_next(1, 422)
    rule = [{"status": 503, "body_contains": "injected", "kind": "terminal", "reason": "maintenance"}]
    async with gateway(None, fake.url, classify=rule) as gw:
        with pytest.raises(TerminalError, match="422"):
            await call(gw, MemoryCallContext(), "crm", "POST", "/x", step="a", json={})
        fake.fail_next(1, 503)
        with pytest.raises(TerminalError, match="maintenance"):
            await call(gw, MemoryCallContext(), "crm", "POST", "/x", step="a", json={})


async def test_max_in_flight_limits_concurrent_calls_in_this_process(fake) -> None:
    fake.stall_next(6, 0.1)
    async with gateway(None, fake.url, max_in_flight=2) as gw:
        await asyncio.gather(*(call(gw, MemoryCallContext(), "crm", "POST", "/x", step="a", json={}) for _ in range(6)))
    assert len(fake.effects) == 6 and fake.stats()["max_in_progress"] == 2


async def test_configuration_mistakes_are_named(fake) -> None:
    async with gateway(None, fake.url) as gw:
        with pytest.raises(ProviderNotConfiguredError, match="'nope'.*configured: crm, other"):
            await call(gw, MemoryCallContext(), "nope", "GET", "/", step="a")
        with pytest.raises(ForeignURLError):
            await call(gw, MemoryCallContext(), "crm", "GET", "https://evil.test/steal", step="a")
    async with Gateway(gw.providers, None, environ={}) as bare:
        with pytest.raises(ConfigError) as info:
            await call(bare, MemoryCallContext(), "crm", "GET", "/", step="a")
    assert info.value.field == "tool.cutover.providers.crm.auth_env" and fake.requests == []


# -- modes -------------------------------------------------------------------------------------


async def test_dry_run_records_what_would_be_sent_without_secrets_and_never_reaches_the_network(fake) -> None:
    ctx = MemoryCallContext(mode="dry_run")
    with respx.mock(assert_all_called=False) as router:  # no routes, no pass-through
        async with gateway(None, fake.url, signing_secret_env="CRM_WHSEC") as gw:
            response = await call(gw, ctx, "crm", "POST", "/contacts", step="create", json={"email": "a@x.test"})
    [(kind, detail)] = [e for e in ctx.events if e[0] == "call_dry_run"]
    assert fake.requests == [] and router.calls.call_count == 0
    assert response.json()["synthetic"] is True and response.headers["x-cutover-synthetic"] == "dry_run"
    assert (detail["method"], detail["url"], detail["body"]) == ("POST", f"{fake.url}/contacts", {"email": "a@x.test"})
    assert detail["idempotency_key"] == ctx.idempotency_key("create") == detail["headers"]["Idempotency-Key"]
    assert TOKEN not in repr(ctx.events) and "Authorization" not in detail["headers"]


async def test_dry_run_returns_the_recorded_response_when_the_source_has_one(fake) -> None:
    seen: list[tuple[Any, ...]] = []

    def source(automation: str, trigger_id: str | None, step: str, req: OutboundRequest) -> RecordedResponse:
        seen.append((automation, trigger_id, step, req.method))
        return RecordedResponse(200, json={"id": "rec-1"})

    async with gateway(None, fake.url, source) as gw:
        response = await call(gw, MemoryCallContext(mode="dry_run"), "crm", "POST", "/x", step="s", json={})
    assert response.json() == {"id": "rec-1"} and seen == [("test-automation", "trigger-1", "s", "POST")]
    assert fake.requests == []
    assert response.headers["X-Cutover-Recorded"] == "recording"  # what lets a runtime take a recorded output


async def test_shadow_reads_come_from_the_recording_and_writes_become_intents(fake) -> None:
    def source(automation: str, trigger_id: str | None, step: str, req: OutboundRequest) -> RecordedResponse | None:
        return RecordedResponse(200, json={"employees": 1500}) if step == "enrich" else None

    ctx = MemoryCallContext(mode="shadow")
    with respx.mock(assert_all_called=False) as router:
        async with gateway(None, fake.url, source) as gw:
            company = await call(gw, ctx, "crm", "GET", "/companies", step="enrich", params={"domain": "x.test"})
            await call(gw, ctx, "crm", "POST", "/contacts", step="create", json={"tier": "enterprise"})
    assert company.json() == {"employees": 1500} and fake.requests == [] and router.calls.call_count == 0
    assert [(i["step"], i["method"], i["body"]) for i in ctx.intents] == [
        ("enrich", "GET", None), ("create", "POST", {"tier": "enterprise"})]
    assert ctx.intents[0]["url"] == f"{fake.url}/companies?domain=x.test"


async def test_a_shadow_read_without_a_recording_fails_terminally_instead_of_guessing(fake) -> None:
    async with gateway(None, fake.url) as gw:
        with pytest.raises(TerminalError, match="no recorded response for GET"):
            await call(gw, MemoryCallContext(mode="shadow"), "crm", "GET", "/companies", step="enrich")
    assert fake.requests == []


async def test_shadow_writes_go_to_the_sandbox_when_one_is_configured(fake) -> None:
    with FakeProvider().running() as sandbox:
        async with gateway(None, fake.url, sandbox_url=sandbox.url) as gw:
            response = await call(gw, MemoryCallContext(mode="shadow"), "crm", "POST", "/x", step="a", json={"v": 1})
    assert response.status_code == 201 and fake.requests == [] and len(sandbox.effects) == 1
    assert "authorization" not in sandbox.requests[0].headers  # production credentials stay home


async def test_the_guard_blocks_every_host_in_dry_run_and_all_but_the_sandbox_in_shadow(fake) -> None:
    async with gateway(None, "https://api.example.test", sandbox_url=fake.url) as gw:
        with pytest.raises(NetworkBlockedError, match="dry_run"):
            await gw.client_for("dry_run").get(fake.url)
        with pytest.raises(NetworkBlockedError, match="shadow"):
            await gw.client_for("shadow").get("https://api.example.test/")
        allowed = await gw.client_for("shadow").get(fake.url + "/ok")
    assert allowed.status_code == 200 and len(fake.requests) == 1


# -- budgets shared by processes -----------------------------------------------------------------


def test_two_worker_processes_share_one_budget_and_never_see_a_429(db_url: str) -> None:
    # The provider counts a sliding window by its own receive clock: more than 20 in any 1 s is a 429.
    with FakeProvider(limit=20, window=1.0).running() as fake:
        providers = {"crm": {"base_url": fake.url, "rate": "20/1s"}}
        start = time.time() + 1.0
        plans = [Plan(db_url, providers, {"crm": 3}, calls=10, start_at=start) for _ in range(2)]
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            results = pool.map(spend, plans)
    assert sum(r["crm.ok"] for r in results) == 60 == len(fake.effects)
    assert fake.throttled == 0 and sum(r["crm.429"] for r in results) == 0
    stats = fake.stats()
    assert stats["worst_window"] == 20  # the whole window was used, never more
    assert stats["last_at"] - stats["first_at"] > 2.0  # 60 calls: three windows, so both waited

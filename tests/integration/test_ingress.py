"""Webhook ingress: verified deliveries become jobs once; anything unverified enqueues nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from collections.abc import Callable

import pytest

from queue_core import Queue
from queue_core.server import VerifiedDelivery, create_token
from queue_core.server.ingress import NOT_VERIFIED
from queue_core.signing import standard_webhooks_headers
from tests.support.control import app_for, client, sources

NOW = 1_700_000_000
SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
GH_SECRET = "It's a Secret to Everybody"
ENV = {"SW": SW_SECRET, "GH": GH_SECRET, "STRIPE": "whsec_stripe_secret", "SHOP": "shopify-app-secret",
       "BEARER": "shared-bearer-secret"}
CONFIG = {
    "sw": {"scheme": "standard-webhooks", "secret_env": "SW", "automations": ["noop"]},
    "gh": {"scheme": "github", "secret_env": "GH", "automations": ["noop", "decider"]},
    "stripe": {"scheme": "stripe", "secret_env": "STRIPE", "automations": ["noop"]},
    "shop": {"scheme": "shopify", "secret_env": "SHOP", "automations": ["noop"], "max_body_bytes": 64},
    "bearer": {"scheme": "bearer", "secret_env": "BEARER", "automations": ["noop"], "mode": "shadow"},
}
BODY = b'{"event": "created", "email": "ada@example.com"}'


def sign_sw(body: bytes, delivery: str = "msg_1", ts: int = NOW, secret: str = SW_SECRET) -> dict[str, str]:
    return standard_webhooks_headers(secret, delivery, ts, body)


def sign_gh(body: bytes, delivery: str = "gh-1", ts: int = NOW, secret: str = GH_SECRET) -> dict[str, str]:
    sig = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {"x-hub-signature-256": sig, "x-github-delivery": delivery, "x-github-event": "issues"}


def sign_stripe(body: bytes, delivery: str = "evt_1", ts: int = NOW, secret: str = ENV["STRIPE"]) -> dict[str, str]:
    sig = hmac.new(secret.encode(), f"{ts}.".encode() + body, hashlib.sha256).hexdigest()
    return {"stripe-signature": f"t={ts},v1={sig}"}


def sign_shop(body: bytes, delivery: str = "shop-1", ts: int = NOW, secret: str = ENV["SHOP"]) -> dict[str, str]:
    sig = base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
    return {"x-shopify-hmac-sha256": sig, "x-shopify-webhook-id": delivery}


def sign_bearer(body: bytes, delivery: str = "b-1", ts: int = NOW, secret: str = ENV["BEARER"]) -> dict[str, str]:
    return {"authorization": f"Bearer {secret}", "idempotency-key": delivery}


Signer = Callable[..., dict[str, str]]
SIGNERS: dict[str, Signer] = {"sw": sign_sw, "gh": sign_gh, "stripe": sign_stripe, "shop": sign_shop, "bearer": sign_bearer}
HAS_TIMESTAMP = {"sw", "stripe"}


def body_for(source: str, delivery: str = "evt_1") -> bytes:
    # Stripe carries its delivery id as the event id in the body.
    return json.dumps({"id": delivery, "type": "invoice.paid"}).encode() if source == "stripe" else BODY


@pytest.fixture
async def env(pool):
    received: list[VerifiedDelivery] = []

    async def tap(delivery: VerifiedDelivery) -> None:
        received.append(delivery)

    async with pool.connection() as conn:
        await conn.execute("TRUNCATE webhook_bodies, api_tokens")
    clock = {"now": float(NOW)}
    app = app_for(pool, sources=sources(CONFIG, ENV), clock=lambda: clock["now"], on_verified_delivery=tap)
    return {"pool": pool, "app": app, "queue": Queue(pool), "received": received, "clock": clock}


async def _post(env, source: str, body: bytes, headers: dict[str, str]):
    async with client(env["app"]) as c:
        return await c.post(f"/hooks/{source}", content=body, headers={"content-type": "application/json", **headers})


async def _jobs(env) -> list[tuple]:
    async with env["pool"].connection() as conn:
        return await (await conn.execute(
            "SELECT automation, mode::text, dedupe_key, trigger_id, payload, trigger_meta FROM jobs ORDER BY automation")).fetchall()


@pytest.mark.parametrize("source", list(SIGNERS))
async def test_a_verified_delivery_enqueues_each_configured_automation(env, source):
    body = body_for(source)
    response = await _post(env, source, body, SIGNERS[source](body))
    assert response.status_code == 202, response.text
    accepted = response.json()
    jobs = await _jobs(env)
    assert [j[0] for j in jobs] == sorted(CONFIG[source]["automations"])
    ident = accepted["delivery_id"]
    assert all(j[2] == f"{source}:{ident}:{j[0]}" and j[3] == ident for j in jobs)
    assert jobs[0][4] == json.loads(body) and jobs[0][5]["source"] == source
    assert jobs[0][1] == ("shadow" if source == "bearer" else "live")
    # The job keeps the trigger's headers, but no signature or credential.
    kept = " ".join(jobs[0][5]["headers"])
    assert not any(h in kept for h in ("signature", "hmac", "authorization"))
    assert [d.delivery_id for d in env["received"]] == [ident]


async def test_delivery_ids_come_from_each_schemes_header_or_the_stripe_event(env):
    expected = {"sw": "msg_1", "gh": "gh-1", "stripe": "evt_1", "shop": "shop-1", "bearer": "b-1"}
    for source, signer in SIGNERS.items():
        body = body_for(source)
        assert (await _post(env, source, body, signer(body))).json()["delivery_id"] == expected[source]


@pytest.mark.parametrize("source", list(SIGNERS))
async def test_a_repeated_delivery_is_deduplicated(env, source):
    body = body_for(source)
    first = (await _post(env, source, body, SIGNERS[source](body))).json()
    retry = await _post(env, source, body, SIGNERS[source](body, ts=NOW + 60 if source in HAS_TIMESTAMP else NOW))
    assert retry.status_code == 202 and retry.json()["duplicate"] is True and first["duplicate"] is False
    assert retry.json()["jobs"] == first["jobs"]
    assert len(await _jobs(env)) == len(CONFIG[source]["automations"])
    assert len(env["received"]) == 1  # the tap records a delivery once


@pytest.mark.parametrize("source", sorted(set(SIGNERS) - {"bearer"}))
async def test_a_tampered_body_is_401_and_enqueues_nothing(env, source):
    body = body_for(source)
    response = await _post(env, source, body.replace(b"}", b', "admin": true}'), SIGNERS[source](body))
    assert response.status_code == 401 and "not verified" in response.json()["detail"]
    assert await _jobs(env) == [] and env["received"] == []


async def test_a_bearer_source_proves_the_sender_but_not_the_body(env):
    # A shared secret signs nothing: that is why bearer is for senders that can do no better.
    body = BODY.replace(b"}", b', "admin": true}')
    assert (await _post(env, "bearer", body, sign_bearer(BODY))).status_code == 202


@pytest.mark.parametrize("source", list(SIGNERS))
async def test_a_wrong_secret_is_401_and_enqueues_nothing(env, source):
    body = body_for(source)
    wrong = "whsec_" + base64.b64encode(b"not the key").decode() if source == "sw" else "not-the-secret"
    assert (await _post(env, source, body, SIGNERS[source](body, secret=wrong))).status_code == 401
    assert await _jobs(env) == []


@pytest.mark.parametrize("source", sorted(HAS_TIMESTAMP))
@pytest.mark.parametrize("skew", [-301, 301])
async def test_a_timestamp_outside_the_tolerance_is_401_and_enqueues_nothing(env, source, skew, caplog):
    body = body_for(source)
    response = await _post(env, source, body, SIGNERS[source](body, ts=NOW + skew))
    # The reason goes to the log; the sender gets the one answer every 401 gets.
    assert response.status_code == 401 and response.json()["detail"] == NOT_VERIFIED
    assert "more than 300 s from now" in caplog.text
    assert await _jobs(env) == []


@pytest.mark.parametrize("source", list(SIGNERS))
async def test_a_missing_signature_header_is_401_and_enqueues_nothing(env, source, caplog):
    body = body_for(source)
    signature_headers = {"webhook-signature", "x-hub-signature-256", "stripe-signature", "x-shopify-hmac-sha256",
                         "authorization"}
    headers = {k: v for k, v in SIGNERS[source](body).items() if k not in signature_headers}
    response = await _post(env, source, body, headers)
    assert response.status_code == 401 and response.json()["detail"] == NOT_VERIFIED
    assert "is missing" in caplog.text
    assert await _jobs(env) == []


async def test_a_rejected_delivery_is_logged_without_its_body_or_signature(env, caplog):
    caplog.set_level(logging.DEBUG)
    body = b'{"card": "4242424242424242"}'
    headers = sign_gh(b"{}")
    assert (await _post(env, "gh", body, headers)).status_code == 401
    assert "hook gh: rejected a delivery of 28 bytes" in caplog.text
    assert "4242" not in caplog.text and headers["x-hub-signature-256"] not in caplog.text


@pytest.mark.parametrize("source", list(SIGNERS))
async def test_an_unknown_source_answers_exactly_as_a_bad_signature_does(env, source, caplog):
    body = body_for(source)
    headers = SIGNERS[source](body, secret="whsec_" + base64.b64encode(b"wrong").decode())
    bad_signature = await _post(env, source, body, headers)
    unknown = await _post(env, "no-such-source", body, headers)
    assert bad_signature.status_code == unknown.status_code == 401
    assert bad_signature.json() == unknown.json() and set(unknown.json()) == {"type", "title", "status", "detail"}
    assert bad_signature.headers["content-type"] == unknown.headers["content-type"] == "application/problem+json"
    assert "'no-such-source': rejected a delivery" in caplog.text  # the operator still learns why
    assert await _jobs(env) == []


async def test_an_unknown_source_refuses_a_body_over_the_default_limit_as_a_source_would(env):
    from queue_core.server.source import DEFAULT_MAX_BODY_BYTES

    body = b'{"x": "' + b"y" * DEFAULT_MAX_BODY_BYTES + b'"}'
    assert (await _post(env, "no-such-source", body, {})).status_code == 413


async def test_a_verified_body_that_is_not_json_is_400_and_enqueues_nothing(env):
    body = b"payload=%7B%7D"
    assert (await _post(env, "gh", body, sign_gh(body))).status_code == 400
    assert await _jobs(env) == []


async def test_an_oversized_body_is_413_by_its_declared_length(env):
    body = b'{"x": "' + b"y" * 100 + b'"}'
    response = await _post(env, "shop", body, sign_shop(body))
    assert response.status_code == 413 and "64 bytes" in response.json()["detail"]
    assert await _jobs(env) == []


async def test_an_oversized_streamed_body_is_413_before_it_is_read_whole(env):
    pulled: list[int] = []

    async def endless():
        for i in range(1000):
            pulled.append(i)
            yield b"x" * 40

    async with client(env["app"]) as c:
        response = await c.post("/hooks/shop", content=endless(), headers=sign_shop(b""))
    assert response.status_code == 413 and len(pulled) < 10
    assert await _jobs(env) == []


async def test_a_failing_tap_does_not_fail_the_delivery(env, caplog):
    async def broken(delivery: VerifiedDelivery) -> None:
        raise OSError("disk full")

    app = app_for(env["pool"], sources=sources(CONFIG, ENV), clock=lambda: float(NOW), on_verified_delivery=broken)
    async with client(app) as c:
        response = await c.post("/hooks/sw", content=BODY, headers=sign_sw(BODY))
    assert response.status_code == 202 and len(await _jobs(env)) == 1
    assert "on_verified_delivery failed" in caplog.text


def test_sources_refuse_a_missing_secret_or_a_bad_scheme_naming_the_field():
    from queue_core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"tool\.cutover\.sources\.gh\.secret_env.*GH is not set"):
        sources({"gh": CONFIG["gh"]}, {})
    with pytest.raises(ConfigError, match=r"sources\.x\.scheme.*must be one of"):
        sources({"x": {**CONFIG["gh"], "scheme": "md5"}}, ENV)
    with pytest.raises(ConfigError, match=r"sources\.x\.automations"):
        sources({"x": {**CONFIG["gh"], "automations": []}}, ENV)
    with pytest.raises(ConfigError, match=r"sources\.x\.secrte_env.*unknown key"):
        sources({"x": {**CONFIG["gh"], "secrte_env": "GH"}}, ENV)


def test_a_source_repr_never_shows_its_secret():
    assert GH_SECRET not in repr(sources({"gh": CONFIG["gh"]}, ENV)["gh"])


def test_configured_automations_must_be_registered_when_a_registry_is_given(pool):
    from queue_core.errors import ConfigError
    from tests.support.automations import registry

    with pytest.raises(ConfigError, match="'ghost' is not registered"):
        app_for(pool, sources=sources({"gh": {**CONFIG["gh"], "automations": ["ghost"]}}, ENV), registry=registry)


MARK = "ZZ-PAYLOAD-MARKER-ZZ"
BAD_BODIES = {
    "nul": ('{"note": "%s\\u0000"}' % MARK, "$.note"),
    "lone_surrogate": ('{"issue": {"title": "%s\\ud800"}}' % MARK, "$.issue.title"),
    "5000_digits": ('{"t": "%s", "n": %s}' % (MARK, "7" * 5000), "$.n"),
    "50000_deep": ("[" * 50_000 + '"%s"' % MARK + "]" * 50_000, "$"),
    "1e400": ('{"t": "%s", "amount": 1e400}' % MARK, "$.amount"),
    "not_json": ("%s=1" % MARK, "$"),
}


@pytest.mark.parametrize(("text", "field"), BAD_BODIES.values(), ids=BAD_BODIES.keys())
async def test_a_signed_body_postgres_cannot_store_is_400_naming_the_field_and_never_logged(env, caplog, text, field):
    caplog.set_level(logging.DEBUG)
    body = text.encode()
    big = app_for(env["pool"], sources=sources({"gh": {**CONFIG["gh"], "max_body_bytes": 200_000}}, ENV),
                  clock=lambda: float(NOW))
    async with client(big) as c:
        response = await c.post("/hooks/gh", content=body, headers={"content-type": "application/json", **sign_gh(body)})
    problem = response.json()
    assert (response.status_code, problem["status"], problem["field"]) == (400, 400, field), response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert MARK not in response.text and MARK not in caplog.text
    assert await _jobs(env) == []


async def test_an_unsigned_body_is_401_before_its_content_is_looked_at(env):
    body = b'{"a": "\\ud800"}'
    response = await _post(env, "gh", body, {"x-github-delivery": "gh-9"})
    assert response.status_code == 401 and response.json()["title"] == "Unauthorized"


@pytest.mark.parametrize("source", ["gh", "shop"])
async def test_a_signed_body_reposted_under_a_new_delivery_id_starts_no_second_job(env, caplog, source):
    caplog.set_level(logging.DEBUG)
    first = (await _post(env, source, BODY, SIGNERS[source](BODY, delivery="d-1"))).json()
    replay = await _post(env, source, BODY, SIGNERS[source](BODY, delivery="d-2"))
    assert replay.status_code == 202 and replay.json() == {**first, "duplicate": True}
    assert len(await _jobs(env)) == len(CONFIG[source]["automations"]) and len(env["received"]) == 1
    refused = [e for e in await env["queue"].ledger(first["jobs"][0]["id"]) if e["kind"] == "webhook_replay_refused"]
    assert [(e["actor"], e["detail"]["delivery_id"], e["detail"]["first_delivery_id"]) for e in refused] == \
        [(f"hook:{source}", "d-2", "d-1")]
    assert refused[0]["detail"]["sha256"] == hashlib.sha256(BODY).hexdigest()
    assert "ada@example.com" not in caplog.text and "refused a replayed body" in caplog.text
    async with client(env["app"], await create_token(env["pool"], f"m-{source}", ("read",))) as c:
        metrics = (await c.get("/metrics")).text.splitlines()
    assert 'cutover_webhook_replays_refused_total{automation="noop"} 1' in metrics
    # The sender's own retry of d-1 is still the ordinary duplicate.
    retry = (await _post(env, source, BODY, SIGNERS[source](BODY, delivery="d-1"))).json()
    assert retry == {**first, "duplicate": True}


async def test_a_body_older_than_the_replay_window_is_new_again(env):
    await _post(env, "gh", BODY, sign_gh(BODY, delivery="d-1"))
    env["clock"]["now"] = float(NOW + 24 * 3600 + 1)
    later = (await _post(env, "gh", BODY, sign_gh(BODY, delivery="d-2"))).json()
    assert later["duplicate"] is False and len(await _jobs(env)) == 2 * len(CONFIG["gh"]["automations"])


async def test_replay_protection_can_be_turned_off_and_is_off_for_schemes_that_sign_their_id(env):
    off = sources({"gh": {**CONFIG["gh"], "replay_window_s": 0}}, ENV)
    assert off["gh"].replay_window_s == 0
    assert sources(CONFIG, ENV)["sw"].replay_window_s == 0 and sources(CONFIG, ENV)["gh"].replay_window_s == 86400
    app = app_for(env["pool"], sources=off, clock=lambda: float(NOW))
    async with client(app) as c:
        for delivery in ("d-1", "d-2"):
            headers = {"content-type": "application/json", **sign_gh(BODY, delivery=delivery)}
            assert (await c.post("/hooks/gh", content=BODY, headers=headers)).json()["duplicate"] is False
    with pytest.raises(Exception, match="replay_window_s"):
        sources({"gh": {**CONFIG["gh"], "replay_window_s": -1}}, ENV)


async def test_concurrent_replays_under_new_ids_start_one_set_of_jobs(env):
    import asyncio

    async def post(delivery: str):
        return await _post(env, "shop", BODY, sign_shop(BODY, delivery=delivery))

    answers = await asyncio.gather(*(post(f"d-{i}") for i in range(6)))
    assert [a.status_code for a in answers] == [202] * 6
    assert sum(not a.json()["duplicate"] for a in answers) == 1 and len(await _jobs(env)) == 1

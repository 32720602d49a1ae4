"""Webhook verification schemes: published vectors, and every way a delivery can be wrong."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from queue_core.server.verify import Scheme, parse_stripe_header, verify
from queue_core.errors import VerificationError

# Standard Webhooks specification vector.
SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SW_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SW_TS = 1614265330
SW_BODY = b'{"test": 2432232314}'
SW_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

# GitHub's documented vector ("Validating webhook deliveries").
GH_SECRET = "It's a Secret to Everybody"
GH_BODY = b"Hello, World!"
GH_SIG = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

STRIPE_SECRET = "whsec_stripe_test_secret"
SHOPIFY_SECRET = "shpss_test_secret"
NOW = 1_700_000_000


def sw_headers(sig: str = SW_SIG, ts: int = SW_TS) -> dict[str, str]:
    return {"webhook-id": SW_ID, "webhook-timestamp": str(ts), "webhook-signature": sig}


def stripe_header(body: bytes, ts: int, secret: str = STRIPE_SECRET) -> str:
    return f"t={ts},v1=" + hmac.new(secret.encode(), f"{ts}.".encode() + body, hashlib.sha256).hexdigest()


def shopify_header(body: bytes, secret: str = SHOPIFY_SECRET) -> str:
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


def test_standard_webhooks_published_vector_verifies():
    verify(Scheme.STANDARD_WEBHOOKS, SW_SECRET, sw_headers(), SW_BODY, now=SW_TS)


def test_standard_webhooks_accepts_any_of_several_signatures_during_rotation():
    verify(Scheme.STANDARD_WEBHOOKS, SW_SECRET, sw_headers(f"v1,bm90LXRoaXM= {SW_SIG}"), SW_BODY, now=SW_TS)


@pytest.mark.parametrize(
    ("secret", "headers", "body", "now", "header"),
    [
        (SW_SECRET, sw_headers(), b'{"test": 2432232315}', SW_TS, "webhook-signature"),
        ("whsec_" + base64.b64encode(b"another key").decode(), sw_headers(), SW_BODY, SW_TS, "webhook-signature"),
        (SW_SECRET, sw_headers(), SW_BODY, SW_TS + 301, "webhook-signature"),
        (SW_SECRET, {"webhook-id": SW_ID, "webhook-timestamp": str(SW_TS)}, SW_BODY, SW_TS, "webhook-signature"),
    ],
    ids=["tampered-body", "wrong-secret", "stale-timestamp", "missing-header"],
)
def test_standard_webhooks_rejects(secret, headers, body, now, header):
    with pytest.raises(VerificationError) as caught:
        verify(Scheme.STANDARD_WEBHOOKS, secret, headers, body, now=now)
    assert caught.value.header == header


def test_github_published_vector_verifies():
    verify(Scheme.GITHUB, GH_SECRET, {"x-hub-signature-256": GH_SIG}, GH_BODY, now=NOW)


@pytest.mark.parametrize(
    ("secret", "headers", "body"),
    [
        (GH_SECRET, {"x-hub-signature-256": GH_SIG}, b"Hello, World?"),
        ("not the secret", {"x-hub-signature-256": GH_SIG}, GH_BODY),
        (GH_SECRET, {}, GH_BODY),
        (GH_SECRET, {"x-hub-signature-256": GH_SIG.replace("sha256=", "sha1=")}, GH_BODY),
    ],
    ids=["tampered-body", "wrong-secret", "missing-header", "wrong-algorithm"],
)
def test_github_rejects(secret, headers, body):
    with pytest.raises(VerificationError, match="x-hub-signature-256"):
        verify(Scheme.GITHUB, secret, headers, body, now=NOW)


def test_stripe_signature_verifies_within_tolerance():
    body = b'{"id": "evt_1", "type": "invoice.paid"}'
    verify(Scheme.STRIPE, STRIPE_SECRET, {"stripe-signature": stripe_header(body, NOW - 299)}, body, now=NOW)


def test_stripe_accepts_any_of_several_v1_signatures():
    body = b'{"id": "evt_1"}'
    header = stripe_header(body, NOW).replace(",v1=", ",v1=00ff,v0=abc,v1=")
    assert len(parse_stripe_header(header)[1]) == 2
    verify(Scheme.STRIPE, STRIPE_SECRET, {"stripe-signature": header}, body, now=NOW)


@pytest.mark.parametrize(
    ("secret", "header", "body", "match"),
    [
        (STRIPE_SECRET, stripe_header(b"{}", NOW), b'{"x": 1}', "matches no v1"),
        ("whsec_other", stripe_header(b"{}", NOW), b"{}", "matches no v1"),
        (STRIPE_SECRET, stripe_header(b"{}", NOW - 301), b"{}", "more than 300 s"),
        (STRIPE_SECRET, None, b"{}", "missing"),
        (STRIPE_SECRET, "v1=abc", b"{}", "no t="),
        (STRIPE_SECRET, f"t={NOW}", b"{}", "no v1="),
        (STRIPE_SECRET, "t=soon,v1=abc", b"{}", "not an integer"),
    ],
    ids=["tampered-body", "wrong-secret", "stale-timestamp", "missing-header", "no-timestamp", "no-signature",
         "bad-timestamp"],
)
def test_stripe_rejects(secret, header, body, match):
    headers = {} if header is None else {"stripe-signature": header}
    with pytest.raises(VerificationError, match=match):
        verify(Scheme.STRIPE, secret, headers, body, now=NOW)


def test_stripe_timestamp_in_the_signed_content_cannot_be_swapped():
    body = b"{}"
    forged = stripe_header(body, NOW - 1000).replace(f"t={NOW - 1000}", f"t={NOW}")
    with pytest.raises(VerificationError, match="matches no v1"):
        verify(Scheme.STRIPE, STRIPE_SECRET, {"stripe-signature": forged}, body, now=NOW)


def test_shopify_signature_verifies():
    body = b'{"id": 820982911946154508}'
    verify(Scheme.SHOPIFY, SHOPIFY_SECRET, {"x-shopify-hmac-sha256": shopify_header(body)}, body, now=NOW)


@pytest.mark.parametrize(
    ("secret", "headers", "body"),
    [
        (SHOPIFY_SECRET, {"x-shopify-hmac-sha256": shopify_header(b"{}")}, b"{ }"),
        ("another", {"x-shopify-hmac-sha256": shopify_header(b"{}")}, b"{}"),
        (SHOPIFY_SECRET, {}, b"{}"),
    ],
    ids=["tampered-body", "wrong-secret", "missing-header"],
)
def test_shopify_rejects(secret, headers, body):
    with pytest.raises(VerificationError, match="x-shopify-hmac-sha256"):
        verify(Scheme.SHOPIFY, secret, headers, body, now=NOW)


def test_bearer_secret_verifies():
    verify(Scheme.BEARER, "s3cret-value", {"authorization": "Bearer s3cret-value"}, b"{}", now=NOW)


@pytest.mark.parametrize(
    "headers",
    [{"authorization": "Bearer s3cret-valu"}, {"authorization": "Basic s3cret-value"}, {}],
    ids=["wrong-secret", "wrong-scheme", "missing-header"],
)
def test_bearer_rejects(headers):
    with pytest.raises(VerificationError) as caught:
        verify(Scheme.BEARER, "s3cret-value", headers, b"{}", now=NOW)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize("scheme", list(Scheme))
def test_rejection_messages_never_hold_the_secret_or_the_body(scheme):
    secret, body = "whsec_" + base64.b64encode(b"super-secret-key").decode(), b'{"card": "4242424242424242"}'
    with pytest.raises(VerificationError) as caught:
        verify(scheme, secret, {"authorization": "Bearer nope", "stripe-signature": "t=1,v1=ab",
                                "x-hub-signature-256": "sha256=ab", "x-shopify-hmac-sha256": "ab",
                                "webhook-id": "m", "webhook-timestamp": str(NOW), "webhook-signature": "v1,ab"},
               body, now=NOW)
    assert secret not in str(caught.value) and "4242" not in str(caught.value)

"""Verify inbound webhook deliveries: one pure function per sender's signature scheme.

Every check runs over the raw body bytes exactly as received, compares in constant time
(``hmac.compare_digest``), and takes the receiver's clock as an argument. A failure raises
:class:`~queue_core.errors.VerificationError` naming the header and what is wrong, never
the secret or the body.

=================  ==============================  ===========================================
scheme             signature header                signed content / timestamp
=================  ==============================  ===========================================
standard-webhooks  webhook-signature (v1,<b64> …)  ``{id}.{timestamp}.{body}``, webhook-timestamp
github             X-Hub-Signature-256             ``sha256=<hex HMAC(secret, body)>``, none
stripe             Stripe-Signature                ``t=<ts>,v1=<hex HMAC(secret, "ts.body")>``
shopify            X-Shopify-Hmac-Sha256           ``base64(HMAC(secret, body))``, none
bearer             Authorization: Bearer <secret>  a shared secret (no signature), none
=================  ==============================  ===========================================
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Mapping
from enum import StrEnum

from .. import signing
from ..errors import SignatureError, VerificationError

DEFAULT_TOLERANCE_S = 300


class Scheme(StrEnum):
    """A sender's way of proving a delivery is theirs."""

    STANDARD_WEBHOOKS = "standard-webhooks"
    GITHUB = "github"
    STRIPE = "stripe"
    SHOPIFY = "shopify"
    BEARER = "bearer"


# The header each sender puts its delivery id in: a retry of the same delivery repeats it.
DELIVERY_ID_HEADERS: dict[Scheme, str | None] = {
    Scheme.STANDARD_WEBHOOKS: "webhook-id",
    Scheme.GITHUB: "x-github-delivery",
    Scheme.STRIPE: None,  # Stripe repeats the event's "id" in the body instead
    Scheme.SHOPIFY: "x-shopify-webhook-id",
    Scheme.BEARER: "idempotency-key",
}

Verifier = Callable[[str, Mapping[str, str], bytes, int, int], None]


def _hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


def _required(headers: Mapping[str, str], name: str) -> str:
    value = headers.get(name, "").strip()
    if not value:
        raise VerificationError(f"header {name!r} is missing", header=name)
    return value


def _check_age(timestamp: int, now: int, tolerance: int, header: str) -> None:
    if abs(now - timestamp) > tolerance:
        raise VerificationError(f"header {header!r}: timestamp is more than {tolerance} s from now", header=header)


def verify_standard_webhooks(secret: str, headers: Mapping[str, str], body: bytes, now: int, tolerance: int) -> None:
    """Check ``webhook-signature`` (Standard Webhooks v1); several secrets may be space-separated."""
    try:
        signing.verify_standard_webhooks(secret, headers, body, now=now, tolerance=tolerance)
    except SignatureError as exc:
        raise VerificationError(str(exc), header="webhook-signature") from None


def github_signature(secret: str | bytes, body: bytes) -> str:
    """Return the ``X-Hub-Signature-256`` value GitHub sends for ``body``: ``sha256=<hex>``."""
    return "sha256=" + _hmac_sha256(secret.encode() if isinstance(secret, str) else secret, body).hex()


def verify_github(secret: str | bytes, headers: Mapping[str, str], body: bytes, now: int, tolerance: int) -> None:
    """Check ``X-Hub-Signature-256: sha256=<hex>`` (GitHub has no timestamp); the recorder uses it too."""
    given = _required(headers, "x-hub-signature-256")
    expected = github_signature(secret, body)
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise VerificationError("header 'x-hub-signature-256' does not match the body", header="x-hub-signature-256")


def parse_stripe_header(value: str) -> tuple[int, list[str]]:
    """Return (timestamp, v1 signatures) of a ``Stripe-Signature`` value; raise VerificationError."""
    timestamp: int | None = None
    signatures: list[str] = []
    for item in value.split(","):
        key, _, val = item.strip().partition("=")
        if key == "t":
            try:
                timestamp = int(val)
            except ValueError:
                raise VerificationError("header 'stripe-signature': t is not an integer", header="stripe-signature") from None
        elif key == "v1" and val:
            signatures.append(val)
    if timestamp is None:
        raise VerificationError("header 'stripe-signature' has no t=<timestamp>", header="stripe-signature")
    if not signatures:
        raise VerificationError("header 'stripe-signature' has no v1=<signature>", header="stripe-signature")
    return timestamp, signatures


def verify_stripe(secret: str, headers: Mapping[str, str], body: bytes, now: int, tolerance: int) -> None:
    """Check ``Stripe-Signature: t=<ts>,v1=<hex>[,v1=…]`` over ``"<ts>.<body>"``, with tolerance."""
    timestamp, signatures = parse_stripe_header(_required(headers, "stripe-signature"))
    expected = _hmac_sha256(secret.encode(), f"{timestamp}.".encode() + body).hex().encode()
    # Every candidate is compared, so the time taken does not depend on which one matches.
    matched = False
    for candidate in signatures:
        matched |= hmac.compare_digest(candidate.encode(), expected)
    if not matched:
        raise VerificationError("header 'stripe-signature' matches no v1 signature of the body", header="stripe-signature")
    # Checked after the signature so that a forged header cannot probe the clock.
    _check_age(timestamp, now, tolerance, "stripe-signature")


def verify_shopify(secret: str, headers: Mapping[str, str], body: bytes, now: int, tolerance: int) -> None:
    """Check ``X-Shopify-Hmac-Sha256: base64(HMAC-SHA256(secret, body))`` (no timestamp)."""
    given = _required(headers, "x-shopify-hmac-sha256")
    expected = base64.b64encode(_hmac_sha256(secret.encode(), body))
    if not hmac.compare_digest(given.encode(), expected):
        raise VerificationError("header 'x-shopify-hmac-sha256' does not match the body", header="x-shopify-hmac-sha256")


def verify_bearer(secret: str, headers: Mapping[str, str], body: bytes, now: int, tolerance: int) -> None:
    """Check ``Authorization: Bearer <shared secret>``: only for senders that can sign nothing."""
    scheme, _, given = _required(headers, "authorization").partition(" ")
    # Digests have equal lengths, so the comparison does not leak the secret's length either.
    same = hmac.compare_digest(hashlib.sha256(given.strip().encode()).digest(), hashlib.sha256(secret.encode()).digest())
    if scheme.lower() != "bearer" or not same:
        raise VerificationError("header 'authorization' does not carry the source's bearer secret", header="authorization")


VERIFIERS: dict[Scheme, Verifier] = {
    Scheme.STANDARD_WEBHOOKS: verify_standard_webhooks,
    Scheme.GITHUB: verify_github,
    Scheme.STRIPE: verify_stripe,
    Scheme.SHOPIFY: verify_shopify,
    Scheme.BEARER: verify_bearer,
}


def verify(
    scheme: Scheme, secret: str, headers: Mapping[str, str], body: bytes, *, now: int,
    tolerance: int = DEFAULT_TOLERANCE_S,
) -> None:
    """Return None when ``body`` with ``headers`` is a genuine delivery under ``secret``.

    ``headers`` names must be lower-case (as ASGI gives them); ``now`` is unix seconds. Raises
    VerificationError naming the header at fault; no message ever holds the secret or the body.
    """
    VERIFIERS[scheme](secret, headers, body, now, tolerance)

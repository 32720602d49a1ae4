"""Standard Webhooks signing: the published vector, rotation, and the official verifier."""

from __future__ import annotations

import base64
import time
from datetime import datetime, timezone

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from queue_core.signing import standard_webhooks_headers, verify_standard_webhooks
from queue_core.errors import SignatureError

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = 1614265330
BODY = '{"test": 2432232314}'
EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
OTHER_SECRET = "whsec_" + base64.b64encode(b"another key used during rotation").decode()


def test_signer_reproduces_the_published_test_vector() -> None:
    headers = standard_webhooks_headers(SECRET, MSG_ID, TIMESTAMP, BODY)
    assert headers == {"webhook-id": MSG_ID, "webhook-timestamp": str(TIMESTAMP), "webhook-signature": EXPECTED}


def test_signer_output_equals_the_official_packages_signature_for_the_vector() -> None:
    official = Webhook(SECRET).sign(MSG_ID, datetime.fromtimestamp(TIMESTAMP, tz=timezone.utc), BODY)
    assert standard_webhooks_headers(SECRET, MSG_ID, TIMESTAMP, BODY.encode())["webhook-signature"] == official


def test_official_verifier_accepts_our_headers_for_a_current_message() -> None:
    # The official verifier checks the timestamp against its own clock, so sign "now".
    now = int(time.time())
    headers = standard_webhooks_headers(SECRET, "msg_abc", now, BODY)
    assert Webhook(SECRET).verify(BODY, headers) == {"test": 2432232314}


def test_official_verifier_rejects_our_headers_after_the_body_changes() -> None:
    headers = standard_webhooks_headers(SECRET, "msg_abc", int(time.time()), BODY)
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify('{"test": 1}', headers)


def test_rotation_sends_one_signature_per_secret_and_each_verifies() -> None:
    now = int(time.time())
    headers = standard_webhooks_headers([SECRET, OTHER_SECRET], "msg_rot", now, BODY)
    entries = headers["webhook-signature"].split(" ")
    assert len(entries) == 2 and all(e.startswith("v1,") for e in entries)
    assert Webhook(SECRET).verify(BODY, headers) is not None
    assert Webhook(OTHER_SECRET).verify(BODY, headers) is not None


def test_a_whitespace_separated_secret_string_counts_as_a_rotation_list() -> None:
    joined = standard_webhooks_headers(f"{SECRET} {OTHER_SECRET}", MSG_ID, TIMESTAMP, BODY)
    listed = standard_webhooks_headers([SECRET, OTHER_SECRET], MSG_ID, TIMESTAMP, BODY)
    assert joined == listed


def test_verify_accepts_the_vector_within_tolerance_and_rejects_a_stale_one() -> None:
    headers = {"Webhook-Id": MSG_ID, "Webhook-Timestamp": str(TIMESTAMP), "Webhook-Signature": EXPECTED}
    verify_standard_webhooks(SECRET, headers, BODY, now=TIMESTAMP + 10)
    with pytest.raises(SignatureError, match="webhook-timestamp"):
        verify_standard_webhooks(SECRET, headers, BODY, now=TIMESTAMP + 301)


def test_verify_rejects_a_signature_made_with_another_secret() -> None:
    headers = standard_webhooks_headers(OTHER_SECRET, MSG_ID, TIMESTAMP, BODY)
    with pytest.raises(SignatureError, match="matches none"):
        verify_standard_webhooks(SECRET, headers, BODY, now=TIMESTAMP)


def test_verify_names_the_missing_header() -> None:
    with pytest.raises(SignatureError, match="webhook-signature"):
        verify_standard_webhooks(SECRET, {"webhook-id": "x", "webhook-timestamp": "1"}, BODY, now=1)


@pytest.mark.parametrize("secret", ["whsec_", "whsec_not base64!", ""])
def test_malformed_secrets_are_refused_without_echoing_them(secret: str) -> None:
    with pytest.raises(SignatureError) as info:
        standard_webhooks_headers([secret], MSG_ID, TIMESTAMP, BODY)
    assert "not base64!" not in str(info.value)

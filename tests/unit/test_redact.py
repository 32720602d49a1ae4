"""Redaction on ingest: deterministic pseudonyms for credentials, signatures and configured paths."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from harness.errors import RedactionError
from harness.manifest import Redaction
from harness.recording import ItemTrace, LegacyTrace, Platform, RecordedTrigger, TraceStatus
from harness.redact import (
    RedactionPolicy, parse_json_path, policy_from_settings, pseudonym, redact_headers, redact_json, redact_trace,
    redact_trigger,
)

SALT = b"per-set-salt"
POLICY = RedactionPolicy(SALT, json_paths=(("data", "object", "customer_email"), ("items", "*", "email")))


def test_the_same_value_under_the_same_salt_gives_the_same_pseudonym() -> None:
    assert pseudonym("jenny@example.com", SALT) == pseudonym("jenny@example.com", SALT)


def test_a_pseudonym_depends_on_the_value_and_the_salt() -> None:
    first = pseudonym("jenny@example.com", SALT)
    assert first != pseudonym("jenny@example.org", SALT)
    assert first != pseudonym("jenny@example.com", b"another-salt")


def test_a_pseudonym_has_a_fixed_prefix_and_24_hex_digits() -> None:
    value = pseudonym({"nested": [1, 2]}, SALT)
    assert value.startswith("redacted:")
    assert len(value) == len("redacted:") + 24
    int(value.removeprefix("redacted:"), 16)


def test_credential_cookie_and_signature_headers_are_replaced_and_others_kept() -> None:
    headers = {
        "Authorization": "Bearer s3cret", "Cookie": "session=1", "Set-Cookie": "a=b",
        "X-Hub-Signature-256": "sha256=abc", "Stripe-Signature": "t=1,v1=ff", "X-Shopify-Hmac-Sha256": "b64",
        "webhook-signature": "v1,xyz", "X-Acme-Signature": "zzz", "X-GitHub-Event": "issues",
        "Content-Type": "application/json",
    }
    redacted = redact_headers(headers, POLICY)
    kept = {"x-github-event": "issues", "content-type": "application/json"}
    assert {k: v for k, v in redacted.items() if k in kept} == kept
    others = {k: v for k, v in redacted.items() if k not in kept}
    assert len(others) == 8
    assert all(v.startswith("redacted:") for v in others.values())
    assert "s3cret" not in repr(redacted)


def test_configured_extra_header_names_are_redacted_too() -> None:
    policy = RedactionPolicy(SALT, headers=frozenset({"x-internal-token"}))
    assert redact_headers({"X-Internal-Token": "t"}, policy)["x-internal-token"].startswith("redacted:")


def test_json_paths_redact_nested_values_and_every_list_element() -> None:
    body = {"data": {"object": {"customer_email": "a@x.test", "amount": 5}}, "items": [{"email": "b@x.test"}, {"n": 1}]}
    redacted, replaced = redact_json(body, POLICY)
    assert redacted["data"]["object"]["amount"] == 5
    assert redacted["data"]["object"]["customer_email"] == pseudonym("a@x.test", SALT)
    assert redacted["items"] == [{"email": pseudonym("b@x.test", SALT)}, {"n": 1}]
    assert replaced == {"a@x.test": pseudonym("a@x.test", SALT), "b@x.test": pseudonym("b@x.test", SALT)}
    assert body["data"]["object"]["customer_email"] == "a@x.test"


def test_paths_that_do_not_match_leave_the_body_unchanged() -> None:
    body = {"data": "flat", "items": {"email": "not a list"}}
    assert redact_json(body, POLICY) == (body, {})


def test_redaction_is_idempotent() -> None:
    once, _ = redact_json({"data": {"object": {"customer_email": "a@x.test"}}}, POLICY)
    twice, _ = redact_json(once, POLICY)
    assert twice == once


def test_json_path_syntax_accepts_dollar_prefix_and_bracket_wildcards() -> None:
    assert parse_json_path("$.items[*].email") == ("items", "*", "email")
    assert parse_json_path("lines[].price") == ("lines", "*", "price")


@pytest.mark.parametrize("path", ["", "a..b", "$."])
def test_a_malformed_json_path_is_refused(path: str) -> None:
    with pytest.raises(RedactionError, match="malformed JSON path"):
        parse_json_path(path)


def test_a_trace_hides_the_values_its_trigger_redaction_replaced() -> None:
    at = datetime(2024, 6, 5, tzinfo=UTC)
    trigger = RecordedTrigger("evt_1", at, {}, {"data": {"object": {"customer_email": "a@x.test"}}}, "zapier")
    trace = LegacyTrace("evt_1", TraceStatus.SUCCEEDED, Platform.ZAPIER,
                        calls=[{"step": "send-email", "provider": "postmark", "method": "POST", "url": "/email",
                                "body": {"To": "a@x.test"}}])
    redacted_trigger, replaced = redact_trigger(trigger, POLICY)
    hidden = redact_trace(trace, replaced)
    assert hidden.calls[0]["body"]["To"] == redacted_trigger.body["data"]["object"]["customer_email"]
    assert "a@x.test" not in repr(hidden)


def test_a_traces_items_hide_the_replaced_values_in_their_keys_and_fields_too() -> None:
    at = datetime(2024, 6, 5, tzinfo=UTC)
    trigger = RecordedTrigger("evt_1", at, {}, {"data": {"object": {"customer_email": "a@x.test"}}}, "n8n")
    item = ItemTrace(key="a@x.test", decisions={"who": "a@x.test"}, outputs={"send": {"to": "a@x.test"}},
                     calls=[{"step": "send", "body": {"To": "a@x.test"}}], error="send: bounced a@x.test")
    trace = LegacyTrace("evt_1", TraceStatus.SUCCEEDED, Platform.N8N, items=[item])
    redacted_trigger, replaced = redact_trigger(trigger, POLICY)
    hidden = redact_trace(trace, replaced).items[0]
    pseudonym = redacted_trigger.body["data"]["object"]["customer_email"]
    assert (hidden.key, hidden.decisions["who"], hidden.calls[0]["body"]["To"]) == (pseudonym,) * 3
    assert "a@x.test" not in repr(hidden)


def test_a_policy_without_a_salt_names_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_SET_SALT", raising=False)
    with pytest.raises(RedactionError, match="MY_SET_SALT"):
        policy_from_settings(Redaction(salt_env="MY_SET_SALT"))


def test_a_policy_reads_its_salt_from_the_named_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SET_SALT", "abc")
    assert policy_from_settings(Redaction(salt_env="MY_SET_SALT", json_paths=("a.b",))).salt == b"abc"

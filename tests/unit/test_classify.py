"""Failure taxonomy: pure classification of responses and transport errors."""

from __future__ import annotations

import random
from email.utils import format_datetime
from datetime import datetime, timezone

import httpx
import pytest

from queue_core.classify import (
    Kind, RetryPolicy, Rule, classify_exception, classify_response, parse_retry_after, scrub, summarize,
)

NOW = 1_700_000_000.0
NO_JITTER = RetryPolicy(max_delay=300.0, jitter=0.0)


def classify(status: int, headers: dict[str, str] | None = None, body: str = "", **kw: object):
    kw.setdefault("policy", NO_JITTER)
    return classify_response(status, headers or {}, body, now=NOW, rng=random.Random(1), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("status", [200, 201, 204, 302])
def test_success_and_redirect_statuses_are_ok(status: int) -> None:
    assert classify(status).kind is Kind.OK


@pytest.mark.parametrize("status", [500, 502, 503, 504, 408])
def test_server_errors_and_request_timeouts_are_retryable(status: int) -> None:
    assert classify(status).kind is Kind.RETRYABLE


def test_a_429_is_rate_limited_not_retryable_so_it_uses_no_attempt() -> None:
    result = classify(429, {"Retry-After": "2"})
    assert (result.kind, result.reason, result.delay) == (Kind.RATE_LIMITED, "429 Too Many Requests", 2.0)


def test_an_override_may_call_another_status_a_rate_limit_with_its_retry_after() -> None:
    rule = Rule(kind=Kind.RATE_LIMITED, status=403, body_contains="secondary rate limit", reason="secondary limit")
    result = classify(403, {"Retry-After": "60"}, "You have exceeded a secondary rate limit", rules=(rule,))
    assert (result.kind, result.delay) == (Kind.RATE_LIMITED, 60.0)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 409, 410])
def test_client_errors_are_terminal(status: int) -> None:
    result = classify(status)
    assert result.kind is Kind.TERMINAL and result.delay is None


def test_retry_after_seconds_becomes_the_delay() -> None:
    assert classify(429, {"Retry-After": "7"}).delay == 7.0


def test_retry_after_http_date_is_measured_from_the_given_now() -> None:
    when = format_datetime(datetime.fromtimestamp(NOW + 42, tz=timezone.utc), usegmt=True)
    assert classify(503, {"retry-after": when}).delay == pytest.approx(42.0)


def test_retry_after_in_the_past_means_no_wait() -> None:
    when = format_datetime(datetime.fromtimestamp(NOW - 60, tz=timezone.utc), usegmt=True)
    assert parse_retry_after(when, NOW) == 0.0


def test_unparseable_retry_after_is_ignored() -> None:
    assert parse_retry_after("soon", NOW) is None
    assert classify(429, {"Retry-After": "soon"}).delay is None


def test_retry_after_is_capped_by_the_policy() -> None:
    result = classify(429, {"Retry-After": "86400"}, policy=RetryPolicy(max_delay=60.0, jitter=0.0))
    assert result.delay == 60.0


def test_jitter_only_adds_and_stays_within_its_fraction() -> None:
    policy = RetryPolicy(max_delay=300.0, jitter=0.5)
    delays = {classify_response(429, {"Retry-After": "10"}, "", now=NOW, rng=random.Random(seed), policy=policy).delay
              for seed in range(20)}
    assert all(d is not None and 10.0 <= d <= 15.0 for d in delays)
    assert len(delays) > 1


def test_jitter_is_deterministic_for_a_seeded_random() -> None:
    policy = RetryPolicy(jitter=0.5)
    a = classify_response(429, {"Retry-After": "10"}, "", now=NOW, rng=random.Random(7), policy=policy)
    b = classify_response(429, {"Retry-After": "10"}, "", now=NOW, rng=random.Random(7), policy=policy)
    assert a == b


def test_an_override_turns_a_quota_exhausted_429_terminal() -> None:
    rule = Rule(kind=Kind.TERMINAL, status=429, body_contains="quota exhausted", reason="daily quota exhausted")
    result = classify(429, {"Retry-After": "5"}, '{"error": "Daily Quota Exhausted"}', rules=(rule,))
    assert (result.kind, result.reason, result.delay) == (Kind.TERMINAL, "daily quota exhausted", None)


def test_an_override_that_does_not_match_leaves_the_default() -> None:
    rule = Rule(kind=Kind.TERMINAL, status=429, body_contains="quota exhausted")
    assert classify(429, {}, '{"error": "slow down"}', rules=(rule,)).kind is Kind.RATE_LIMITED


def test_overrides_match_on_header_presence_and_value_regex() -> None:
    rule = Rule(kind=Kind.RETRYABLE, header="X-Lock", header_regex=r"^busy", reason="locked")
    assert classify(409, {"x-lock": "busy until 12:00"}, rules=(rule,)).kind is Kind.RETRYABLE
    assert classify(409, {"x-lock": "gone"}, rules=(rule,)).kind is Kind.TERMINAL


def test_overrides_match_on_body_regex_and_first_match_wins() -> None:
    rules = (Rule(kind=Kind.OK, body_regex=r'"already_exists":\s*true', reason="exists"),
             Rule(kind=Kind.TERMINAL, status=409, reason="conflict"))
    assert classify(409, {}, '{"already_exists": true}', rules=rules).reason == "exists"
    assert classify(409, {}, '{"already_exists": false}', rules=rules).reason == "conflict"


def test_a_retryable_override_still_honours_retry_after() -> None:
    rule = Rule(kind=Kind.RETRYABLE, status=400, body_contains="try again")
    assert classify(400, {"Retry-After": "3"}, "please try again", rules=(rule,)).delay == 3.0


@pytest.mark.parametrize("exc", [httpx.ReadTimeout("read timed out"), httpx.ConnectTimeout("x"), TimeoutError()])
def test_timeouts_are_retryable(exc: BaseException) -> None:
    result = classify_exception(exc)
    assert result is not None and (result.kind, result.reason) == (Kind.RETRYABLE, "timeout")


@pytest.mark.parametrize("exc", [httpx.ConnectError("refused"), httpx.RemoteProtocolError("eof"), ConnectionResetError()])
def test_connection_errors_are_retryable(exc: BaseException) -> None:
    result = classify_exception(exc)
    assert result is not None and (result.kind, result.reason) == (Kind.RETRYABLE, "connection error")


def test_non_transport_exceptions_are_not_classified() -> None:
    assert classify_exception(KeyError("x")) is None


def test_summary_names_status_and_safe_headers_but_no_credentials() -> None:
    headers = {"Content-Type": "application/json", "Retry-After": "2", "Set-Cookie": "session=abc",
               "Authorization": "Bearer sk_live_abcdef123456"}
    body = '{"error": "bad", "api_key": "sk_live_abcdef123456", "token": "t0k3n"}'
    text = classify(429, headers, body).summary
    assert text.startswith("HTTP 429") and "retry-after=2" in text and "content-type=application/json" in text
    assert "sk_live_abcdef123456" not in text and "t0k3n" not in text and "session=abc" not in text


def test_summary_truncates_long_bodies() -> None:
    text = summarize(500, {}, "x " * 1000, limit=50)
    assert len(text) < 120 and "chars)" in text


@pytest.mark.parametrize("secret_text, leaked", [
    ("Authorization: Bearer abc.def-ghi", "abc.def-ghi"),
    ("password=hunter2&user=bob", "hunter2"),
    ('{"client_secret": "s3cr3t"}', "s3cr3t"),
    ("key whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw here", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    ("ghp_0123456789abcdefABCDEF0123456789abcd", "0123456789abcdefABCDEF"),
    ("opaque A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0 end", "A1b2C3d4E5f6G7h8I9j0"),
])
def test_scrub_masks_obvious_secrets(secret_text: str, leaked: str) -> None:
    assert leaked not in scrub(secret_text)


def test_scrub_keeps_ordinary_text() -> None:
    text = '{"error": "contact not found", "id": 12345, "email": "a@example.com"}'
    assert scrub(text) == text


def test_success_summary_leaves_the_body_out_but_a_failure_summary_keeps_it() -> None:
    ok = classify(200, {"Content-Type": "application/json"}, '{"email": "ada@example.com"}')
    assert ok.summary.startswith("HTTP 200") and "ada@example.com" not in ok.summary
    bad = classify(422, {}, '{"error": "email is invalid"}')
    assert "body: " in bad.summary and "email is invalid" in bad.summary

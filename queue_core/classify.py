"""Classify the outcome of an outbound call: ok, retryable or terminal, with a secret-free summary.

Pure: takes the status, headers and body (or the transport exception), the current unix time and
a ``random.Random`` for jitter; reads no clock and touches no connection. Order of evaluation,
first match wins:

1. the provider's override rules (``classify`` in its config), in the order configured;
2. timeouts, then connection errors (transport exceptions): retryable;
3. 429: rate limited, a put-back that uses no attempt (the gateway tightens the budget and
   counts it against the provider's ``max_rate_limited``), after ``Retry-After`` if given;
4. 5xx and 408: retryable, honouring ``Retry-After`` (seconds or HTTP-date), capped, jittered;
5. 400, 401, 403, 404, 422 (and every other 4xx): terminal;
6. 1xx-3xx: ok.
"""

from __future__ import annotations

import email.utils
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .redaction import scrub

TERMINAL_STATUSES = frozenset({400, 401, 403, 404, 422})
SUMMARY_HEADERS = (
    "content-type", "retry-after", "ratelimit", "ratelimit-policy", "ratelimit-limit",
    "ratelimit-remaining", "ratelimit-reset", "x-ratelimit-limit", "x-ratelimit-remaining",
    "x-ratelimit-reset", "x-request-id", "request-id",
)
class Kind(StrEnum):
    OK = "ok"
    RETRYABLE = "retryable"  # try again later; uses one of the job's attempts
    TERMINAL = "terminal"
    RATE_LIMITED = "rate_limited"  # the provider's limit: put back without using an attempt


@dataclass(frozen=True)
class Classification:
    """The verdict on one call: ``delay`` (seconds) only for retryable or rate-limited outcomes
    that carry one (``Retry-After``)."""

    kind: Kind
    delay: float | None
    reason: str
    summary: str


@dataclass(frozen=True)
class Rule:
    """A provider override: when every given condition holds, the call is ``kind``.

    ``header`` is a header name that must be present; ``header_regex`` (with ``header``) must
    also match its value. ``body_regex`` is searched, ``body_contains`` is a case-insensitive
    substring.
    """

    kind: Kind
    status: int | None = None
    body_contains: str | None = None
    body_regex: str | None = None
    header: str | None = None
    header_regex: str | None = None
    reason: str = "provider override"

    def matches(self, status: int, headers: Mapping[str, str], body: str) -> bool:
        """Return whether this rule applies to the response (``headers`` keys lower-case)."""
        if self.status is not None and status != self.status:
            return False
        if self.body_contains is not None and self.body_contains.lower() not in body.lower():
            return False
        if self.body_regex is not None and not re.search(self.body_regex, body):
            return False
        if self.header is not None:
            value = headers.get(self.header.lower())
            if value is None:
                return False
            if self.header_regex is not None and not re.search(self.header_regex, value):
                return False
        return True


@dataclass(frozen=True)
class RetryPolicy:
    """How ``Retry-After`` becomes a delay: capped at ``max_delay``, plus up to ``jitter`` x it."""

    max_delay: float = 300.0
    jitter: float = 0.1


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Return the wait a ``Retry-After`` value asks for, in seconds from ``now`` (never negative).

    Accepts delta-seconds and HTTP-dates; returns None when absent or unparseable.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # HTTP-dates are GMT by definition
        return None
    return max(0.0, when.timestamp() - now)


def retry_delay(retry_after: float | None, policy: RetryPolicy, rng: random.Random) -> float | None:
    """Return the delay for a retry: ``retry_after`` capped, plus jitter; None without one."""
    if retry_after is None:
        return None
    base = min(retry_after, policy.max_delay)
    return base + base * policy.jitter * rng.random()


def summarize(status: int, headers: Mapping[str, str], body: str, *, limit: int = 300) -> str:
    """Return a one-line, secret-free summary: status, a few safe headers, a truncated body."""
    lower = {k.lower(): v for k, v in headers.items()}
    shown = [f"{h}={scrub(lower[h])}" for h in SUMMARY_HEADERS if h in lower]
    clipped = body if len(body) <= limit else body[:limit] + f"…(+{len(body) - limit} chars)"
    parts = [f"HTTP {status}"] + shown + ([f"body: {scrub(' '.join(clipped.split()))}"] if body else [])
    return "; ".join(parts)


def classify_response(
    status: int,
    headers: Mapping[str, str],
    body: str,
    *,
    now: float,
    rng: random.Random,
    rules: tuple[Rule, ...] = (),
    policy: RetryPolicy = RetryPolicy(),
) -> Classification:
    """Classify an HTTP response; see the module docstring for the order of the checks."""
    lower = {k.lower(): v for k, v in headers.items()}
    # A success's body is stored with its step already; the summary exists to explain failures,
    # so only those pay for scrubbing a body (the hot path of a replay is all successes).
    summary = summarize(status, lower, body if status >= 300 else "")
    delay = retry_delay(parse_retry_after(lower.get("retry-after"), now), policy, rng)
    for rule in rules:
        if rule.matches(status, lower, body):
            rule_delay = delay if rule.kind in (Kind.RETRYABLE, Kind.RATE_LIMITED) else None
            return Classification(rule.kind, rule_delay, rule.reason, summary)
    if status == 429:
        return Classification(Kind.RATE_LIMITED, delay, "429 Too Many Requests", summary)
    if status >= 500:
        return Classification(Kind.RETRYABLE, delay, f"{status} server error", summary)
    if status == 408:
        return Classification(Kind.RETRYABLE, delay, "408 request timeout", summary)
    if status >= 400:
        named = "" if status in TERMINAL_STATUSES else " (unlisted 4xx)"
        return Classification(Kind.TERMINAL, None, f"{status} client error{named}", summary)
    return Classification(Kind.OK, None, f"{status} ok", summary)


def classify_exception(exc: BaseException) -> Classification | None:
    """Classify a transport failure (no response); return None for anything that is not one.

    Timeouts and connection errors are retryable (the idempotency key makes a resend safe even
    when the provider did act); a request httpx could not even build is terminal.
    """
    import httpx  # here, not at the top: the CLI reads provider tables without loading httpx

    summary = scrub(f"{type(exc).__name__}: {exc}")[:300]
    if isinstance(exc, (httpx.TimeoutException, TimeoutError)):
        return Classification(Kind.RETRYABLE, None, "timeout", summary)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.LocalProtocolError)):
        return Classification(Kind.TERMINAL, None, "request could not be sent", summary)
    if isinstance(exc, (httpx.TransportError, ConnectionError)):
        return Classification(Kind.RETRYABLE, None, "connection error", summary)
    return None

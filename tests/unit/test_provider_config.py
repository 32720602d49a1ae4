"""Provider configuration parsing and rate-limit header interpretation (pure)."""

from __future__ import annotations

from email.utils import format_datetime
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from queue_core.classify import Kind
from queue_core.config import read_table
from queue_core.errors import ConfigError
from queue_core.provider import (
    DEFAULT_GUARD, DEFAULT_MAX_RATE_LIMITED, Algorithm, Rate, BudgetScope, SigningScheme, parse_provider,
    parse_providers, parse_rate, tightening_from_headers,
)

NOW = 1_700_000_000.0
FULL = """
[tool.cutover.providers.hubspot]
base_url = "https://api.hubapi.com/"
sandbox_url = "https://sandbox.hubapi.test"
rate = ["10/1s", "500/1m"]
scope = "key"
max_in_flight = 8
auth_env = "HUBSPOT_TOKEN"
signing_secret_env = "HUBSPOT_WHSEC"
idempotency_header = "X-Idempotency-Key"
timeout = 5
max_retry_after = 60
[[tool.cutover.providers.hubspot.classify]]
status = 429
body_contains = "daily quota"
kind = "terminal"
reason = "daily quota exhausted"

[tool.cutover.providers.clearbit]
base_url = "https://company.clearbit.com"
"""


def test_a_full_provider_table_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(FULL)
    providers = parse_providers(read_table(path, "providers"), source=str(path))
    hub = providers["hubspot"]
    assert hub.base_url == "https://api.hubapi.com" and hub.sandbox_url == "https://sandbox.hubapi.test"
    assert [(r.limit, r.seconds) for r in hub.rates] == [(10, 1.0), (500, 60.0)]
    assert (hub.scope, hub.max_in_flight, hub.auth_env, hub.timeout) == (BudgetScope.KEY, 8, "HUBSPOT_TOKEN", 5.0)
    assert hub.signing_scheme is SigningScheme.STANDARD_WEBHOOKS and hub.idempotency_header == "X-Idempotency-Key"
    assert hub.retry.max_delay == 60.0
    assert hub.rules[0].kind is Kind.TERMINAL and hub.rules[0].status == 429


def test_defaults_apply_to_a_minimal_provider() -> None:
    cfg = parse_providers({"clearbit": {"base_url": "https://x.test"}})["clearbit"]
    assert (cfg.rates, cfg.scope, cfg.idempotency_header, cfg.auth_env, cfg.signing_scheme) == (
        (), BudgetScope.ACCOUNT, "Idempotency-Key", None, None)
    assert (cfg.algorithm, cfg.guard, cfg.max_rate_limited) == (Algorithm.SLIDING, DEFAULT_GUARD, DEFAULT_MAX_RATE_LIMITED)


@pytest.mark.parametrize("text, limit, seconds", [
    ("100/10s", 100, 10.0), ("500/1m", 500, 60.0), ("5/s", 5, 1.0), ("1000 / 1h", 1000, 3600.0),
    ("20/500ms", 20, 0.5), ("10000/1d", 10000, 86400.0),
])
def test_rates_parse_into_limit_and_window(text: str, limit: int, seconds: float) -> None:
    rate = parse_rate(text, "f")
    assert (rate.limit, rate.seconds) == (limit, seconds)


def provider(**body: Any):
    return parse_provider("p", {"base_url": "https://x.test", **body})


def test_a_rate_means_a_sliding_window_with_no_burst_of_its_own() -> None:
    cfg = provider(rate=["100/10s", "250000/1d"])
    assert cfg.algorithm is Algorithm.SLIDING
    assert [(r.limit, r.seconds, r.burst) for r in cfg.rates] == [(100, 10.0, 100), (250000, 86400.0, 250000)]


def test_other_ways_of_counting_are_configured_explicitly() -> None:
    assert provider(rate="60/1m", algorithm="fixed").algorithm is Algorithm.FIXED
    bucket = provider(rate="50/1s", algorithm="token_bucket", burst=10)
    assert bucket.algorithm is Algorithm.TOKEN_BUCKET and bucket.rates[0].burst == 10
    two = provider(rate=["10/1s", "500/1m"], algorithm="token_bucket", burst=[5, 500])
    assert [r.burst for r in two.rates] == [5, 500]
    assert parse_rate("50/1s", "f", burst=7).burst == 7 and parse_rate("50/1s", "f").burst == 50


def test_guard_and_max_rate_limited_are_read() -> None:
    cfg = provider(rate="20/1s", guard=0.05, max_rate_limited=3)
    assert (cfg.guard, cfg.max_rate_limited) == (0.05, 3)
    assert provider(rate="20/1s", guard=0).guard == 0.0


@pytest.mark.parametrize("table, field, words", [
    ({"base_url": "https://x.test", "rate": "100 per minute"}, "tool.cutover.providers.p.rate", "100/10s"),
    ({"base_url": "https://x.test", "rate": ["10/1s", "bad"]}, "tool.cutover.providers.p.rate[1]", "rate like"),
    ({"base_url": "https://x.test", "rate": ["10/1s", "20/1s"]}, "tool.cutover.providers.p.rate", "same window"),
    ({"base_url": "https://x.test", "rate": "0/1s"}, "tool.cutover.providers.p.rate", "positive"),
    ({}, "tool.cutover.providers.p.base_url", "missing"),
    ({"base_url": "ftp://x"}, "tool.cutover.providers.p.base_url", "http(s) URL"),
    ({"base_url": "https://x.test", "scope": "tenant"}, "tool.cutover.providers.p.scope", "'account', 'key'"),
    ({"base_url": "https://x.test", "auth_env": "Bearer sk_live_123"}, "tool.cutover.providers.p.auth_env",
     "NAME of an environment variable"),
    ({"base_url": "https://x.test", "max_in_flight": 0}, "tool.cutover.providers.p.max_in_flight", "positive"),
    ({"base_url": "https://x.test", "timeout": "5s"}, "tool.cutover.providers.p.timeout", "a number"),
    ({"base_url": "https://x.test", "rte": "5/s"}, "tool.cutover.providers.p.rte", "unknown key"),
    ({"base_url": "https://x.test", "signing_scheme": "hmac"}, "tool.cutover.providers.p.signing_scheme",
     "standard-webhooks"),
    ({"base_url": "https://x.test", "signing_scheme": "standard-webhooks"},
     "tool.cutover.providers.p.signing_secret_env", "needs signing_secret_env"),
    ({"base_url": "https://x.test", "classify": [{"status": 429}]}, "tool.cutover.providers.p.classify[0].kind",
     "missing 'kind'"),
    ({"base_url": "https://x.test", "classify": [{"kind": "terminal"}]}, "tool.cutover.providers.p.classify[0]",
     "at least one"),
    ({"base_url": "https://x.test", "classify": [{"kind": "fatal", "status": 1}]},
     "tool.cutover.providers.p.classify[0].kind", "'retryable'"),
    ({"base_url": "https://x.test", "classify": [{"kind": "ok", "body_regex": "("}]},
     "tool.cutover.providers.p.classify[0].body_regex", "regular expression"),
    # how the provider counts: burst only with a token bucket, which needs it
    ({"base_url": "https://x.test", "rate": "5/1s", "algorithm": "leaky"}, "tool.cutover.providers.p.algorithm",
     "'sliding', 'fixed', 'token_bucket'"),
    ({"base_url": "https://x.test", "rate": "5/1s", "burst": 3}, "tool.cutover.providers.p.burst",
     "only to algorithm = \"token_bucket\""),
    ({"base_url": "https://x.test", "rate": "5/1s", "algorithm": "fixed", "burst": 3},
     "tool.cutover.providers.p.burst", "'fixed'"),
    ({"base_url": "https://x.test", "rate": "5/1s", "algorithm": "token_bucket"}, "tool.cutover.providers.p.burst",
     "needs the provider's stated burst"),
    ({"base_url": "https://x.test", "rate": "5/1s", "algorithm": "token_bucket", "burst": 0},
     "tool.cutover.providers.p.burst", "positive integer"),
    ({"base_url": "https://x.test", "rate": "5/1s", "algorithm": "token_bucket", "burst": 6},
     "tool.cutover.providers.p.burst", "above the limit"),
    ({"base_url": "https://x.test", "rate": ["5/1s", "9/1m"], "algorithm": "token_bucket", "burst": [5, 10]},
     "tool.cutover.providers.p.burst[1]", "above the limit"),
    ({"base_url": "https://x.test", "rate": ["5/1s", "9/1m"], "algorithm": "token_bucket", "burst": [5]},
     "tool.cutover.providers.p.burst", "one burst per rate"),
    ({"base_url": "https://x.test", "algorithm": "fixed"}, "tool.cutover.providers.p.rate", "need a rate"),
    ({"base_url": "https://x.test", "rate": "5/1s", "headroom": 0.2}, "tool.cutover.providers.p.headroom",
     "headroom is gone"),
    ({"base_url": "https://x.test", "rate": "5/1s", "guard": -0.1}, "tool.cutover.providers.p.guard", "a number"),
    ({"base_url": "https://x.test", "max_rate_limited": 0}, "tool.cutover.providers.p.max_rate_limited",
     "positive"),
])
def test_bad_config_names_the_file_and_field(table: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_provider("p", table)
    assert info.value.field == field and info.value.source == "pyproject.toml"
    assert words in str(info.value) and "pyproject.toml" in str(info.value)


RATES = (Rate(100, 10.0, 90, "100/10s"), Rate(1000, 3600.0, 900, "1000/1h"))


def tighten(status: int, headers: dict[str, str], rates: tuple[Rate, ...] = RATES):
    return tightening_from_headers(status, headers, now=NOW, rates=rates)


def test_a_plain_200_without_rate_headers_changes_nothing() -> None:
    assert tighten(200, {"content-type": "application/json"}) is None


def test_a_200_with_plenty_remaining_changes_nothing() -> None:
    assert tighten(200, {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "60", "X-RateLimit-Reset": "4"},
                   rates=RATES[:1]) is None


def test_a_bare_429_fills_the_shortest_window_and_blocks_nothing_else() -> None:
    t = tighten(429, {})
    assert t is not None and t.full and (t.window, t.remaining, t.block_for, t.limit) == (10.0, None, None, None)


def test_a_429_concerns_the_window_its_policy_names() -> None:
    t = tighten(429, {"RateLimit-Policy": "1000;w=3600", "RateLimit": "limit=1000, remaining=0, reset=60"})
    assert t is not None and t.full and (t.window, t.block_for, t.remaining, t.reset) == (3600.0, 60.0, 0, 60.0)


def test_a_remaining_below_what_the_budget_believed_caps_it_until_the_reset() -> None:
    headers = {"RateLimit-Limit": "100", "RateLimit-Remaining": "3", "RateLimit-Reset": "4"}
    t = tighten(200, headers, rates=RATES[:1])
    assert t is None  # no belief to compare with: the provider counts what we count
    assert tightening_from_headers(200, headers, now=NOW, rates=RATES[:1], believed={10.0: 3}) is None
    t = tightening_from_headers(200, headers, now=NOW, rates=RATES[:1], believed={10.0: 40})
    assert t is not None and not t.full and (t.window, t.remaining, t.reset, t.block_for) == (10.0, 3, 4.0, None)


def test_retry_after_blocks_for_its_seconds_or_date() -> None:
    assert tighten(429, {"Retry-After": "12"}).block_for == 12.0  # type: ignore[union-attr]
    when = format_datetime(datetime.fromtimestamp(NOW + 30, tz=timezone.utc), usegmt=True)
    assert tighten(503, {"Retry-After": when}).block_for == pytest.approx(30.0)  # type: ignore[union-attr]


def test_ietf_combined_ratelimit_header_with_policy_lowers_that_window() -> None:
    t = tighten(200, {"RateLimit": "limit=50, remaining=0, reset=7", "RateLimit-Policy": "50;w=10"})
    assert t is not None and (t.block_for, t.limit, t.window) == (7.0, 50, 10.0)


def test_ietf_structured_field_form_is_understood() -> None:
    t = tighten(200, {"RateLimit": '"default";r=0;t=3', "RateLimit-Policy": '"default";q=80;w=10'})
    assert t is not None and (t.block_for, t.limit, t.window) == (3.0, 80, 10.0)


def test_a_reported_limit_above_configuration_never_loosens() -> None:
    assert tighten(200, {"RateLimit-Policy": "500;w=10", "RateLimit": "limit=500, remaining=400, reset=5"}) is None


def test_x_ratelimit_trio_with_an_epoch_reset_blocks_until_then() -> None:
    t = tighten(200, {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "0",
                      "X-RateLimit-Reset": str(int(NOW) + 20)}, rates=RATES[:1])
    assert t is not None and t.block_for == pytest.approx(20.0) and t.remaining == 0 and not t.full


def test_ratelimit_dash_headers_with_a_lower_limit_apply_to_the_only_window() -> None:
    t = tighten(200, {"RateLimit-Limit": "40", "RateLimit-Remaining": "30", "RateLimit-Reset": "2"},
                rates=RATES[:1])
    assert t is not None and (t.limit, t.window, t.remaining) == (40, 10.0, 30)
    assert "limit=40" in t.reason


def test_a_lower_limit_for_an_unknown_window_is_not_applied_to_a_guess() -> None:
    assert tighten(200, {"X-RateLimit-Limit": "40", "X-RateLimit-Remaining": "30"}) is None

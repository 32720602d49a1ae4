"""Provider configuration (``[tool.cutover.providers.<name>]``) and rate-limit response headers.

A provider table looks like::

    [tool.cutover.providers.hubspot]
    base_url = "https://api.hubapi.com"
    sandbox_url = "https://sandbox.hubapi.test"     # shadow jobs may call this instead
    rate = ["10/1s", "500/1m"]                      # or one string: "100/10s"
    algorithm = "sliding"                           # how the provider counts (below)
    guard = 0.005                                   # seconds each window is widened by (below)
    max_rate_limited = 20                           # 429s one call may get before the job fails
    scope = "account"                               # "account" | "key"
    max_in_flight = 8                               # per worker process
    auth_env = "HUBSPOT_TOKEN"                      # NAME of the env var holding a bearer token
    signing_secret_env = "HUBSPOT_WHSEC"            # NAME of the env var holding whsec_ secrets
    signing_scheme = "standard-webhooks"
    idempotency_header = "Idempotency-Key"
    timeout = 10.0                                  # seconds
    max_retry_after = 300                           # cap on honoured Retry-After, seconds
    [[tool.cutover.providers.hubspot.classify]]
    status = 429
    body_contains = "daily quota"
    kind = "terminal"
    reason = "daily quota exhausted"

``"N/Ts"`` means at most N calls in any window of T seconds, summed over every worker and
process that shares the budget: ``algorithm = "sliding"``, the default and the strictest reading.
A provider that counts differently is configured as such: ``"fixed"`` (windows aligned to the
Unix epoch, e.g. per calendar minute in UTC, each allowing N) or ``"token_bucket"`` with the
provider's stated ``burst`` (an integer, or one per rate). ``burst`` means nothing otherwise
and is refused. A call counts from its grant until its answer, and for a window after that
(the provider received it in between, whatever the delivery delays). ``guard`` widens each
sliding window (and closes each fixed window early) by that many seconds besides: for clocks
that do not tick alike, and for calls whose answer is never recorded (a worker that died).

A database is a provider too: ``base_url = "sql://<name>"`` (or ``kind = "sql"``) with ``dsn_env``,
the NAME of the env var holding its connection string; its calls run SQL statements
(``queue_core.gateway.sql``), and it takes no ``sandbox_url`` or ``auth_env``. So is a mail server, ``smtp://<name>``
(its ``smtp://user:password@host:port`` URL in ``dsn_env``), an SSH host, ``ssh://<name>`` (``ssh://user@host:port`` in
``dsn_env``: ``queue_core.gateway.ssh``), and the worker's own host, ``exec://<name>`` (commands, files; no secret).

Secrets never appear in config: only the names of the environment variables holding them, read
at call time. Parsing is pure and every error is a ConfigError naming the file and field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from ._external_ref import ExternalRefSpec, parse_external_ref
from .classify import Kind, RetryPolicy, Rule, parse_retry_after
from .errors import ConfigError

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)?\s*(ms|s|sec|m|min|h|d)\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
DEFAULT_GUARD = 0.005
DEFAULT_MAX_RATE_LIMITED = 20
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_KEYS = frozenset({
    "base_url", "sandbox_url", "rate", "scope", "max_in_flight", "auth_env", "signing_secret_env",
    "signing_scheme", "idempotency_header", "timeout", "max_retry_after", "classify",
    "algorithm", "burst", "guard", "max_rate_limited",
    "external_ref", "kind", "dsn_env",
})
_RULE_KEYS = frozenset({"status", "body_contains", "body_regex", "header", "header_regex", "kind", "reason"})


class BudgetScope(StrEnum):
    ACCOUNT = "account"  # one budget shared by every job
    KEY = "key"  # one budget per API key or per tenant value passed as ctx.call(scope_key=...)


class SigningScheme(StrEnum):
    STANDARD_WEBHOOKS = "standard-webhooks"


class ProviderKind(StrEnum):
    """What a provider is: a REST API (calls are HTTP requests), a database (calls run SQL), a host, …"""
    HTTP = "http"
    SQL = "sql"  # queue_core.gateway.sql runs each call's statements on the database at dsn_env
    SMTP = "smtp"  # queue_core.gateway.smtp sends each call's message through the mail server at dsn_env
    SSH = "ssh"  # queue_core.gateway.ssh runs each call's command on the SSH host at dsn_env
    EXEC = "exec"  # queue_core.gateway.exec runs each call's command (reads each file) on the worker's host


_NOT_HTTP = {k.value: k for k in ProviderKind if k is not ProviderKind.HTTP}


class Algorithm(StrEnum):
    """How the provider counts a rate ``N/T``; the budget counts the same way."""

    SLIDING = "sliding"  # at most N in any window of T seconds (the default)
    FIXED = "fixed"  # at most N in each window [kT, (k+1)T) of the Unix epoch
    TOKEN_BUCKET = "token_bucket"  # a bucket of ``burst`` refilled at N/T (the provider says so)


@dataclass(frozen=True)
class Rate:
    """At most ``limit`` calls per ``seconds``. ``burst`` is the bucket's size for a token-bucket
    provider; for the other algorithms it equals ``limit`` and means nothing."""

    limit: int
    seconds: float
    burst: int
    text: str


@dataclass(frozen=True)
class ProviderConfig:
    name: str
    base_url: str
    sandbox_url: str | None = None
    rates: tuple[Rate, ...] = ()
    scope: BudgetScope = BudgetScope.ACCOUNT
    algorithm: Algorithm = Algorithm.SLIDING
    guard: float = DEFAULT_GUARD
    max_rate_limited: int = DEFAULT_MAX_RATE_LIMITED
    max_in_flight: int | None = None
    auth_env: str | None = None
    signing_secret_env: str | None = None
    signing_scheme: SigningScheme | None = None
    idempotency_header: str = "Idempotency-Key"
    timeout: float = 30.0
    rules: tuple[Rule, ...] = ()
    retry: RetryPolicy = RetryPolicy()
    external_ref: ExternalRefSpec | None = None  # where a response names the created object
    stand_in: bool = False  # a replay's stand-in for a provider pyproject.toml does not configure
    kind: ProviderKind = ProviderKind.HTTP
    dsn_env: str | None = None  # a SQL provider: NAME of the env var holding its connection string

    def secret_env_names(self) -> tuple[str, ...]:
        """Return the names of every environment variable holding a secret of this provider.

        Every ``*_env`` field is one (a name, or a mapping or sequence of names): a secret
        added to the config later is redacted (queue_core.redaction) without a second list.
        """
        names: list[str] = []
        for spec in fields(self):
            value = getattr(self, spec.name) if spec.name.endswith("_env") else None
            if isinstance(value, str):
                names.append(value)
            elif isinstance(value, Mapping | list | tuple):
                names.extend(str(v) for v in (value.values() if isinstance(value, Mapping) else value))
        return tuple(names)


@dataclass(frozen=True)
class Tightening:
    """What a response says about our budget; the budget applies it, never above config.

    ``block_for`` stops all spending (every window) for that many seconds. The rest concern the
    window of ``window`` seconds (None: every configured window): ``full`` (a 429) counts it as
    spent up to its limit now, so it frees only as earlier calls age out of it; ``remaining``
    allows at most that many more calls until ``reset`` seconds from now (one window when None);
    ``limit`` lowers its effective limit.
    """

    reason: str
    block_for: float | None = None
    remaining: int | None = None
    limit: int | None = None
    window: float | None = None
    full: bool = False
    reset: float | None = None


def parse_rate(text: str, field: str, source: str = "pyproject.toml", *, burst: int | None = None) -> Rate:
    """Parse ``"<limit>/<n><unit>"`` (units ms, s, m, h, d; n defaults to 1) into a Rate.

    ``burst`` is a token-bucket provider's stated bucket size (at most the limit); without one
    the Rate's burst is its limit (sliding and fixed windows have no burst of their own).
    """
    m = _RATE.match(text) if isinstance(text, str) else None
    if m is None:
        raise ConfigError(f"expected a rate like '100/10s' or '500/1m', got {text!r}", source=source, field=field)
    limit, seconds = int(m.group(1)), float(m.group(2) or 1) * _UNIT_SECONDS[m.group(3)]
    if limit <= 0 or seconds <= 0:
        raise ConfigError(f"rate {text!r} must have a positive limit and window", source=source, field=field)
    return Rate(limit, seconds, limit if burst is None else burst, text.strip())


def parse_providers(table: Mapping[str, Any], *, source: str = "pyproject.toml") -> dict[str, ProviderConfig]:
    """Validate the ``providers`` table; return {name: ProviderConfig}.

    The table is read by :func:`queue_core.config.read_table` (``read_table(path, "providers")``,
    or ``Settings.raw["providers"]``), the one reader of pyproject.toml: parsing here is pure.
    """
    if not isinstance(table, Mapping):
        raise ConfigError("expected a table of providers", source=source, field="tool.cutover.providers")
    return {name: parse_provider(name, body, source=source) for name, body in table.items()}


def parse_provider(name: str, body: Any, *, source: str = "pyproject.toml") -> ProviderConfig:
    """Validate one provider table; raise ConfigError naming ``tool.cutover.providers.<name>.<key>``."""
    prefix = f"tool.cutover.providers.{name}"
    if not isinstance(body, Mapping):
        raise ConfigError("expected a table", source=source, field=prefix)
    unknown = sorted(set(body) - _KEYS - {"headroom"})  # headroom: refused by _rates, with its successor
    if unknown:
        raise ConfigError(
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}",
            source=source, field=f"{prefix}.{unknown[0]}",
        )
    get = _Getter(body, prefix, source)
    base = body.get("base_url")
    origin = base.split("://")[0] if isinstance(base, str) and "://" in base else ""  # sql:// a database, smtp:// mail
    kind = get.choice("kind", ProviderKind, _NOT_HTTP.get(origin, ProviderKind.HTTP)) or ProviderKind.HTTP
    if kind in _NOT_HTTP.values():
        return replace(parse_provider(name, {k: v for k, v in body.items() if k not in ("kind", "dsn_env")}
                                      | {"base_url": f"https://{name}.sql"}, source=source),
                       kind=kind, base_url=_sql_base(name, get, kind), dsn_env=_dsn_env(get, kind))
    algorithm = get.choice("algorithm", Algorithm, Algorithm.SLIDING) or Algorithm.SLIDING
    scheme = get.choice("signing_scheme", SigningScheme, None)
    signing_env = get.env_name("signing_secret_env")
    if scheme is not None and signing_env is None:
        raise ConfigError("signing_scheme needs signing_secret_env", source=source, field=f"{prefix}.signing_secret_env")
    return ProviderConfig(
        name=name,
        base_url=get.url("base_url", required=True) or "",
        sandbox_url=get.url("sandbox_url"),
        rates=_rates(body, prefix, algorithm, source),
        scope=get.choice("scope", BudgetScope, BudgetScope.ACCOUNT) or BudgetScope.ACCOUNT,
        algorithm=algorithm,
        guard=get.number("guard", DEFAULT_GUARD, minimum=0.0, maximum=60.0),
        max_rate_limited=get.integer("max_rate_limited") or DEFAULT_MAX_RATE_LIMITED,
        max_in_flight=get.integer("max_in_flight"),
        auth_env=get.env_name("auth_env"),
        signing_secret_env=signing_env,
        signing_scheme=scheme if scheme is not None else (SigningScheme.STANDARD_WEBHOOKS if signing_env else None),
        idempotency_header=get.header_name("idempotency_header", "Idempotency-Key"),
        timeout=get.number("timeout", 30.0, minimum=0.001),
        rules=_rules(body.get("classify", []), f"{prefix}.classify", source),
        retry=RetryPolicy(max_delay=get.number("max_retry_after", 300.0, minimum=0.0)),
        external_ref=parse_external_ref(body.get("external_ref"), f"{prefix}.external_ref", source),
    )


def _sql_base(name: str, get: _Getter, kind: ProviderKind = ProviderKind.SQL) -> str:
    """A SQL (SMTP) provider's base URL: ``sql://<name>`` (its calls' URLs name the operation under it)."""
    value = get.string("base_url") or f"{kind}://{name}"
    if not re.match(rf"^{kind}://[A-Za-z0-9_.-]+$", value):
        raise get.fail("base_url", f"{kind}://<name> (or nothing) for a kind = \"{kind}\" provider")
    if get.string("sandbox_url") is not None or get.string("auth_env") is not None:
        key = "sandbox_url" if "sandbox_url" in get.table else "auth_env"
        raise get.fail(key, "nothing: a SQL provider is never called in shadow, and its secret is dsn_env")
    return value


def _dsn_env(get: _Getter, kind: ProviderKind) -> str | None:
    value = get.env_name("dsn_env")
    if value is None and kind is not ProviderKind.EXEC:  # the worker's own host: no secret
        raise ConfigError("a kind = \"sql\" (or \"smtp\") provider needs dsn_env (the NAME of the env var holding its "
                          "connection string)", source=get.source, field=f"{get.prefix}.dsn_env")
    return value


def _rates(body: Mapping[str, Any], prefix: str, algorithm: Algorithm, source: str) -> tuple[Rate, ...]:
    """Parse ``rate`` (and, for a token bucket, ``burst``: one integer, or one per rate)."""
    value, field = body.get("rate"), f"{prefix}.rate"
    if "headroom" in body:
        raise ConfigError(
            "headroom is gone: a rate now means at most N calls in any window of T seconds, with no burst "
            "on top; for a provider that really is a token bucket, set algorithm = \"token_bucket\" and "
            "its stated burst = <calls>", source=source, field=f"{prefix}.headroom")
    bursts = _bursts(body, prefix, algorithm, source)
    if value is None:
        if "algorithm" in body or bursts is not None:
            raise ConfigError("algorithm and burst need a rate", source=source, field=field)
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise ConfigError("expected a rate string or a non-empty list of them", source=source, field=field)
    if bursts is not None and len(bursts) != len(items):
        raise ConfigError(f"expected one burst per rate ({len(items)}), got {len(bursts)}", source=source,
                          field=f"{prefix}.burst")
    rates = tuple(parse_rate(v, f"{field}[{i}]" if len(items) > 1 else field, source,
                             burst=None if bursts is None else bursts[i])
                  for i, v in enumerate(items))
    if len({r.seconds for r in rates}) != len(rates):
        raise ConfigError("two rates have the same window", source=source, field=field)
    for i, r in enumerate(rates):
        if r.burst > r.limit:
            raise ConfigError(f"burst {r.burst} is above the limit of rate {r.text!r}", source=source,
                              field=f"{prefix}.burst" + (f"[{i}]" if len(rates) > 1 else ""))
    return rates


def _bursts(body: Mapping[str, Any], prefix: str, algorithm: Algorithm, source: str) -> list[int] | None:
    field = f"{prefix}.burst"
    if "burst" not in body:
        if algorithm is Algorithm.TOKEN_BUCKET and body.get("rate") is not None:
            raise ConfigError("algorithm = \"token_bucket\" needs the provider's stated burst (calls)",
                              source=source, field=field)
        return None
    if algorithm is not Algorithm.TOKEN_BUCKET:
        raise ConfigError(f"burst applies only to algorithm = \"token_bucket\" (this provider's is "
                          f"{algorithm.value!r}: at most N calls in a window, no burst on top)",
                          source=source, field=field)
    value = body["burst"]
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(b, bool) or not isinstance(b, int) or b <= 0 for b in items):
        raise ConfigError(f"expected a positive integer (or one per rate), got {value!r}", source=source, field=field)
    return items


def _rules(value: Any, field: str, source: str) -> tuple[Rule, ...]:
    if not isinstance(value, list):
        raise ConfigError("expected an array of tables ([[...classify]])", source=source, field=field)
    return tuple(_rule(item, f"{field}[{i}]", source) for i, item in enumerate(value))


def _rule(item: Any, field: str, source: str) -> Rule:
    if not isinstance(item, Mapping):
        raise ConfigError("expected a table", source=source, field=field)
    unknown = sorted(set(item) - _RULE_KEYS)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_RULE_KEYS))}",
                          source=source, field=f"{field}.{unknown[0]}")
    get = _Getter(item, field, source)
    kind = get.choice("kind", Kind, None)
    if kind is None:
        raise ConfigError("missing 'kind' (retryable, rate_limited, terminal or ok)", source=source,
                          field=f"{field}.kind")
    conditions = ("status", "body_contains", "body_regex", "header")
    if not any(k in item for k in conditions):
        raise ConfigError(f"a rule needs at least one of {', '.join(conditions)}", source=source, field=field)
    return Rule(
        kind=kind,
        status=get.integer("status"),
        body_contains=get.string("body_contains"),
        body_regex=get.regex("body_regex"),
        header=get.header_name("header", None),
        header_regex=get.regex("header_regex"),
        reason=get.string("reason") or f"provider override ({kind})",
    )


class _Getter:
    """Typed reads from one TOML table, each failure a ConfigError naming the field."""

    def __init__(self, table: Mapping[str, Any], prefix: str, source: str) -> None:
        self.table, self.prefix, self.source = table, prefix, source

    def fail(self, key: str, expected: str) -> ConfigError:
        return ConfigError(f"expected {expected}, got {self.table.get(key)!r}", source=self.source,
                           field=f"{self.prefix}.{key}")

    def string(self, key: str) -> str | None:
        value = self.table.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise self.fail(key, "a non-empty string")
        return value

    def url(self, key: str, required: bool = False) -> str | None:
        value = self.string(key)
        if value is None and required:
            raise ConfigError("missing (the provider's base URL, e.g. 'https://api.example.com')",
                              source=self.source, field=f"{self.prefix}.{key}")
        if value is not None and not re.match(r"^https?://[^/\s]+", value):
            raise self.fail(key, "an http(s) URL")
        return value.rstrip("/") if value else None

    def env_name(self, key: str) -> str | None:
        value = self.string(key)
        if value is not None and not _ENV_NAME.match(value):
            raise self.fail(key, "the NAME of an environment variable (never the secret itself)")
        return value

    def header_name(self, key: str, default: str | None) -> str:
        value = self.string(key) or default
        if value is not None and not _HEADER_NAME.match(value):
            raise self.fail(key, "an HTTP header name")
        return value  # type: ignore[return-value]

    def regex(self, key: str) -> str | None:
        value = self.string(key)
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise self.fail(key, f"a valid regular expression ({exc})") from None
        return value

    def integer(self, key: str) -> int | None:
        value = self.table.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise self.fail(key, "a positive integer")
        return value

    def number(self, key: str, default: float, *, minimum: float, maximum: float = math.inf) -> float:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not minimum <= value <= maximum:
            raise self.fail(key, f"a number between {minimum} and {maximum}")
        return float(value)

    def choice(self, key: str, enum: Any, default: Any) -> Any:
        value = self.table.get(key)
        if value is None:
            return default
        try:
            return enum(value)
        except ValueError:
            raise self.fail(key, "one of " + ", ".join(repr(e.value) for e in enum)) from None


# -- rate-limit response headers -----------------------------------------------------------------

_ITEM_PARAM = re.compile(r';\s*([a-z]+)\s*=\s*("?)([^;,"]*)\2', re.I)


def _policy(value: str) -> tuple[int | None, float | None]:
    """Parse the first item of ``RateLimit-Policy``: ``10;w=1`` or ``"default";q=10;w=1``."""
    first = value.split(",")[0].strip()
    params = {k.lower(): v for k, _, v in _ITEM_PARAM.findall(first)}
    head = first.split(";")[0].strip()
    quota = params.get("q") or (head if head.isdigit() else None)
    window = params.get("w")
    return (int(quota) if quota and quota.isdigit() else None, float(window) if window and _is_num(window) else None)


def _ratelimit_field(value: str) -> dict[str, float]:
    """Parse ``RateLimit``: ``limit=10, remaining=5, reset=3`` or ``"default";r=5;t=3``."""
    out: dict[str, float] = {}
    for key, _, val in re.findall(r'([a-z]+)\s*=\s*("?)([^;,"\s]*)\2', value, re.I):
        name = {"r": "remaining", "t": "reset", "q": "limit"}.get(key.lower(), key.lower())
        if _is_num(val) and name not in out:
            out[name] = float(val)
    return out


def _is_num(text: str | None) -> bool:
    return text is not None and re.fullmatch(r"\d+(\.\d+)?", text.strip()) is not None


def _header_numbers(lower: Mapping[str, str], now: float) -> dict[str, float]:
    """Collect limit/remaining/reset from RateLimit, RateLimit-* and X-RateLimit-* headers."""
    found = _ratelimit_field(lower["ratelimit"]) if "ratelimit" in lower else {}
    for prefix in ("ratelimit-", "x-ratelimit-"):
        for name in ("limit", "remaining", "reset"):
            raw = lower.get(prefix + name, "").split(",")[0].split(";")[0].strip()
            if name not in found and _is_num(raw):
                found[name] = float(raw)
    if found.get("reset", 0) > 1_000_000_000:  # an epoch timestamp (GitHub style), not a delta
        found["reset"] = max(0.0, found["reset"] - now)
    return found


def tightening_from_headers(
    status: int, headers: Mapping[str, str], *, now: float, rates: tuple[Rate, ...],
    believed: Mapping[float, int] | None = None,
) -> Tightening | None:
    """Return how a response should tighten the budget, or None when it says nothing new.

    Acts on: a 429 (the window it concerns is full now, and it is not handed out again before
    its calls age out); ``Retry-After`` (block every window for it); remaining 0 with a reset
    (block until the reset); a remaining below what our budget ``believed`` was left of that
    window when it granted the call (someone else spends from the provider's count); a limit
    lower than the configured limit of the window it names. The window a signal concerns is the
    one ``RateLimit-Policy`` names (``w=``), else the only configured one, else the shortest;
    a lower limit is never applied to a guessed window. A remaining at or above what we believed
    is ignored: our own budget already counts our spending, and writing it on every response
    would double the budget's database load.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    nums = _header_numbers(lower, now)
    policy_limit, named = _policy(lower["ratelimit-policy"]) if "ratelimit-policy" in lower else (None, None)
    limit = policy_limit or (int(nums["limit"]) if "limit" in nums else None)
    if named is None and len(rates) == 1:
        named = rates[0].seconds
    configured = next((r.limit for r in rates if r.seconds == named), None)
    lower_limit = limit if (limit is not None and configured is not None and limit < configured) else None
    target = named if configured is not None else (min(r.seconds for r in rates) if rates else None)
    retry_after = parse_retry_after(lower.get("retry-after"), now)
    remaining = int(nums["remaining"]) if "remaining" in nums else None
    reset = nums.get("reset")
    block = retry_after
    if block is None and remaining == 0 and reset is not None:
        block = reset
    short = (remaining is not None and believed is not None and target is not None
             and remaining < believed.get(target, remaining))
    if status != 429 and block is None and lower_limit is None and not short:
        return None
    parts = [f"HTTP {status}"] + [f"{k}={v}" for k, v in (("retry-after", retry_after), ("remaining", remaining),
                                                           ("reset", reset), ("limit", limit), ("window", named))
                                   if v is not None]
    return Tightening(
        reason="provider signalled rate limit: " + ", ".join(parts),
        block_for=block,
        remaining=remaining,
        limit=lower_limit,
        window=target,
        full=status == 429,
        reset=reset,
    )

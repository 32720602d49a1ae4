"""The provider gateway: the one seam every outbound call of an automation goes through.

Pipeline of ``Gateway.call`` for a live job::

    stored call? ──same request, ok──▶ the stored response (no call)
        │ different request ─▶ IdempotencyConflictError
        ▼
    in-flight slot ─▶ rate budget (empty: Snooze) ─▶ Idempotency-Key = child key of the step
    ─▶ Authorization from the env var ─▶ Standard Webhooks signature ─▶ httpx ─▶ tighten the
    budget from rate-limit headers ─▶ classify ─▶ store + ledger ─▶ response | RetryableError |
    TerminalError

``dry_run`` and ``shadow`` jobs stop before the network: they record the intent and answer from
the harness's ``response_source``, a shadow sandbox, or a synthetic response. Their HTTP clients
are built on ``_GuardedTransport``, which raises NetworkBlockedError for any host but a shadow
sandbox, so no code path of those modes can reach a real provider.
"""

from __future__ import annotations

import asyncio
import hashlib
import json as jsonlib
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
import uuid
from typing import Any, Protocol, TypeAlias
from urllib.parse import urlencode

import httpx
from psycopg_pool import AsyncConnectionPool

from ._external_ref import extract_external_ref
from .budget import RECHECK_MARGIN_S, WAIT_IN_PROCESS_S, Budget, Checkout, InFlight, reservation_horizon, scope_key_for
from .classify import Classification, Kind, classify_exception, classify_response
from .errors import (
    ConfigError,
    ForeignURLError,
    IdempotencyConflictError,
    NetworkBlockedError,
    ProviderNotConfiguredError,
    RateLimited,
    RetryableError,
    Snooze,
    StandInURLError,
    TerminalError,
)
from .provider import ProviderConfig, SigningScheme, Tightening, tightening_from_headers
from .redaction import Redactor, credential_values, mask_headers
from .signing import standard_webhooks_headers
from .states import Mode

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PAUSE_RECHECK_S = 1.0


@dataclass(frozen=True)
class RecordedResponse:
    """A response the harness supplies for a shadow/dry-run call (from a recording)."""

    status: int = 200
    json: Any = None
    text: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def content(self) -> bytes:
        if self.text is not None:
            return self.text.encode()
        return b"" if self.json is None else jsonlib.dumps(self.json).encode()


@dataclass(frozen=True)
class OutboundRequest:
    """One call as prepared, without secrets: what is fingerprinted, recorded and (maybe) sent."""

    provider: str
    method: str
    url: str
    json: Any
    body: bytes | None
    headers: tuple[tuple[str, str], ...]
    idempotency_key: str
    fingerprint: str
    occurrence: int = 0  # which call at its step name in this run of the job (0 = the first)

    def intent(self, step: str, mode: str) -> dict[str, Any]:
        """Return the JSON intent recorded in the ledger and the decision trace (secret-free)."""
        return {
            "step": step, "occurrence": self.occurrence, "provider": self.provider, "method": self.method,
            "url": self.url,
            "body": self.json, "headers": dict(redact_headers(self.headers)),
            "idempotency_key": self.idempotency_key, "fingerprint": self.fingerprint, "mode": mode,
        }


@dataclass(frozen=True)
class StoredCall:
    """What the gateway stores with a step: the request's fingerprint and, once known, the outcome.

    ``status`` is None while the call was sent but no response recorded (or none came). JSON-safe
    through ``dataclasses.asdict``; ``StoredCall.coerce`` reads that form back.
    """

    fingerprint: str
    idempotency_key: str
    method: str
    url: str
    status: int | None = None
    kind: str | None = None
    reason: str | None = None
    summary: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""

    def as_json(self) -> dict[str, Any]:
        """The JSON form stored with the step (what ``asdict`` and a JSON round trip would give)."""
        return {"fingerprint": self.fingerprint, "idempotency_key": self.idempotency_key,
                "method": self.method, "url": self.url, "status": self.status, "kind": self.kind,
                "reason": self.reason, "summary": self.summary,
                "headers": [[name, value] for name, value in self.headers], "body": self.body}

    @classmethod
    def coerce(cls, value: StoredCall | Mapping[str, Any] | None) -> StoredCall | None:
        """Return ``value`` as a StoredCall (it may be the dict ``asdict`` made of one)."""
        if value is None or isinstance(value, StoredCall):
            return value
        data = dict(value)
        data["headers"] = tuple((str(k), str(v)) for k, v in data.get("headers") or ())
        return cls(**data)

    def response(self) -> httpx.Response:
        """Rebuild the recorded response (status, safe headers, body)."""
        return httpx.Response(self.status or 0, headers=list(self.headers), content=self.body.encode(),
                              request=httpx.Request(self.method, self.url))


ResponseSource: TypeAlias = Callable[[str, "str | None", str, OutboundRequest], "RecordedResponse | None"]


class CallContext(Protocol):
    """What the gateway needs from the job context of the calling automation.

    A call is identified by (step, occurrence): the n-th call at one step name in a run of the
    job has occurrence n. ``mode`` is ``live``, ``dry_run`` or ``shadow``.
    ``idempotency_key(step, occurrence)`` must be ``queue_core.keys.child_key`` of the job (or
    another key equally stable across retries and reclaims, distinct per occurrence).
    ``load_call`` returns the StoredCall of an earlier attempt (or its JSON form). ``begin_call``
    records a live call before it is sent (counting its attempt); ``finish_call`` stores the
    outcome, the external reference and the ledger event ``kind`` with ``detail`` in one
    transaction; both are fenced by the job's claim. ``record_intent`` appends to the decision
    trace; ``ledger`` appends a secret-free event.
    """

    @property
    def job_id(self) -> uuid.UUID: ...
    @property
    def automation(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def trigger_id(self) -> str | None: ...
    def idempotency_key(self, step: str, occurrence: int = 0) -> str: ...
    async def load_call(self, step: str, occurrence: int = 0) -> StoredCall | Mapping[str, Any] | None: ...
    async def begin_call(self, step: str, occurrence: int, stored: StoredCall) -> int: ...
    async def finish_call(self, step: str, occurrence: int, stored: StoredCall, external_ref: str | None,
                          kind: str, detail: dict[str, Any]) -> int: ...
    def record_intent(self, intent: dict[str, Any]) -> None: ...
    async def ledger(self, kind: str, detail: dict[str, Any]) -> None: ...


def redact_headers(headers: tuple[tuple[str, str], ...] | Mapping[str, str],
                   redactor: Redactor | None = None) -> tuple[tuple[str, str], ...]:
    """Return the headers with every credential's value replaced by ``[redacted]``
    (queue_core.redaction's header policy), the others' secrets masked by ``redactor``."""
    items = tuple(headers.items() if isinstance(headers, Mapping) else headers)
    return mask_headers(items, redactor, allow=_idempotency_names(items))


def _idempotency_names(headers: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """Our own child key's header, whatever a provider names it: a hash, needed to read the ledger."""
    return tuple(name for name, _ in headers if "idempotency" in name.lower())


def fingerprint(method: str, url: str, json: Any) -> str:
    """Return ``sha256:<hex>`` of the method, the URL with sorted query and the canonical body."""
    body = "" if json is None else _canonical_json(json)
    return _fingerprint(method, _canonical_url(str(httpx.URL(url))), body)


def _canonical_json(value: Any) -> str:
    return jsonlib.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonical_url(url: str) -> str:
    """``url`` (already normalised by httpx) with its query parameters sorted."""
    if "?" not in url:
        return url
    u = httpx.URL(url)
    return str(u.copy_with(params=httpx.QueryParams(sorted(u.params.multi_items()))))


def _fingerprint(method: str, canonical_url: str, canonical_body: str) -> str:
    digest = hashlib.sha256("\n".join((method.upper(), canonical_url, canonical_body)).encode())
    return "sha256:" + digest.hexdigest()


def resolve_url(config: ProviderConfig, url: str, params: Mapping[str, Any] | None) -> str:
    """Join ``url`` to the provider's base URL and merge ``params``; refuse foreign absolute URLs."""
    if url.startswith(("http://", "https://")):
        base = config.base_url
        if not (url == base or url.startswith((base + "/", base + "?"))):
            if config.stand_in:
                absolute = httpx.URL(url)
                raise StandInURLError(config.name, url, f"{absolute.scheme}://{absolute.netloc.decode('ascii')}")
            raise ForeignURLError(config.name, url, base)
        full = url
    else:
        full = config.base_url + ("" if url.startswith("/") else "/") + url
    u = httpx.URL(full)
    return str(u.copy_merge_params(dict(params)) if params else u)


def prepare(config: ProviderConfig, method: str, url: str, *, json: Any, params: Mapping[str, Any] | None,
            headers: Mapping[str, str] | None, key: str, data: Mapping[str, Any] | None = None) -> OutboundRequest:
    """Build the secret-free request of a call: URL, body bytes, headers, key, fingerprint.

    ``json`` is sent as JSON, ``data`` as an HTML form (``application/x-www-form-urlencoded``, what
    Stripe and OAuth token endpoints take): keys in sorted order, a list value as the key
    repeated, booleans as ``true``/``false``, ``None`` values left out. Raises TypeError for both.
    """
    if json is not None and data is not None:
        raise TypeError("a call takes json= or data= (a form), not both")
    full = resolve_url(config, url, params)
    # One encoding serves both: the body is sent with sorted keys, which is also its canonical
    # form for the fingerprint (JSON objects are unordered).
    if data is not None:
        form = form_body(data)
        canonical: str | None = "form:" + form  # never equal to a JSON body's fingerprint
        body: bytes | None = form.encode()
        content_type, recorded = "application/x-www-form-urlencoded", dict(data)
    else:
        canonical = None if json is None else _canonical_json(json)
        body = None if canonical is None else canonical.encode()
        content_type, recorded = "application/json", json
    merged = {k: v for k, v in (headers or {}).items() if k.lower() != config.idempotency_header.lower()}
    if body is not None:
        merged.setdefault("Content-Type", content_type)
    merged[config.idempotency_header] = key
    return OutboundRequest(config.name, method.upper(), full, recorded, body, tuple(merged.items()), key,
                           _fingerprint(method, _canonical_url(full), canonical or ""))


def form_body(data: Mapping[str, Any]) -> str:
    """Return ``data`` as a form body (see :func:`prepare`); raise TypeError for a nested value."""
    pairs: list[tuple[str, str]] = []
    for name in sorted(data):
        values = data[name] if isinstance(data[name], list | tuple) else [data[name]]
        for value in values:
            if value is None:
                continue
            if isinstance(value, dict | list | tuple):
                raise TypeError(f"form field {name!r}: a form value is a string, number or boolean, "
                                f"not a {type(value).__name__} (name nested fields 'a[b]')")
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            pairs.append((str(name), text))
    return urlencode(pairs)


class _GuardedTransport(httpx.AsyncBaseTransport):
    """Forward only to ``allowed`` origins (a shadow sandbox); raise NetworkBlockedError otherwise."""

    def __init__(self, mode: str, allowed: frozenset[str], inner: httpx.AsyncBaseTransport | None) -> None:
        self._mode, self._allowed, self._inner = mode, allowed, inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        origin = f"{request.url.scheme}://{request.url.netloc.decode()}"
        if origin not in self._allowed or self._inner is None:
            raise NetworkBlockedError(self._mode, str(request.url))
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


def _origin(url: str) -> str:
    u = httpx.URL(url)
    return f"{u.scheme}://{u.netloc.decode()}"


class Gateway:
    """Make automations' outbound calls: budgets, keys, auth, signing, classification, modes.

    ``providers`` come from ``provider.parse_providers``; ``pool`` backs the shared rate budgets
    (required when any provider has a rate). ``response_source(automation, trigger_id, step,
    request)`` answers shadow/dry-run calls from a recording. ``clock`` (unix seconds) and
    ``rng`` are injected for signing timestamps and jitter; ``transport`` replaces the live
    network (tests). ``environ`` is where auth and signing secrets are read, at call time.
    Use as ``async with Gateway(...) as gw`` or call ``aclose()``.
    """

    def __init__(
        self,
        providers: Mapping[str, ProviderConfig],
        pool: AsyncConnectionPool | None,
        *,
        response_source: ResponseSource | None = None,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if pool is None and any(p.rates for p in providers.values()):
            raise ConfigError("a connection pool is required for providers with a rate", field="pool")
        self.providers = dict(providers)
        self.budget = Budget(pool) if pool is not None else None
        self._source = response_source
        self._clock = clock
        self._rng = rng or random.Random()
        self._environ = environ if environ is not None else os.environ
        self._inflight = InFlight()
        self._sent_secrets: set[str] = set()  # credential header values automations passed to call()
        self._redactor_of: tuple[tuple[str | None, ...], Redactor] = ((), Redactor())
        self._refused_until: dict[tuple[str, str], float] = {}
        self._refusal_reason: dict[tuple[str, str], str] = {}
        self._next_wake: dict[tuple[str, str], float] = {}
        self._paused: dict[str, str] = {}
        self._pauses_read_at = float("-inf")
        self._live = httpx.AsyncClient(transport=transport or httpx.AsyncHTTPTransport())
        sandboxes = frozenset(_origin(p.sandbox_url) for p in providers.values() if p.sandbox_url)
        sandbox_inner = transport or httpx.AsyncHTTPTransport()
        self._sandbox = httpx.AsyncClient(transport=_GuardedTransport(Mode.SHADOW, sandboxes, sandbox_inner))
        self._blocked = httpx.AsyncClient(transport=_GuardedTransport(Mode.DRY_RUN, frozenset(), None))

    async def __aenter__(self) -> Gateway:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP clients (not the pool, which the caller owns)."""
        for client in (self._live, self._sandbox, self._blocked):
            await client.aclose()

    @property
    def redactor(self) -> Redactor:
        """The redaction of every secret this gateway knows: each provider's ``*_env`` values
        (read now, as calls read them) and the credential headers automations have sent."""
        values = (*(self._environ.get(name) for config in self.providers.values()
                    for name in config.secret_env_names()), *sorted(self._sent_secrets))
        if self._redactor_of[0] != values:  # built once per set of secrets: every settle asks
            self._redactor_of = (values, Redactor.of(values))
        return self._redactor_of[1]

    def client_for(self, mode: str) -> httpx.AsyncClient:
        """Return the only HTTP client ``mode`` may use: the network guard lives here."""
        return {Mode.LIVE: self._live, Mode.SHADOW: self._sandbox}.get(Mode(mode), self._blocked)

    async def call(self, ctx: CallContext, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   params: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None,
                   scope_key: str | None = None, occurrence: int = 0,
                   data: Mapping[str, Any] | None = None) -> httpx.Response:
        """Make call ``occurrence`` of step ``step`` of the job behind ``ctx``; return the response.

        The body is ``json`` (JSON) or ``data`` (a form; see :func:`prepare`), recorded as given.

        The key sent is the one stored with the call by an earlier attempt, else
        ``ctx.idempotency_key(step, occurrence)``: the same on every retry and reclaim.

        Raises Snooze when the rate budget is spent (no attempt used), RateLimited (a Snooze:
        no attempt used) after a 429 until the call's ``max_rate_limited``-th, RetryableError
        (with the provider's Retry-After as ``delay``) or TerminalError per the classification,
        IdempotencyConflictError when the step's key was used for a different request,
        ProviderNotConfiguredError, ForeignURLError, and ConfigError when a secret's env var is
        unset. A step whose call already succeeded returns the stored response without calling.
        """
        config = self.providers.get(provider)
        if config is None:
            raise ProviderNotConfiguredError(provider, list(self.providers))
        stored = StoredCall.coerce(await ctx.load_call(step, occurrence))
        key = stored.idempotency_key if stored is not None else ctx.idempotency_key(step, occurrence)
        req = prepare(config, method, url, json=json, params=params, headers=headers, key=key, data=data)
        if occurrence:
            req = replace(req, occurrence=occurrence)
        self._sent_secrets |= credential_values(req.headers, allow=_idempotency_names(req.headers))
        if stored is not None:
            if stored.fingerprint != req.fingerprint:
                raise IdempotencyConflictError(step, stored.fingerprint, req.fingerprint)
            if stored.kind == Kind.OK and stored.status is not None:
                await ctx.ledger("call_replayed", {"step": step, "occurrence": occurrence, "provider": provider,
                                                   "status": stored.status})
                return stored.response()
        if Mode(ctx.mode) is Mode.LIVE:
            return await self._live_call(ctx, config, req, step, scope_key, first=stored is None)
        return await self._offline_call(ctx, config, req, step)

    async def _live_call(self, ctx: CallContext, config: ProviderConfig, req: OutboundRequest, step: str,
                         scope_value: str | None, *, first: bool) -> httpx.Response:
        credential = self._secret(config, "auth_env")
        scope = scope_key_for(config, scope_value, credential)
        async with self._inflight.slot(config):
            grant = await self._spend(config, scope)
            # the fingerprint (and the attempt) go on record before the provider can see the key
            await ctx.begin_call(step, req.occurrence,
                                 StoredCall(req.fingerprint, req.idempotency_key, req.method, req.url))
            response, verdict = await self._send(self._live, config, req, credential)
        instruction = await self._tighten(ctx, config, scope, response, grant)
        if verdict.kind is Kind.RATE_LIMITED:
            await self._rate_limited(ctx, config, scope, req, step, response, verdict, instruction)
        return await self._settle(ctx, req, step, response, verdict, "call")

    async def _offline_call(self, ctx: CallContext, config: ProviderConfig, req: OutboundRequest,
                            step: str) -> httpx.Response:
        intent = self.redactor.data(req.intent(step, ctx.mode))
        ctx.record_intent(intent)
        await ctx.ledger("call_intent" if ctx.mode == Mode.SHADOW else "call_dry_run", intent)
        recorded = self._source(ctx.automation, ctx.trigger_id, step, req) if self._source else None
        response: httpx.Response | None
        if recorded is not None:
            response = httpx.Response(recorded.status, headers=dict(recorded.headers), content=recorded.content(),
                                      request=httpx.Request(req.method, req.url))
            verdict = self._classify(config, response)
        elif ctx.mode == Mode.SHADOW and config.sandbox_url:
            sandboxed = replace(req, url=config.sandbox_url + req.url[len(config.base_url):])
            response, verdict = await self._send(self.client_for(ctx.mode), config, sandboxed, None)
        elif ctx.mode == Mode.SHADOW and req.method in READ_METHODS:
            raise TerminalError(
                f"shadow: no recorded response for {req.method} {req.url} (automation {ctx.automation!r}, "
                f"trigger {ctx.trigger_id!r}, step {step!r}) and provider {config.name!r} has no sandbox_url")
        else:
            response = _synthetic(req, ctx.mode)
            verdict = self._classify(config, response)
        return await self._settle(ctx, req, step, response, verdict, "call_offline")

    async def _spend(self, config: ProviderConfig, scope: str) -> Checkout | None:
        """Check out one call's worth of budget, waiting in this process for a short refusal, or
        raise Snooze; return the grant (None for a provider without rates).

        The callers of one budget in this process take turns (``Budget.turn``, first come
        first served): the one whose turn it is sleeps out the last refusal's exact delay (old
        calls leaving the window; the database is not asked before) and checks out, again
        until granted, while the others queue behind it. While the latest grant left room, a
        caller lets the next one in before its own checkout, so several slots freed at once
        are taken at the database's pace. A caller whose grant cannot come within
        WAIT_IN_PROCESS_S of its arrival snoozes (no attempt used), woken spaced apart by
        ``_wake_slot``; so does one arriving while this process knows the budget refuses for
        longer than that, without asking the database. A token bucket's grant may be a slot
        reserved a little ahead (``reservation_horizon``): the call waits for it here.
        """
        await self._check_paused(config)
        if self.budget is None or not config.rates:
            return None
        key = (config.name, scope)
        wait = self._refused_until.get(key, 0.0) - self._clock()
        if wait > WAIT_IN_PROCESS_S:
            raise Snooze(self._wake_slot(key, config, wait), reason=self._refusal_reason[key], kind="budget_wait")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_IN_PROCESS_S
        turn = self.budget.turn(config, scope)
        holding = False
        try:
            while True:
                if not holding:
                    try:
                        await asyncio.wait_for(turn.lock.acquire(), deadline - loop.time())
                    except TimeoutError:  # the callers ahead of this one take longer than it may wait
                        wait = max(self._refused_until.get(key, 0.0) - self._clock(), 0.0)
                        reason = self._refusal_reason.get(key) or f"provider {config.name!r} rate budget spent"
                        raise Snooze(self._wake_slot(key, config, wait), reason=reason, kind="budget_wait") from None
                    holding = True
                # A refusal this process was given still holds: wait it out before asking again.
                wait = self._refused_until.get(key, 0.0) - self._clock()
                if wait > 0:
                    if loop.time() + wait > deadline:
                        raise Snooze(self._wake_slot(key, config, wait), reason=self._refusal_reason[key],
                                     kind="budget_wait")
                    await asyncio.sleep(wait + RECHECK_MARGIN_S)
                if turn.room > 0:  # the budget had room a moment ago: let the next caller in too
                    turn.room -= 1
                    turn.lock.release()
                    holding = False
                checkout = await self.budget.checkout(config, scope, horizon=reservation_horizon(config))
                if checkout.granted:
                    turn.room = min(checkout.remaining.values(), default=0)
                    break
                turn.room = 0
                self._refused_until[key] = self._clock() + checkout.delay
                self._refusal_reason[key] = checkout.reason or f"provider {config.name!r} rate budget spent"
        finally:
            if holding:
                turn.lock.release()
        if checkout.delay > 0:  # a token bucket's reserved slot
            await asyncio.sleep(checkout.delay)
        return checkout

    async def _check_paused(self, config: ProviderConfig) -> None:
        """Raise Snooze when an operator paused this provider (looked up at most once a second)."""
        if self.budget is None:
            return
        now = self._clock()
        if now >= self._pauses_read_at + PAUSE_RECHECK_S:
            self._paused = await self.budget.paused_providers()
            self._pauses_read_at = now
        reason = self._paused.get(config.name)
        if reason is not None:
            raise Snooze(PAUSE_RECHECK_S * 5, reason=f"provider {config.name!r} is paused: {reason}", kind="provider_paused")

    def _wake_slot(self, key: tuple[str, str], config: ProviderConfig, wait: float) -> float:
        """Return a snooze delay: ``wait``, then this process's snoozed callers one call interval
        (T/N of the fastest window) apart, wrapping around within one window.

        Waking every snoozed job when the first call is allowed again would have all but a few
        find the budget spent once more; spacing them at the rate's pace keeps the wake-ups
        (and, under a worker, the re-claims) near the rate at which calls are allowed. Wrapping
        within a window keeps a crowd of snoozers (a queue much longer than the budget) from
        pushing each other ever further out, which would leave the budget unspent while they
        wait: a caller that comes back to a spent budget simply snoozes again. Jittered by up to
        an interval. A provider without rates spaces them a second apart, within 10 s.
        """
        interval = min((r.seconds / r.limit for r in config.rates), default=1.0)
        span = max(min((r.seconds for r in config.rates), default=10.0), interval)
        offset = (self._next_wake.get(key, 0.0) + interval) % span
        self._next_wake[key] = offset
        return wait + offset + interval * self._rng.random()

    async def _send(self, client: httpx.AsyncClient, config: ProviderConfig, req: OutboundRequest,
                    credential: str | None) -> tuple[httpx.Response | None, Classification]:
        headers = dict(req.headers)
        if credential:
            headers["Authorization"] = f"Bearer {credential}"
        if config.signing_scheme is SigningScheme.STANDARD_WEBHOOKS:
            secret = self._secret(config, "signing_secret_env") or ""
            headers.update(standard_webhooks_headers(secret, f"msg_{req.idempotency_key}", int(self._clock()),
                                                     req.body or b""))
        try:
            response = await client.request(req.method, req.url, content=req.body, headers=headers,
                                            timeout=config.timeout)
        except Exception as exc:
            verdict = classify_exception(exc)
            if verdict is None:
                raise
            return None, verdict
        return response, self._classify(config, response)

    def _classify(self, config: ProviderConfig, response: httpx.Response) -> Classification:
        return classify_response(response.status_code, response.headers, response.text, now=self._clock(),
                                 rng=self._rng, rules=config.rules, policy=config.retry)

    async def _tighten(self, ctx: CallContext, config: ProviderConfig, scope: str, response: httpx.Response | None,
                       grant: Checkout | None = None) -> Tightening | None:
        """After a live call's answer (``response``; None after a transport error), in one
        statement: tell the budget the call ``grant`` was answered now, so that it counts from
        here on (``Budget.answered``), and tighten it from what the response says of the
        provider's limit; return that.

        A remaining below what the grant left is a signal too (someone else spends from the
        provider's count), and the calls granted after it are in flight, not in that remaining.
        """
        instruction = None
        if response is not None:
            instruction = tightening_from_headers(response.status_code, response.headers, now=self._clock(),
                                                  rates=config.rates, believed=grant.remaining if grant else None)
        if self.budget is None or not config.rates:
            return instruction
        if grant is not None:
            await self.budget.answered(config, scope, grant, instruction)
        elif instruction is not None:
            await self.budget.tighten(config, scope, instruction)
        if instruction is not None:
            await ctx.ledger("budget_tightened", {"provider": config.name, "scope_key": scope,
                                                  "reason": instruction.reason})
        return instruction

    async def _rate_limited(self, ctx: CallContext, config: ProviderConfig, scope: str, req: OutboundRequest,
                            step: str, response: httpx.Response | None, verdict: Classification,
                            instruction: Tightening | None) -> None:
        """The 429 branch: store the answer, then raise RateLimited, a put-back that uses no attempt.

        It comes back after the provider's ``Retry-After`` (or its reset of a spent window),
        capped by ``max_retry_after``, else after one call interval (the budget, tightened by
        the answer, then says how long to wait). Each 429 of the call is counted in the
        database; the provider's ``max_rate_limited``-th fails the job terminally instead,
        naming the provider. Without a database there is nowhere to count: the 429 is then
        retryable as any other failure (it uses an attempt).
        """
        if self.budget is None:
            await self._settle(ctx, req, step, response, replace(verdict, kind=Kind.RETRYABLE), "call")
            return
        count = await self.budget.count_rate_limited(ctx.job_id, req.idempotency_key, config.name)
        if count >= config.max_rate_limited:
            reason = (f"provider {config.name!r} answered 429 Too Many Requests {count} times to this call "
                      f"(max_rate_limited = {config.max_rate_limited}); giving up")
            await self._settle(ctx, req, step, response, replace(verdict, kind=Kind.TERMINAL, reason=reason), "call")
            return
        blocked = min(instruction.block_for, config.retry.max_delay) if instruction and instruction.block_for else 0.0
        delay = max(verdict.delay or 0.0, blocked)
        if delay <= 0:
            delay = self._wake_slot((config.name, scope), config, 0.0)
        message = self.redactor.text(f"{req.provider} {req.method} {req.url} (step {step!r}): {verdict.reason} "
                                     f"({count} of max_rate_limited {config.max_rate_limited}); {verdict.summary}")
        try:
            await self._settle(ctx, req, step, response, verdict, "call")
        except TerminalError:  # _settle's verdict for a kind it does not raise itself: put back instead
            pass
        raise RateLimited(delay, message, provider=config.name, count=count)

    async def _settle(self, ctx: CallContext, req: OutboundRequest, step: str, response: httpx.Response | None,
                      verdict: Classification, kind: str) -> httpx.Response:
        """Store the call's outcome (redacted: what the provider echoed of a secret is never kept)
        with its ledger event; return the response, or raise what its verdict says."""
        status = response.status_code if response is not None else None
        redactor = self.redactor
        url, reason, summary = redactor.data(req.url), redactor.text(verdict.reason), redactor.text(verdict.summary)
        stored = StoredCall(
            req.fingerprint, req.idempotency_key, req.method, url, status, verdict.kind.value, reason, summary,
            redact_headers(tuple(response.headers.items()), redactor) if response is not None else (),
            redactor.data(response.text) if response is not None else "")
        ok = verdict.kind is Kind.OK
        ref = extract_external_ref(self.providers[req.provider].external_ref, response) if ok else None
        await ctx.finish_call(step, req.occurrence, stored, ref, kind, {
            "step": step, "occurrence": req.occurrence, "provider": req.provider, "method": req.method,
            "url": url, "idempotency_key": req.idempotency_key, "status": status,
            "classification": verdict.kind.value, "reason": reason, "summary": summary,
            "external_ref": ref})
        if verdict.kind is Kind.OK and response is not None:
            return response
        message = f"{req.provider} {req.method} {url} (step {step!r}): {reason}; {summary}"
        if verdict.kind is Kind.RETRYABLE:
            raise RetryableError(message, delay=verdict.delay)
        raise TerminalError(message)

    def _secret(self, config: ProviderConfig, attr: str) -> str | None:
        name: str | None = getattr(config, attr)
        if name is None:
            return None
        value = self._environ.get(name)
        if not value:
            raise ConfigError(f"environment variable {name} is not set (provider {config.name!r})",
                              source="environment", field=f"tool.cutover.providers.{config.name}.{attr}")
        return value


def _synthetic(req: OutboundRequest, mode: str) -> httpx.Response:
    """Return the stand-in response of an unrecorded dry-run/shadow call (marked as synthetic)."""
    return httpx.Response(200, json={"synthetic": True, "mode": mode, "idempotency_key": req.idempotency_key},
                          headers={"X-Cutover-Synthetic": mode}, request=httpx.Request(req.method, req.url))

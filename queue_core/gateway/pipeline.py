"""The Gateway: the pipeline every outbound call of an automation goes through (see the package).

It decides and sends; it writes nothing of the job's: it returns a CallRecord for the job to
store (queue_core.gateway.record). Its own state is this process's view of shared budgets (whose
turn it is, the last refusal, provider pauses) and the secrets it has seen, for redaction.
"""

from __future__ import annotations

import asyncio
import hashlib
import json as jsonlib
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import httpx
from psycopg_pool import AsyncConnectionPool

from .._external_ref import extract_external_ref
from ..budget import RECHECK_MARGIN_S, WAIT_IN_PROCESS_S, Budget, Checkout, InFlight, reservation_horizon, scope_key_for
from ..classify import Classification, Kind, classify_exception, classify_response
from ..errors import (
    ConfigError,
    IdempotencyConflictError,
    JobSignal,
    NetworkBlockedError,
    ProviderNotConfiguredError,
    RateLimited,
    RetryableError,
    Snooze,
    TerminalError,
)
from ..provider import ProviderConfig, SigningScheme, tightening_from_headers
from ..redaction import Redactor, credential_values
from ..signing import standard_webhooks_headers
from ..states import Mode
from .binary import FilePart, is_binary
from .record import Answer, CallJob, CallRecord, Spend
from .secrets import KnownSecrets
from .kinds import live_mounts
from .request import (
    RECORDED_HEADER, SECRET_SEGMENT, OutboundRequest, RecordedResponse, ResponseSource, StoredCall, idempotency_names, parsed_url,
    prepare, redact_headers,
)

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PAUSE_RECHECK_S = 1.0
OFFLINE_VERDICTS = 4096  # remembered classifications of offline answers (see Gateway._classify_offline)


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
        self._secrets = KnownSecrets(self._environ)  # for redaction
        self._refused_until: dict[tuple[str, str], float] = {}
        self._refusal_reason: dict[tuple[str, str], str] = {}
        self._next_wake: dict[tuple[str, str], float] = {}
        self._paused: dict[str, str] = {}
        self._pauses_read_at = float("-inf")
        self._offline_verdicts: dict[tuple[int, tuple[tuple[bytes, bytes], ...]], Classification] = {}
        # a SQL provider's sql:// origin is its database, ssh:// a host, … (queue_core.gateway.kinds): on the live client only
        self._live = httpx.AsyncClient(transport=transport or httpx.AsyncHTTPTransport(),
                                       mounts=live_mounts(providers, self._environ))
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
        return self._secrets.redactor(self.providers)

    def recorded(self, automation: str, trigger_id: str | None, step: str) -> RecordedResponse | None:
        """Return the recording's answer for ``step`` of a shadow/dry-run job, without a call.

        For a runtime that replays a legacy node whose work is outside this project (an n8n
        sub-workflow not in the scaffolded estate): the node's recorded output answers it, and no
        intent is recorded, as nothing is sent. None without a recording or an entry for ``step``.
        """
        if self._source is None:
            return None
        request = OutboundRequest("", "GET", "", None, None, (), "", "")
        return self._source(automation, trigger_id, step, request)

    def client_for(self, mode: str) -> httpx.AsyncClient:
        """Return the only HTTP client ``mode`` may use: the network guard lives here."""
        return {Mode.LIVE: self._live, Mode.SHADOW: self._sandbox}.get(Mode(mode), self._blocked)

    async def call(self, ctx: CallJob, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   params: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None,
                   scope_key: str | None = None, occurrence: int = 0,
                   data: Mapping[str, Any] | None = None, files: Mapping[str, FilePart] | None = None,
                   content: bytes | None = None, anonymous: bool = False) -> CallRecord:
        """Make call ``occurrence`` of step ``step`` of the job behind ``ctx``; return its record.

        The job stores the record (``CallRecord``: its step row and ledger event in one
        statement), then ``record.outcome()`` returns the response or raises its signal.

        The body is ``json`` (JSON) or ``data`` (a form; see :func:`prepare`), recorded as given;
        with ``files`` a multipart form and ``content`` raw bytes, recorded by size and sha256, not bytes;
        ``anonymous``: sent without the provider's secret (a session URL the provider handed out).
        A binary answer's bytes are not stored either (its size and sha256 are): a retry of a step
        whose binary answer was stored calls again, under the same idempotency key.

        The key sent is the one stored with the call by an earlier attempt, else
        ``ctx.idempotency_key(step, occurrence)``: the same on every retry and reclaim.

        Raises Snooze when the rate budget is spent (no attempt used), LeaseLostError (nothing
        spent, nothing sent) from ``ctx.begin_call``, IdempotencyConflictError when the step's
        key was used for a different request, ProviderNotConfiguredError, ForeignURLError, and
        ConfigError when a secret's env var is unset. The outcome raises RateLimited (a Snooze:
        no attempt used) after a 429 until the call's ``max_rate_limited``-th, RetryableError
        (with the provider's Retry-After as ``delay``) or TerminalError per the classification.
        A step whose call already succeeded is replayed: its stored response, no call.
        """
        config = self.providers.get(provider)
        if config is None:
            raise ProviderNotConfiguredError(provider, list(self.providers))
        stored = StoredCall.coerce(await ctx.load_call(step, occurrence))
        key = stored.idempotency_key if stored is not None else ctx.idempotency_key(step, occurrence)
        req = prepare(config, method, url, json=json, params=params, headers=headers, key=key, data=data,
                      files=files, content=content)
        if occurrence or anonymous:
            req = replace(req, occurrence=occurrence, anonymous=anonymous)
        self._secrets.add_sent(credential_values(req.headers, allow=idempotency_names(req.headers)))
        if stored is not None:
            if stored.fingerprint != req.fingerprint:
                raise IdempotencyConflictError(step, stored.fingerprint, req.fingerprint)
            if stored.kind == Kind.OK and stored.status is not None and stored.body_sha256 is None:
                return CallRecord(step, req, stored.response(), None, stored, event="call_replayed", replayed=True,
                                  detail={"step": step, "occurrence": occurrence, "provider": provider,
                                          "status": stored.status})
        if Mode(ctx.mode) is Mode.LIVE:
            return await self._live_call(ctx, config, req, step, scope_key)
        return await self._offline_call(ctx, config, req, step)

    async def _live_call(self, ctx: CallJob, config: ProviderConfig, req: OutboundRequest, step: str,
                         scope_value: str | None) -> CallRecord:
        credential = self._secret(config, "auth_env")
        scope = scope_key_for(config, scope_value, credential)
        spend = Spend(self.budget, config, scope, reservation_horizon(config)) \
            if self.budget is not None and config.rates else None
        # The fingerprint (and the attempt) go on record before the provider can see the key, in
        # the statement that spends the budget, fenced by the claim: a lost lease spends nothing.
        begun = StoredCall(req.fingerprint, req.idempotency_key, req.method, req.url)
        async with self._inflight.slot(config):
            grant = await self._spend(config, spend, lambda s: ctx.begin_call(step, req.occurrence, begun, s))
            response, verdict = await self._send(self._live, config, req, credential)
        answer = self._answer(config, spend, response, grant)
        if verdict.kind is Kind.RATE_LIMITED:
            return await self._rate_limited(ctx, config, scope, req, step, response, verdict, answer)
        return self._record(req, step, response, verdict, "call", answer)

    async def _offline_call(self, ctx: CallJob, config: ProviderConfig, req: OutboundRequest,
                            step: str) -> CallRecord:
        """Answer a shadow/dry-run call without the provider; the intent goes on record whatever
        happens next (a refusal here is the record's signal, raised after the intent is kept)."""
        intent = self.redactor.data(req.intent(step, ctx.mode))
        intent_event = "call_intent" if ctx.mode == Mode.SHADOW else "call_dry_run"
        try:
            return await self._answer_offline(ctx, config, req, step, (intent, intent_event))
        except Exception as exc:  # stored nothing: the job keeps the intent, then raises it
            return CallRecord(step, req, None, None, None, intent=intent, intent_event=intent_event, signal=exc)

    async def _answer_offline(self, ctx: CallJob, config: ProviderConfig, req: OutboundRequest, step: str,
                              intent: tuple[dict[str, Any], str]) -> CallRecord:
        recorded = self._source(ctx.automation, ctx.trigger_id, step, req) if self._source else None
        response: httpx.Response | None
        if recorded is not None:
            response = httpx.Response(recorded.status, headers={**recorded.headers, RECORDED_HEADER: "recording"},
                                      content=recorded.content(),
                                      request=httpx.Request(req.method, parsed_url(req.url)))
            verdict = self._classify_offline(config, response)
        elif ctx.mode == Mode.SHADOW and config.sandbox_url:
            sandboxed = replace(req, url=config.sandbox_url + req.url[len(config.base_url):])
            response, verdict = await self._send(self.client_for(ctx.mode), config, sandboxed, None)
        elif ctx.mode == Mode.SHADOW and req.method in READ_METHODS:
            raise TerminalError(
                f"shadow: no recorded response for {req.method} {req.url} (automation {ctx.automation!r}, "
                f"trigger {ctx.trigger_id!r}, step {step!r}) and provider {config.name!r} has no sandbox_url")
        else:
            response = _synthetic(req, ctx.mode)
            verdict = self._classify_offline(config, response)
        return self._record(req, step, response, verdict, "call_offline", intent=intent)

    def _classify_offline(self, config: ProviderConfig, response: httpx.Response) -> Classification:
        """``_classify``, remembered for the offline answers whose verdict follows from their status
        and headers alone: a success (no body is summarised) without ``Retry-After`` (no delay, so
        neither the clock nor the jitter's rng is read) from a provider without rules (no rule
        reads the body). A replay's recorded and synthetic answers repeat a few such shapes."""
        if config.rules or response.status_code >= 300 or "retry-after" in response.headers:
            return self._classify(config, response)
        key = (response.status_code, tuple(response.headers.raw))
        verdict = self._offline_verdicts.get(key)
        if verdict is None:
            if len(self._offline_verdicts) >= OFFLINE_VERDICTS:
                self._offline_verdicts.clear()
            verdict = self._offline_verdicts[key] = self._classify(config, response)
        return verdict

    async def _spend(self, config: ProviderConfig, spend: Spend | None,
                     begin: Callable[[Spend | None], Awaitable[Checkout | None]]) -> Checkout | None:
        """Begin the call with one call's worth of budget (``begin``: the job's fenced statement
        that spends and puts the call on record at once), waiting in this process for a short
        refusal, or raise Snooze; return the grant (None for a provider without rates).

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
        if spend is None or self.budget is None:
            await begin(None)
            return None
        key = (config.name, spend.scope)
        wait = self._refused_until.get(key, 0.0) - self._clock()
        if wait > WAIT_IN_PROCESS_S:
            raise Snooze(self._wake_slot(key, config, wait), reason=self._refusal_reason[key], kind="budget_wait")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_IN_PROCESS_S
        turn = self.budget.turn(config, spend.scope)
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
                checkout = await begin(spend)
                assert checkout is not None  # a spend always gets its checkout
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
        url = req.url
        if SECRET_SEGMENT in url:  # the secret is a path segment (Telegram): on the wire only, never a header
            if not credential:
                raise ConfigError(f"provider {config.name!r}: the URL takes its secret in the path; set auth_env",
                                  source="pyproject.toml", field=f"tool.cutover.providers.{config.name}.auth_env")
            url = url.replace(SECRET_SEGMENT, quote(credential, safe=":"))
        elif credential and not req.anonymous:
            headers["Authorization"] = f"Bearer {credential}"
        if config.signing_scheme is SigningScheme.STANDARD_WEBHOOKS:
            secret = self._secret(config, "signing_secret_env") or ""
            headers.update(standard_webhooks_headers(secret, f"msg_{req.idempotency_key}", int(self._clock()),
                                                     req.body or b""))
        try:
            response = await client.request(req.method, url, content=req.body, headers=headers,
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

    def _answer(self, config: ProviderConfig, spend: Spend | None, response: httpx.Response | None,
                grant: Checkout | None) -> Answer | None:
        """What the budget learns from a live call's answer (``response``; None after a transport
        error), written with the call's settle: the call ``grant`` was answered now, so that it
        counts from here on (``Budget.answered``), and the provider's limit as the response states
        it, if it does. None for a provider without rates.

        A remaining below what the grant left is a signal too (someone else spends from the
        provider's count), and the calls granted after it are in flight, not in that remaining.
        """
        if spend is None:
            return None
        instruction = None
        if response is not None:
            instruction = tightening_from_headers(response.status_code, response.headers, now=self._clock(),
                                                  rates=config.rates, believed=grant.remaining if grant else None)
        return Answer(spend, grant, instruction)

    async def _rate_limited(self, ctx: CallJob, config: ProviderConfig, scope: str, req: OutboundRequest,
                            step: str, response: httpx.Response | None, verdict: Classification,
                            answer: Answer | None) -> CallRecord:
        """The 429 branch: the record's signal is RateLimited, a put-back that uses no attempt.

        It comes back after the provider's ``Retry-After`` (or its reset of a spent window),
        capped by ``max_retry_after``, else after one call interval (the budget, tightened by
        the answer, then says how long to wait). Each 429 of the call is counted in the
        database; the provider's ``max_rate_limited``-th fails the job terminally instead,
        naming the provider. Without a database there is nowhere to count: the 429 is then
        retryable as any other failure (it uses an attempt).
        """
        if self.budget is None:
            return self._record(req, step, response, replace(verdict, kind=Kind.RETRYABLE), "call", answer)
        count = await self.budget.count_rate_limited(ctx.job_id, req.idempotency_key, config.name)
        if count >= config.max_rate_limited:
            reason = (f"provider {config.name!r} answered 429 Too Many Requests {count} times to this call "
                      f"(max_rate_limited = {config.max_rate_limited}); giving up")
            return self._record(req, step, response, replace(verdict, kind=Kind.TERMINAL, reason=reason), "call",
                                answer)
        instruction = answer.instruction if answer is not None else None
        blocked = min(instruction.block_for, config.retry.max_delay) if instruction and instruction.block_for else 0.0
        delay = max(verdict.delay or 0.0, blocked)
        if delay <= 0:
            delay = self._wake_slot((config.name, scope), config, 0.0)
        message = self.redactor.text(f"{req.provider} {req.method} {req.url} (step {step!r}): {verdict.reason} "
                                     f"({count} of max_rate_limited {config.max_rate_limited}); {verdict.summary}")
        record = self._record(req, step, response, verdict, "call", answer)
        return replace(record, signal=RateLimited(delay, message, provider=config.name, count=count))

    def _record(self, req: OutboundRequest, step: str, response: httpx.Response | None,
                verdict: Classification, kind: str, answer: Answer | None = None, *,
                intent: tuple[dict[str, Any] | None, str | None] = (None, None)) -> CallRecord:
        """Return the call's record: its stored form (redacted: what the provider echoed of a
        secret is never kept), ledger event ``kind`` and the signal its verdict says to raise;
        an offline call's ``intent`` (its record and event) with it."""
        status = response.status_code if response is not None else None
        redactor = self.redactor
        url, reason, summary = redactor.data(req.url), redactor.text(verdict.reason), redactor.text(verdict.summary)
        content = response.content if response is not None and is_binary(response) else None
        stored = StoredCall(
            req.fingerprint, req.idempotency_key, req.method, url, status, verdict.kind.value, reason, summary,
            redact_headers(tuple(response.headers.items()), redactor) if response is not None else (),
            redactor.data(response.text) if response is not None and content is None else "",
            hashlib.sha256(content).hexdigest() if content is not None else None,
            len(content) if content is not None else None)
        ok = verdict.kind is Kind.OK
        ref = extract_external_ref(self.providers[req.provider].external_ref, response) if ok else None
        detail = {"step": step, "occurrence": req.occurrence, "provider": req.provider, "method": req.method,
                  "url": url, "idempotency_key": req.idempotency_key, "status": status,
                  "classification": verdict.kind.value, "reason": reason, "summary": summary, "external_ref": ref}
        signal: JobSignal | None = None
        if not (ok and response is not None):
            message = f"{req.provider} {req.method} {url} (step {step!r}): {reason}; {summary}"
            signal = RetryableError(message, delay=verdict.delay) if verdict.kind is Kind.RETRYABLE \
                else TerminalError(message)
        return CallRecord(step, req, response, verdict, stored, ref, kind, detail, answer, intent[0], intent[1],
                          signal=signal)

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
    """Return the stand-in response of an unrecorded dry-run/shadow call (marked as synthetic).

    The bytes and headers httpx's ``json=`` would make (compact JSON, then Content-Length and
    Content-Type after the marker), encoded here: a third cheaper than httpx's own encoding."""
    body = jsonlib.dumps({"synthetic": True, "mode": mode, "idempotency_key": req.idempotency_key},
                         ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    headers = {"X-Cutover-Synthetic": mode, "Content-Length": str(len(body)), "Content-Type": "application/json"}
    return httpx.Response(200, headers=headers, content=body, request=httpx.Request(req.method, parsed_url(req.url)))

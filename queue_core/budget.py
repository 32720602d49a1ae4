"""Provider rate budgets in Postgres, shared by every worker on every machine.

One ``provider_budgets`` row per (provider, scope key, window). A checkout is one atomic
statement evaluated by the database clock (``budget_checkout`` of migration 0009, called by
``queries/budget.sql``): it either spends from every configured window of the scope or from none
and says how long until it could. A window counts the way its provider does
(``ProviderConfig.algorithm``):

- ``sliding`` (the default): at most N calls in any window of T seconds. The row keeps a ring of
  ``SUBBUCKETS + 1`` counters, each (T + guard) / SUBBUCKETS wide; a call is granted when the
  sub-buckets overlapping the last T + guard seconds, the oldest counted in full, hold fewer than
  N. Once the call is answered it moves to the sub-bucket of its answer (``answered``): the
  provider received it somewhere between grant and answer, so no window of T of the provider's
  own clock ever counts more than N, whatever the delivery delays, from the first second on,
  after idle time and after a 429 alike. Under saturation a window grants N per T + guard + one
  sub-bucket + the calls' latency. (A call still unanswered a whole window after its grant stops
  counting until its answer counts it again; one whose worker died stays at its grant.)
- ``fixed``: at most N in each window aligned to the Unix epoch, closing ``guard`` early.
- ``token_bucket``: the provider's own bucket of ``burst``, refilled at N/T. A token may be
  reserved a little ahead of the refill (``reservation_horizon``): the row's ``tokens`` then goes
  negative and the caller waits for its slot.

A refusal's delay is exact: the wait until enough old calls leave the window (or a block ends).
Responses that signal a limit (429, ``Retry-After``, ``RateLimit`` headers) tighten the rows,
never above the configured limit, with the reason stored for ``cutover jobs explain``; a 429
also counts against its call's ``max_rate_limited`` (``count_rate_limited``).

In-flight limiting (``max_in_flight``) is per worker process: an ``asyncio.Semaphore`` per
provider and event loop (``InFlight``); it is not shared across processes.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .provider import Algorithm, ProviderConfig, BudgetScope, Tightening
from .store import budgets as store

ACCOUNT_SCOPE = "account"
# A token-bucket call may reserve a slot up to this many token intervals ahead, and never
# further than RESERVE_MAX_S seconds; see reservation_horizon.
RESERVE_SLOTS = 4
RESERVE_MAX_S = 1.0
# A sliding window is counted in this many sub-buckets (the ring holds one more).
SUBBUCKETS = 200
# A call refused for at most this long waits in its worker and checks again; a longer wait
# (or a longer queue of callers ahead of it in the process) snoozes the job.
WAIT_IN_PROCESS_S = 1.0
# Added to a refusal's exact delay before checking again: the database's delay is measured from
# its own clock, a round trip before the caller reads it.
RECHECK_MARGIN_S = 0.001


@dataclass(frozen=True)
class Checkout:
    """The answer to a checkout: ``granted`` (spend after ``delay`` seconds, the reserved slot),
    else refused for ``delay`` seconds (``reason`` says why). A grant says when it was made
    (``granted_at``, unix seconds by the database clock) and how many calls each window still
    allowed after it (``remaining``, by window seconds)."""

    granted: bool
    delay: float
    reason: str | None = None
    granted_at: float | None = None
    remaining: dict[float, int] = field(default_factory=dict)


@dataclass
class Turn:
    """How the gateway's callers of one budget in one process take turns.

    ``lock`` is held, first come first served, by the caller that waits out a refusal and
    checks out, so a spent budget costs one checkout per freed slot, not a stampede of them.
    ``room`` is how many more calls the latest grant said the budget allowed: while it is
    positive, a caller lets the next one in before its own checkout, so a window that frees
    several slots at once is spent at the pace of the database, not of one round trip each.
    """

    lock: asyncio.Lock
    room: int = 0


@dataclass(frozen=True)
class BudgetState:
    """One window of a budget as ``cutover jobs explain`` shows it."""

    provider: str
    scope_key: str
    window_seconds: float
    configured_limit: int
    effective_limit: int
    burst: int
    tokens: float  # calls the window would grant now; token bucket: negative while reserved ahead
    blocked_until: datetime | None
    reason: str | None
    tightened_at: datetime | None
    algorithm: str = Algorithm.SLIDING.value
    guard_seconds: float = 0.0
    spent: int = 0  # sliding: calls counted in the window now; fixed: in the current window


def reservation_horizon(config: ProviderConfig) -> float:
    """Return how far ahead a call of ``config`` may reserve its slot: pure.

    Only a token bucket reserves: at most RESERVE_SLOTS token intervals of the fastest window, and
    never above RESERVE_MAX_S: a reserved call waits in its worker (holding its slot there), so
    only a few may queue; later callers are refused and snooze. Zero for a provider without rates
    and for sliding and fixed windows (a grant there is the moment of the call).
    """
    if not config.rates or config.algorithm is not Algorithm.TOKEN_BUCKET:
        return 0.0
    interval = min(r.seconds / r.limit for r in config.rates)
    return min(RESERVE_MAX_S, RESERVE_SLOTS * interval)


def scope_key_for(config: ProviderConfig, scope_value: str | None, credential: str | None) -> str:
    """Return the budget's scope key for a call: pure, and never a secret.

    Account scope shares one budget (``"account"``). Key scope uses the value the call passed
    (a tenant id), else a short hash of the credential, else ``"account"``.
    """
    if config.scope is BudgetScope.ACCOUNT:
        return ACCOUNT_SCOPE
    if scope_value:
        return f"value:{scope_value}"
    if credential:
        return "key:" + hashlib.sha256(credential.encode()).hexdigest()[:16]
    return ACCOUNT_SCOPE


class Budget:
    """Spend and tighten provider budgets through a psycopg connection pool.

    Every method runs its own short autocommit statement; the pool may be shared with the
    queue. Thread-safe as far as the pool is; instances hold only a cache of rows known to exist.
    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool
        self._ensured: set[tuple[str, str]] = set()
        self._turns: dict[tuple[int, str, str], Turn] = {}

    def turn(self, config: ProviderConfig, scope_key: str) -> Turn:
        """Return this process's turnstile for one budget (per event loop): see ``Turn``."""
        key = (id(asyncio.get_running_loop()), config.name, scope_key)
        turn = self._turns.get(key)
        if turn is None:
            turn = self._turns[key] = Turn(asyncio.Lock())
        return turn

    async def ensure(self, config: ProviderConfig, scope_key: str) -> None:
        """Create (or reset to a changed configuration) the rows of every configured window."""
        await store.ensure(self._pool, [{
            "provider": config.name, "scope_key": scope_key, "window_seconds": rate.seconds,
            "limit": rate.limit, "burst": rate.burst, "algorithm": config.algorithm.value,
            "guard": config.guard, "slots": SUBBUCKETS + 1,
        } for rate in config.rates])
        self._ensured.add((config.name, scope_key))

    async def checkout(self, config: ProviderConfig, scope_key: str, cost: float = 1.0, *,
                       horizon: float = 0.0) -> Checkout:
        """Spend ``cost`` calls from every window of the scope, atomically, or from none.

        A refusal's ``delay`` is the wait until every window could grant the cost if nobody else
        spent meanwhile (old calls leaving a sliding window, the next fixed window, a block's
        end). A token bucket with ``horizon`` > 0 may reserve the tokens ahead of the refill:
        the grant's ``delay`` is then the wait until they exist (at most ``horizon`` seconds),
        and the caller must not spend them before. A provider without rates is always granted
        without touching the database. Two concurrent checkouts serialise on the rows; neither
        can spend what the other took.
        """
        if not config.rates:
            return Checkout(True, 0.0)
        if (config.name, scope_key) not in self._ensured:
            await self.ensure(config, scope_key)
        rows = await self._checkout_rows(config, scope_key, cost, horizon)
        if len(rows) < len(config.rates):  # rows deleted behind our back: recreate once
            await self.ensure(config, scope_key)
            rows = await self._checkout_rows(config, scope_key, cost, horizon)
        granted, delay = bool(rows[0]["granted"]), float(rows[0]["delay"])
        if granted:
            return Checkout(True, delay, None, float(rows[0]["granted_at"]),
                            {float(r["window_seconds"]): int(r["remaining"]) for r in rows})
        return Checkout(False, delay, refusal_reason(config, rows))

    async def _checkout_rows(self, config: ProviderConfig, scope_key: str, cost: float,
                             horizon: float) -> list[dict[str, Any]]:
        params = {"provider": config.name, "scope_key": scope_key, "cost": math.ceil(cost), "horizon": horizon,
                  "windows": [r.seconds for r in config.rates]}
        return await store.checkout(self._pool, params)

    async def tighten(self, config: ProviderConfig, scope_key: str, instruction: Tightening,
                      since: float | None = None) -> None:
        """Apply a provider's rate-limit signal to the scope's rows (never above configuration).

        ``since`` is when the answered call was granted (``Checkout.granted_at``): a
        ``remaining`` the provider reports is lessened by the calls granted after it, still in
        flight and not in the provider's count yet.
        """
        await self._answer(config, scope_key, since, False, instruction)

    async def answered(self, config: ProviderConfig, scope_key: str, grant: Checkout,
                       instruction: Tightening | None = None) -> None:
        """Record that the call ``grant`` was answered now (or failed in transport), and apply
        ``instruction`` if the answer carried one: one statement.

        The call then counts from its answer on, not its grant: the provider received it in
        between, so however long the delivery took, no window of the provider's can hold it
        and more than the limit besides. For a provider without rates (or a token bucket with
        nothing to apply) nothing is written.
        """
        if config.algorithm is Algorithm.TOKEN_BUCKET and instruction is None:
            return
        await self._answer(config, scope_key, grant.granted_at, True, instruction)

    async def _answer(self, config: ProviderConfig, scope_key: str, since: float | None, answered: bool,
                      instruction: Tightening | None) -> None:
        if not config.rates:
            return
        if (config.name, scope_key) not in self._ensured:
            await self.ensure(config, scope_key)
        t = instruction or Tightening("")
        await store.answer(self._pool, {
            "provider": config.name, "scope_key": scope_key, "since": since, "answered": answered,
            "block_for": t.block_for, "remaining": t.remaining, "reset": t.reset, "limit": t.limit,
            "window": t.window, "full": t.full, "reason": t.reason if instruction is not None else None,
        })

    async def count_rate_limited(self, job_id: uuid.UUID, idempotency_key: str, provider: str) -> int:
        """Count one more 429 for the call ``idempotency_key`` of ``job_id``; return its total."""
        return await store.count_rate_limited(self._pool, job_id, idempotency_key, provider)

    async def paused_providers(self) -> dict[str, str]:
        """Return {provider: reason} for every provider an operator has paused."""
        return {name: reason or f"paused by {by}" for name, by, reason in await store.paused_providers(self._pool)}

    async def states(self, provider: str) -> list[BudgetState]:
        """Return every window of ``provider``'s budgets, refilled to now (read-only)."""
        return [BudgetState(*row) for row in await store.states(self._pool, provider)]


def refusal_reason(config: ProviderConfig, rows: list[dict[str, Any]]) -> str:
    blocked = [r for r in rows if r["blocked_for"] > 0]
    if blocked:
        return f"provider {config.name!r} budget blocked: {blocked[0]['reason'] or 'rate limited'}"
    windows = ", ".join(r.text for r in config.rates)
    return f"provider {config.name!r} rate budget ({windows}) is spent"


class InFlight:
    """Limit concurrent calls per provider within this process (``max_in_flight``).

    One ``asyncio.Semaphore`` per (event loop, provider): per worker process, not global.
    """

    def __init__(self) -> None:
        self._sems: dict[tuple[int, str], asyncio.Semaphore] = {}

    @asynccontextmanager
    async def slot(self, config: ProviderConfig) -> AsyncIterator[None]:
        """Hold one of the provider's in-flight slots for the duration of the block."""
        if config.max_in_flight is None:
            yield
            return
        key = (id(asyncio.get_running_loop()), config.name)
        sem = self._sems.setdefault(key, asyncio.Semaphore(config.max_in_flight))
        async with sem:
            yield

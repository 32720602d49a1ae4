"""Provider rate budgets: token buckets in Postgres, shared by every worker on every machine.

One ``provider_budgets`` row per (provider, scope key, window). A checkout is one atomic SQL
statement evaluated by the database clock (``queries/budget.sql``): it either takes a token from
every configured window of the scope or from none and says how long until it could. A token may
be reserved a little ahead of the refill (``reservation_horizon``): the row's ``tokens`` then goes
negative and the caller waits for its slot, so waiting callers queue at the refill pace instead
of snoozing and finding the budget spent again when they come back. Responses
that signal a limit (429, ``Retry-After``, ``RateLimit`` headers) tighten the rows, never above
the configured limit, with the reason stored for ``cutover jobs explain``.

In-flight limiting (``max_in_flight``) is per worker process: an ``asyncio.Semaphore`` per
provider and event loop (``InFlight``); it is not shared across processes.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from ._sql import q
from .provider import ProviderConfig, Scope, Tightening

ACCOUNT_SCOPE = "account"
# A call may reserve a slot up to this many token intervals ahead, and never further than
# RESERVE_MAX_S seconds; see reservation_horizon.
RESERVE_SLOTS = 4
RESERVE_MAX_S = 1.0


@dataclass(frozen=True)
class Checkout:
    """The answer to a checkout: ``granted`` (spend after ``delay`` seconds, the reserved slot),
    else refused for ``delay`` seconds (``reason`` says why)."""

    granted: bool
    delay: float
    reason: str | None = None


@dataclass(frozen=True)
class BudgetState:
    """One window of a budget as ``cutover jobs explain`` shows it."""

    provider: str
    scope_key: str
    window_seconds: float
    configured_limit: int
    effective_limit: int
    burst: int
    tokens: float  # negative: that many tokens are reserved ahead of the refill
    blocked_until: datetime | None
    reason: str | None
    tightened_at: datetime | None


def reservation_horizon(config: ProviderConfig) -> float:
    """Return how far ahead a call of ``config`` may reserve its slot: pure.

    At most RESERVE_SLOTS token intervals of the fastest window, and never above RESERVE_MAX_S:
    a reserved call waits in its worker (holding its slot there), so only a few may queue;
    later callers are refused and snooze. Zero for a provider without rates.
    """
    if not config.rates:
        return 0.0
    interval = min(r.seconds / r.limit for r in config.rates)
    return min(RESERVE_MAX_S, RESERVE_SLOTS * interval)


def scope_key_for(config: ProviderConfig, scope_value: str | None, credential: str | None) -> str:
    """Return the budget's scope key for a call: pure, and never a secret.

    Account scope shares one budget (``"account"``). Key scope uses the value the call passed
    (a tenant id), else a short hash of the credential, else ``"account"``.
    """
    if config.scope is Scope.ACCOUNT:
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

    async def ensure(self, config: ProviderConfig, scope_key: str) -> None:
        """Create (or reset to a changed configuration) the rows of every configured window."""
        async with self._pool.connection() as conn:
            for rate in config.rates:
                await conn.execute(q("budget", "ensure"), {
                    "provider": config.name, "scope_key": scope_key, "window_seconds": rate.seconds,
                    "limit": rate.limit, "burst": rate.burst,
                })
        self._ensured.add((config.name, scope_key))

    async def checkout(self, config: ProviderConfig, scope_key: str, cost: float = 1.0, *,
                       horizon: float = 0.0) -> Checkout:
        """Take ``cost`` tokens from every window of the scope, atomically, or none.

        With ``horizon`` > 0 the tokens may be reserved ahead of the refill: the grant's
        ``delay`` is then the wait until they exist (at most ``horizon`` seconds), and the caller
        must not spend them before. Reserved slots follow one another at the refill pace, so
        calls made at their slots never exceed the configured rate. A refusal's ``delay`` is the
        wait until a slot within the horizon could be reserved. A provider without rates is
        always granted without touching the database. Two concurrent checkouts serialise on the
        rows; neither can spend a token the other took.
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
            return Checkout(True, delay)
        return Checkout(False, delay, _why(config, rows))

    async def _checkout_rows(self, config: ProviderConfig, scope_key: str, cost: float,
                             horizon: float) -> list[dict[str, Any]]:
        params = {"provider": config.name, "scope_key": scope_key, "cost": cost, "horizon": horizon,
                  "windows": [r.seconds for r in config.rates]}
        async with self._pool.connection() as conn:
            cur = await conn.execute(q("budget", "checkout"), params)
            names = [d.name for d in cur.description or ()]
            return [dict(zip(names, row)) for row in await cur.fetchall()]

    async def tighten(self, config: ProviderConfig, scope_key: str, instruction: Tightening) -> None:
        """Apply a provider's rate-limit signal to the scope's rows (never above configuration)."""
        if not config.rates:
            return
        if (config.name, scope_key) not in self._ensured:
            await self.ensure(config, scope_key)
        async with self._pool.connection() as conn:
            await conn.execute(q("budget", "tighten"), {
                "provider": config.name, "scope_key": scope_key, "block_for": instruction.block_for,
                "remaining": instruction.remaining, "limit": instruction.limit,
                "window": instruction.window, "reason": instruction.reason,
            })

    async def paused_providers(self) -> dict[str, str]:
        """Return {provider: reason} for every provider an operator has paused."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(q("budget", "paused_providers"))
            return {name: reason or f"paused by {by}" for name, by, reason in await cur.fetchall()}

    async def states(self, provider: str) -> list[BudgetState]:
        """Return every window of ``provider``'s budgets, refilled to now (read-only)."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(q("budget", "states"), {"provider": provider})
            return [BudgetState(*row) for row in await cur.fetchall()]


def _why(config: ProviderConfig, rows: list[dict[str, Any]]) -> str:
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

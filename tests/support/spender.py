"""Worker-process stand-ins that drive the gateway, or the budget itself, from other processes.

``spend(...)`` runs in its own OS process (multiprocessing, spawn): it builds its own Gateway
and connection pool, makes calls in a loop like a worker would (sleeping out a Snooze, retrying
a RetryableError), and returns its counts. Used by the budget-sharing test.

``hammer(...)`` checks out from a Budget as fast as its refusals allow, in timed phases, and
returns the database's grant times: the property tests count them per window.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from queue_core.budget import ACCOUNT_SCOPE, Budget
from queue_core.errors import RetryableError, Snooze
from queue_core.gateway import Gateway
from queue_core.provider import Tightening, parse_provider, parse_providers
from tests.support.call_context import MemoryCallContext, call


@dataclass(frozen=True)
class Slice:
    """From unix time ``start`` to ``end``, run the loops of ``providers``; counts get ``@label``."""

    label: str
    start: float
    end: float
    providers: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """What one process does: ``loops[p]`` concurrent call loops per provider.

    Either ``calls`` calls per loop, starting at ``start_at``, or the time ``slices``.
    """

    db_url: str
    providers: dict[str, dict[str, Any]]
    loops: dict[str, int]  # provider -> concurrent call loops in this process
    calls: int | None = None
    start_at: float = 0.0
    slices: tuple[Slice, ...] = ()


async def _one(gw: Gateway, provider: str, n: int, counts: dict[str, int], label: str) -> bool:
    """Make one call like a worker would; return whether it succeeded."""
    ctx = MemoryCallContext(job_id=uuid.uuid4())
    try:
        await call(gw, ctx, provider, "POST", "/effects", step="send", json={"n": n})
    except Snooze as snooze:  # a spent budget, or a 429 (RateLimited, a Snooze of its own)
        counts[f"{provider}.snoozed"] += 1
        counts[f"{provider}.429"] += snooze.kind == "rate_limited"
        await asyncio.sleep(snooze.delay)
        return False
    except RetryableError as exc:
        counts[f"{provider}.retryable"] += 1
        counts[f"{provider}.429"] += "429" in str(exc)
        await asyncio.sleep(exc.delay or 0.05)
        return False
    counts[f"{provider}.ok"] += 1
    if label:
        counts[f"{provider}.ok@{label}"] = counts.get(f"{provider}.ok@{label}", 0) + 1
    return True


async def _loop(gw: Gateway, provider: str, plan: Plan, counts: dict[str, int]) -> None:
    if not plan.slices:
        await asyncio.sleep(max(0.0, plan.start_at - time.time()))
        done = 0
        while plan.calls is None or done < plan.calls:
            done += await _one(gw, provider, done, counts, "")
        return
    for piece in (s for s in plan.slices if provider in s.providers):
        await asyncio.sleep(max(0.0, piece.start - time.time()))
        n = 0
        while time.time() < piece.end:
            n += await _one(gw, provider, n, counts, piece.label)


async def _run(plan: Plan) -> dict[str, int]:
    providers = parse_providers(plan.providers)
    counts = {f"{p}.{k}": 0 for p in plan.loops for k in ("ok", "snoozed", "retryable", "429")}
    async with AsyncConnectionPool(plan.db_url, min_size=2, max_size=4, open=False,
                                   kwargs={"autocommit": True}) as pool:
        async with Gateway(providers, pool) as gw:
            await asyncio.gather(*(_loop(gw, p, plan, counts) for p, n in plan.loops.items() for _ in range(n)))
    return counts


def spend(plan: Plan) -> dict[str, int]:
    """Run ``plan`` in this process; return counts ``<provider>.ok|snoozed|retryable|429[@label]``."""
    return asyncio.run(_run(plan))


@dataclass(frozen=True)
class Hammer:
    """What one process does: ``loops`` concurrent checkout loops on provider ``table`` (named
    "p", account scope) during each (start, end) unix-time phase; optionally a 429-like tighten
    (the first window full now) at ``tighten_at``."""

    db_url: str
    table: dict[str, Any]
    loops: int
    phases: tuple[tuple[float, float], ...]
    tighten_at: float | None = None
    connections: int = 3
    seed: int = 0


async def _hammer_loop(budget: Budget, plan: Hammer, rng: random.Random, grants: list[float]) -> None:
    cfg = parse_provider("p", plan.table)
    exact = rng.random() < 0.5  # half the loops come back exactly when told, half at random earlier
    for start, end in plan.phases:
        await asyncio.sleep(max(0.0, start - time.time()))
        while time.time() < end:
            checkout = await budget.checkout(cfg, ACCOUNT_SCOPE)
            if checkout.granted:
                assert checkout.granted_at is not None
                grants.append(checkout.granted_at)
            else:
                wait = checkout.delay if exact else checkout.delay * rng.random()
                await asyncio.sleep(min(wait, max(0.0, end - time.time())) + 0.0005)


async def _hammer(plan: Hammer) -> list[float]:
    grants: list[float] = []
    rng = random.Random(plan.seed)
    async with AsyncConnectionPool(plan.db_url, min_size=plan.connections, max_size=plan.connections, open=False,
                                   kwargs={"autocommit": True}) as pool:
        budget = Budget(pool)
        jobs = [_hammer_loop(budget, plan, random.Random(rng.random()), grants) for _ in range(plan.loops)]
        if plan.tighten_at is not None:
            jobs.append(_tighten_at(budget, plan))
        await asyncio.gather(*jobs)
    return grants


async def _tighten_at(budget: Budget, plan: Hammer) -> None:
    cfg = parse_provider("p", plan.table)
    await asyncio.sleep(max(0.0, plan.tighten_at - time.time()))  # type: ignore[operator]
    await budget.tighten(cfg, ACCOUNT_SCOPE, Tightening("HTTP 429", full=True, window=cfg.rates[0].seconds))


def hammer(plan: Hammer) -> list[float]:
    """Run ``plan`` in this process; return the grant times (unix seconds, database clock)."""
    return asyncio.run(_hammer(plan))

"""A worker-process stand-in that drives the gateway directly (until the queue's worker does).

``spend(...)`` runs in its own OS process (multiprocessing, spawn): it builds its own Gateway
and connection pool, makes calls in a loop like a worker would (sleeping out a Snooze, retrying
a RetryableError), and returns its counts. Used by the budget-sharing test and bench/rate_budget.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from queue_core.errors import RetryableError, Snooze
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext


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
        await gw.call(ctx, provider, "POST", "/effects", step="send", json={"n": n})
    except Snooze as snooze:
        counts[f"{provider}.snoozed"] += 1
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

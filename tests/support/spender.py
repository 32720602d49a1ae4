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
class Plan:
    """What one process does: ``calls`` calls (or until ``seconds`` pass) per provider loop."""

    db_url: str
    providers: dict[str, dict[str, Any]]
    loops: dict[str, int]  # provider -> concurrent call loops in this process
    calls: int | None = None  # per loop; None = until the deadline
    seconds: float | None = None
    start_at: float = 0.0  # time.time() at which to begin (aligns processes)


async def _loop(gw: Gateway, provider: str, plan: Plan, deadline: float, counts: dict[str, int]) -> None:
    done = 0
    while (plan.calls is None or done < plan.calls) and time.time() < deadline:
        ctx = MemoryCallContext(job_id=uuid.uuid4())
        try:
            await gw.call(ctx, provider, "POST", "/effects", step="send", json={"n": done})
        except Snooze as snooze:
            counts[f"{provider}.snoozed"] += 1
            await asyncio.sleep(snooze.delay)
            continue
        except RetryableError as exc:
            counts[f"{provider}.retryable"] += 1
            counts[f"{provider}.429"] += "429" in str(exc)
            await asyncio.sleep(exc.delay or 0.05)
            continue
        done += 1
        counts[f"{provider}.ok"] += 1


async def _run(plan: Plan) -> dict[str, int]:
    providers = parse_providers(plan.providers)
    counts = {f"{p}.{k}": 0 for p in plan.loops for k in ("ok", "snoozed", "retryable", "429")}
    async with AsyncConnectionPool(plan.db_url, min_size=2, max_size=4, open=False,
                                   kwargs={"autocommit": True}) as pool:
        async with Gateway(providers, pool) as gw:
            await asyncio.sleep(max(0.0, plan.start_at - time.time()))
            deadline = time.time() + plan.seconds if plan.seconds else float("inf")
            await asyncio.gather(*(_loop(gw, p, plan, deadline, counts)
                                   for p, n in plan.loops.items() for _ in range(n)))
    return counts


def spend(plan: Plan) -> dict[str, int]:
    """Run ``plan`` in this process; return counts ``<provider>.ok|snoozed|retryable|429``."""
    return asyncio.run(_run(plan))

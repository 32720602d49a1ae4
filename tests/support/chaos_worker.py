"""A worker process for the chaos test: runs jobs whose side effect is keyed by the child key."""

from __future__ import annotations

import asyncio
import os
import random
import sys

import psycopg

from queue_core import Context, Registry, Trigger, Worker, WorkerConfig, automation, db

registry = Registry()
DB = os.environ.get("CHAOS_DB", "")


@automation("charge", registry=registry)
async def charge(ctx: Context, trigger: Trigger) -> None:
    key = ctx.idempotency_key("charge-card")
    await asyncio.sleep(random.random() * 0.05)
    async with await psycopg.AsyncConnection.connect(DB, autocommit=True) as conn:
        # The receiving side dedupes on the key, as a provider honouring Idempotency-Key does;
        # deliveries counts how often the effect was attempted.
        await conn.execute(
            "INSERT INTO effects (key, job_id, deliveries) VALUES (%s, %s, 1)"
            " ON CONFLICT (key) DO UPDATE SET deliveries = effects.deliveries + 1",
            (key, ctx.job_id),
        )
    await asyncio.sleep(random.random() * 0.05)  # a window where the effect is done, the job not


async def main() -> None:
    cfg = WorkerConfig(concurrency=8, lease_s=1.5, heartbeat_s=0.3, poll_s=0.05)
    async with db.pool(DB, max_size=12) as pool:
        await Worker(pool, registry, cfg, conninfo=DB).run()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

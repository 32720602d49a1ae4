"""A worker process for the SIGSTOP test: jobs of one concurrency key (limit 1) that write steadily.

Each job writes a ``beat`` ledger event and a memoised step every few milliseconds, each tagged
with the claim that wrote it, so the test can tell from the database which claim wrote what, and
when. The worker's lease is short (2 s) so that a freeze of a few seconds outlasts it.
"""

from __future__ import annotations

import asyncio
import os
import sys

from queue_core import Context, Registry, Trigger, Worker, WorkerConfig, automation, db

registry = Registry()
LEASE_S = 2.0


@automation("beats", registry=registry, concurrency_key="customer", concurrency_limit=1)
async def beats(ctx: Context, trigger: Trigger) -> None:
    claim = ctx.job.claim_count
    for i in range(trigger.body["beats"]):
        await asyncio.sleep(0.03)  # code outside any write: a frozen process resumes here
        await ctx.ledger("beat", {"i": i, "claim": claim, "pid": os.getpid()})
        await ctx.step(f"beat:{i}", lambda: {"claim": claim, "pid": os.getpid()})


async def main() -> None:
    url = os.environ["WORKER_DB"]
    cfg = WorkerConfig(concurrency=2, lease_s=LEASE_S, heartbeat_s=0.4, poll_s=0.05)
    # The jobs' pool checks no connection on checkout (db.worker_pool, as a library user may
    # pass): a resumed job's next write then reaches the server in the job's first step after
    # SIGCONT, before the worker's lease guard can cancel it, so only the fence stands in its way.
    # (With a checked pool, the CLI's, the check's round trip usually lets the guard cancel the
    # job first: that hides the gap, it does not close it.)
    async with db.worker_pool(url, max_size=6, timeout_s=LEASE_S) as pool:
        await Worker(pool, registry, cfg, conninfo=url).run()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Run a worker process on ``$WORKER_DB`` for the registry of the module named in argv[1]."""

from __future__ import annotations

import asyncio
import importlib
import os
import sys

from queue_core import Worker, WorkerConfig, db


async def main(module: str) -> None:
    registry = importlib.import_module(module).registry
    url = os.environ["WORKER_DB"]
    cfg = WorkerConfig(concurrency=4, lease_s=1.0, heartbeat_s=0.25, poll_s=0.05)
    async with db.pool(url, max_size=8) as pool:
        await Worker(pool, registry, cfg, conninfo=url).run()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

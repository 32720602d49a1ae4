"""Which of a stopping worker's side tasks outlive a single cancel, and where was the cancel lost?

    python bench/cancel_probe.py            # 150 stops
    python bench/cancel_probe.py 300

Starts and stops a worker (2 lanes, heartbeats every 50 ms, poll 10 ms, a fresh own pool each
time, so checkouts often wait for a connection being opened) ``N`` times, 50–400 ms after it
starts. At each stop the side tasks are cancelled once; any task still running 1 s later is
counted, and so is every cancel that psycopg_pool's connection wait
(``ACondition.wait_timeout``, an ``asyncio.wait_for``) returned from without raising (the task's
``cancelling()`` rose across it). Then the worker's own ``_cancel_all`` ends them. A diagnostic
of the reason ``queue_core.worker._cancel_all`` cancels again, not a timing benchmark.
"""

from __future__ import annotations

import asyncio
import collections
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from psycopg_pool import _acompat  # noqa: E402

import queue_core.worker as worker_module  # noqa: E402
from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation, db, provision  # noqa: E402

registry = Registry()
survived: collections.Counter[str] = collections.Counter()
lost_in_pool_wait: collections.Counter[str] = collections.Counter()
_cancel_all = worker_module._cancel_all
_wait_timeout = _acompat.ACondition.wait_timeout


@automation("noop", registry=registry)
async def noop(ctx, trigger) -> None:  # type: ignore[no-untyped-def]
    return None


async def _watched_wait_timeout(self: Any, timeout: float) -> bool:
    task = asyncio.current_task()
    before = task.cancelling() if task else 0
    got = await _wait_timeout(self, timeout)  # returned, not raised
    if task is not None and task.cancelling() > before:
        lost_in_pool_wait[task.get_name()] += 1
    return got


async def _cancel_once_then_all(tasks: list[asyncio.Task[Any]]) -> None:
    pending = {t for t in tasks if not t.done()}
    for task in pending:
        task.cancel()
    _, still = await asyncio.wait(pending, timeout=1.0)
    survived.update(t.get_name() for t in still)
    await _cancel_all(tasks)


async def main(stops: int) -> None:
    _acompat.ACondition.wait_timeout = _watched_wait_timeout  # type: ignore[method-assign]
    worker_module._cancel_all = _cancel_once_then_all
    url = provision.fresh_database("cutover_probe")
    try:
        async with db.pool(url, max_size=6) as pool:
            queue = Queue(pool, registry=registry)
            for _ in range(stops):
                await queue.enqueue_many([JobSpec("noop") for _ in range(20)])
                w = Worker(pool, registry, WorkerConfig(concurrency=4, lanes=2, poll_s=0.01, heartbeat_s=0.05, lease_s=2))
                run = asyncio.create_task(w.run())
                await asyncio.sleep(random.uniform(0.05, 0.4))
                w.stop()
                await asyncio.wait_for(run, 60)
    finally:
        provision.drop_database(url)
    print(f"stops: {stops}; side tasks alive 1 s after one cancel: {dict(survived) or 'none'}; "
          f"cancels lost in psycopg_pool's connection wait: {dict(lost_in_pool_wait) or 'none'}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 150))

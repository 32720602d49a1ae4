"""Database round trips per live ``ctx.call``: how many statements one outbound call costs.

Setup: a fresh migrated database (``DATABASE_URL``'s server when set, else a provisioned one);
one live job claimed for real (``Queue.claim``) and driven through its Context with a Gateway
whose provider is an ``httpx.MockTransport`` on loopback (no network). Every statement the pool's
connections send is counted by a cursor class that counts ``execute`` calls (psycopg's
``cursor_factory``), so nothing about the code under test changes.

Two providers, because a rate budget is where the statements were:

- ``plain``: no rate;
- ``rated``: ``rate = "1000/1s"`` (sliding window), the budget rows created before counting, as
  any worker's first call of a scope creates them once.

For each, ``--calls`` calls of one job, each at its own step, are counted after a warm-up call
(the first call of a job also reads the operator's provider pauses, at most once a second, and a
resumed job reads its steps once): the figure printed is the steady state, statements per call.
Last line: ``RESULT {json}``.

    python bench/round_trips.py
    python bench/round_trips.py --calls 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import psycopg
from psycopg_pool import AsyncConnectionPool

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from queue_core import Context, JobSpec, Queue, Registry, automation, provision  # noqa: E402
from queue_core.gateway import Gateway  # noqa: E402
from queue_core.provider import parse_provider  # noqa: E402

COUNT = {"statements": 0}


class CountingCursor(psycopg.AsyncCursor[Any]):
    """An async cursor that counts every statement it sends (one round trip each)."""

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        COUNT["statements"] += 1
        return await super().execute(*args, **kwargs)


registry = Registry()


@automation("round-trips", registry=registry)
async def round_trips(ctx: Context, trigger: Any) -> None:  # driven through its Context here
    raise AssertionError("not run by a worker in this benchmark")


def _answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"id": "obj_1"}, request=request)


async def measure(url: str, calls: int) -> dict[str, Any]:
    providers = {
        "plain": parse_provider("plain", {"base_url": "https://plain.test"}),
        "rated": parse_provider("rated", {"base_url": "https://rated.test", "rate": "1000/1s"}),
    }
    result: dict[str, Any] = {"calls": calls}
    async with AsyncConnectionPool(url, min_size=1, max_size=2, open=False,
                                   kwargs={"autocommit": True, "cursor_factory": CountingCursor}) as pool:
        async with Gateway(providers, pool, transport=httpx.MockTransport(_answer)) as gateway:
            for name in providers:
                queue = Queue(pool, registry=registry)
                await queue.enqueue(JobSpec("round-trips", {}, mode="live"))
                (job,) = await queue.claim("bench-worker", 1, lease_s=60, automations=["round-trips"])
                ctx = Context(job, pool, worker="bench-worker", gateway=gateway, registry=registry)
                COUNT["statements"] = 0
                await ctx.call(name, "POST", "/objects", step="warm-up", json={"n": -1})
                first = COUNT["statements"]
                COUNT["statements"] = 0
                for n in range(calls):
                    await ctx.call(name, "POST", "/objects", step=f"call-{n}", json={"n": n})
                result[name] = {"first_call": first, "per_call": COUNT["statements"] / calls}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    url = provision.fresh_database(prefix="bench_round_trips")
    try:
        result = asyncio.run(measure(url, args.calls))
    finally:
        provision.drop_database(url)
    for name in ("plain", "rated"):
        print(f"{name:>6}: {result[name]['per_call']:.2f} statements per live ctx.call "
              f"(first call of the job: {result[name]['first_call']})")
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()

"""Automations that fan out child jobs and poll a paged feed, and a worker process running them.

``python -m tests.support.fanout`` runs a worker on ``$WORKER_DB``. When ``$KILL_MARKER`` names a
file that does not exist yet, the first job to reach its kill point creates it and SIGKILLs its
own process: ``fan-out`` after enqueueing child ``kill_at``, ``poll-items`` after its fetch
step is recorded and before ``start_new``. The next worker reclaims the job once its lease ends.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx

from queue_core import (Context, JobSpec, Queue, Registry, TerminalError, Trigger, Worker, WorkerConfig,
                        automation, db)
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers

registry = Registry()
PAGE = 5  # items per page; page p holds ids 3p .. 3p+4, so consecutive pages share two ids


def _kill_point() -> None:
    marker = os.environ.get("KILL_MARKER")
    if marker and not Path(marker).exists():
        Path(marker).write_text("killed")
        os.kill(os.getpid(), signal.SIGKILL)


@automation("fan-out", registry=registry)
async def fan_out(ctx: Context, trigger: Trigger) -> None:
    body = trigger.body
    for i in range(body["n"]):
        await ctx.enqueue("child-work", {"i": i, "fail": i in body.get("fail", []), "hold": body.get("hold", False)}, key=f"item-{i}")
        if i == body.get("kill_at"):
            _kill_point()
    if body.get("wait", True):
        outcomes = await ctx.wait_for_children(policy=body.get("policy", "fail"))
        summary = [{"key": o.key, "status": o.status, "error": o.error, "outputs": o.outputs} for o in outcomes]
        await ctx.step("summary", lambda: summary)


@automation("child-work", registry=registry)
async def child_work(ctx: Context, trigger: Trigger) -> None:
    if trigger.body.get("hold"):
        await ctx.wait_for_token("release")
    if trigger.body.get("fail"):
        raise TerminalError(f"item {trigger.body['i']} is broken")
    ctx.decide("doubled", trigger.body["i"] * 2)
    ctx.trace.outputs["doubled"] = trigger.body["i"] * 2


@automation("poll-items", registry=registry)
async def poll_items(ctx: Context, trigger: Trigger) -> None:
    cursor = await ctx.poll_cursor(default={"page": 0})
    page = (await ctx.call("feed", "GET", "/items", params={"page": cursor["page"]}, step="fetch")).json()
    _kill_point()
    await ctx.start_new("handle-item", page["items"], id_of=lambda item: item["id"],
                        cursor={"page": page["next"]}, keep_last=int(trigger.body.get("keep_last", 10_000)))


@automation("handle-item", registry=registry)
async def handle_item(ctx: Context, trigger: Trigger) -> None:
    ctx.decide("item", trigger.body["id"])


def feed_page(page: int) -> dict[str, Any]:
    """Page ``page`` of the feed: overlaps the previous page by two ids and always repeats id 0."""
    ids = [3 * page + n for n in range(PAGE)] + [0]
    return {"items": [{"id": i, "title": f"item {i}"} for i in ids], "next": page + 1}


def _feed(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=feed_page(int(request.url.params["page"])))


def gateway(pool: Any) -> Gateway:
    """A gateway whose ``feed`` provider is answered in-process by :func:`feed_page`."""
    providers = parse_providers({"feed": {"base_url": "http://feed.test", "timeout": 5.0}})
    return Gateway(providers, pool, transport=httpx.MockTransport(_feed))


async def poll_times(pool, n: int, body: dict | None = None) -> None:
    """Run ``n`` polls one after the other, each to completion, on an in-process worker."""
    queue = Queue(pool, registry=registry)
    async with gateway(pool) as gw:
        worker = Worker(pool, registry, WorkerConfig(concurrency=4, lease_s=5, poll_s=0.05), gateway=gw)
        task = asyncio.create_task(worker.run())
        try:
            for _ in range(n):
                job = await queue.enqueue(JobSpec("poll-items", body or {}))
                deadline = time.monotonic() + 20
                while (await queue.get(job))["status"] != "succeeded":
                    assert time.monotonic() < deadline and not task.done(), "the poll did not finish"
                    await asyncio.sleep(0.05)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 15)


async def main() -> None:
    url = os.environ["WORKER_DB"]
    cfg = WorkerConfig(concurrency=4, lease_s=2.0, heartbeat_s=0.4, poll_s=0.05)
    async with db.pool(url, max_size=8) as pool, gateway(pool) as gw:
        await Worker(pool, registry, cfg, conninfo=url, gateway=gw).run()


if __name__ == "__main__":
    asyncio.run(main())

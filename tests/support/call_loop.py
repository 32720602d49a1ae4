"""Automations that make outbound calls through the gateway, and a worker process running them.

``python -m tests.support.call_loop`` runs a worker on ``$WORKER_DB`` whose gateway sends the
``sheet`` provider's calls to ``$PROVIDER_URL`` (a FakeProvider of the test process), with the
created row's id read from the response body (``external_ref = "/id"``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

import httpx

from queue_core import Context, Registry, Trigger, Worker, WorkerConfig, automation, db
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers

registry = Registry()


@automation("add-rows", registry=registry)
async def add_rows(ctx: Context, trigger: Trigger) -> None:
    """One call per item at the same step name: occurrences 0..n-1 of ``add-row``."""
    for item in range(trigger.body["n"]):
        await ctx.call("sheet", "POST", "/rows", json={"row": item}, step="add-row")


@automation("create-contact", registry=registry)
async def create_contact(ctx: Context, trigger: Trigger) -> None:
    await ctx.call(trigger.body.get("provider", "sheet"), "POST", "/contacts", json={"email": "a@x.test"},
                   step="create")


def providers(url: str, **extra: Mapping[str, Any]) -> dict[str, Any]:
    """The ``sheet`` provider at ``url`` (external_ref ``/id``) and any ``extra`` provider tables."""
    return parse_providers({"sheet": {"base_url": url, "external_ref": "/id", "timeout": 10.0}, **extra})


def gateway(pool: Any, url: str, transport: httpx.AsyncBaseTransport | None = None,
            **extra: Mapping[str, Any]) -> Gateway:
    return Gateway(providers(url, **extra), pool, transport=transport)


async def main() -> None:
    url = os.environ["WORKER_DB"]
    cfg = WorkerConfig(concurrency=2, lease_s=2.0, heartbeat_s=0.4, poll_s=0.05)
    async with db.pool(url, max_size=6) as pool, gateway(pool, os.environ["PROVIDER_URL"]) as gw:
        await Worker(pool, registry, cfg, conninfo=url, gateway=gw).run()


if __name__ == "__main__":
    asyncio.run(main())

"""A scaffolded New Spreadsheet Row Zap polls on the real queue: the rows there at the first poll are seen, and
each row added later starts one run of the Zap, once, however many polls read it (Zapier's dedupe on the id)."""

from __future__ import annotations

import asyncio
import functools
import time

import httpx

import queue_core
from harness.platforms.zapier.definition import read_zaps
from harness.platforms.zapier.translate import ZapFile, build
from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.unit.test_zapier_poll import SHEET, zapfile


def _registry() -> Registry:
    (zap,) = read_zaps(zapfile())
    source = build(ZapFile(zap, ""), "leads", {"api.example.test": "crm"}, {}).source
    registry = Registry()
    namespace = {"__name__": "leads_scaffold"}
    text = source.replace("from queue_core import Context, Trigger, automation", "from queue_core import Context, Trigger")
    namespace["automation"] = functools.partial(queue_core.automation, registry=registry)
    exec(compile(text, "<leads>", "exec"), namespace)  # noqa: S102 - the scaffold's own module
    return registry


async def test_each_new_row_starts_one_run_of_the_zap(pool) -> None:
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE poller_state, poller_seen")
        await conn.execute("DELETE FROM jobs WHERE automation IN ('leads', 'leads-poll')")
    sheet = [list(r) for r in SHEET]
    posted: list[dict] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host == "sheets.googleapis.com":
            return httpx.Response(200, json={"values": sheet})
        posted.append(__import__("json").loads(request.content))
        return httpx.Response(200, json={"ok": True})

    providers = parse_providers({"google-sheets": {"base_url": "https://sheets.googleapis.com", "timeout": 5.0},
                                 "crm": {"base_url": "https://api.example.test", "timeout": 5.0}})
    registry = _registry()
    queue = Queue(pool, registry=registry)
    async with Gateway(providers, pool, transport=httpx.MockTransport(answer)) as gw:
        worker = Worker(pool, registry, WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05), gateway=gw)
        task = asyncio.create_task(worker.run())
        try:
            for added in ([], [["Linus", "linus@example.test"]], [], [["Barbara", "barbara@example.test"]]):
                sheet.extend(added)
                job = await queue.enqueue(JobSpec("leads-poll", {}))
                deadline = time.monotonic() + 20
                while (await queue.get(job))["status"] != "succeeded":
                    assert time.monotonic() < deadline and not task.done(), "the poll did not finish"
                    await asyncio.sleep(0.05)
            deadline = time.monotonic() + 20
            while len(posted) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 15)
    async with pool.connection() as conn:
        runs = await (await conn.execute("SELECT trigger_meta->>'item_id', status FROM jobs WHERE automation = 'leads' "
                                         "ORDER BY created_at")).fetchall()
    assert runs == [("4", "succeeded"), ("5", "succeeded")], "rows 2 and 3 were there at the first poll"
    assert sorted(p["email"] for p in posted) == ["barbara@example.test", "linus@example.test"]

"""A scaffolded Make scenario that starts with Google Sheets' Watch rows, run by a real worker on Postgres.

A schedule tick polls the sheet through the gateway (the Sheets API answered in-process), starts one
job per row added since the last poll (``ctx.start_new``: Make's dedupe on the row number), and each
started job runs the scenario's flow on its row; the first poll starts from now, as Make's default.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.platforms.make.definition import load_blueprint
from harness.platforms.make.translate import build
from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig
from queue_core import registry as registry_module
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers

AUTOMATION = "watch-sheet"
BLUEPRINT = {"name": "watch sheet", "metadata": {"instant": False, "version": 1}, "flow": [
    {"id": 1, "module": "google-sheets:watchRows", "version": 2, "mapper": {}, "metadata": {"designer": {"x": 0, "y": 0}},
     "parameters": {"from": "drive", "mode": "select", "limit": 10, "sheetId": "Sheet1", "__IMTCONN__": 1,
                    "spreadsheetId": "1SxO", "tableFirstRow": "A1:C1", "includesHeaders": True}},
    {"id": 2, "module": "util:SetVariable2", "version": 1, "parameters": {}, "metadata": {"designer": {"x": 300, "y": 0}},
     "mapper": {"name": "event", "scope": "roundtrip", "value": "{{1.`2`}} on {{1.`0`}}"}}]}


def _registry() -> Registry:
    scaffold = build(load_blueprint(Path("watch-sheet.json"), BLUEPRINT), AUTOMATION, {})
    saved, registry_module.default_registry = registry_module.default_registry, Registry()
    try:
        exec(compile(scaffold.source, "watch_sheet.py", "exec"), {})
        return registry_module.default_registry
    finally:
        registry_module.default_registry = saved


async def _rows(pool: Any, query: str) -> list[tuple]:
    async with pool.connection() as conn:
        return await (await conn.execute(query)).fetchall()


@pytest.fixture
async def clean(pool):
    async with pool.connection() as conn:
        for table in ("poller_seen", "poller_state"):  # this poller's rows only: other tests may poll meanwhile
            await conn.execute(f"DELETE FROM {table} WHERE poller = %s", (AUTOMATION,))
        await conn.execute("DELETE FROM jobs WHERE automation = %s", (AUTOMATION,))
    return pool


async def test_watch_rows_starts_each_new_row_once_and_each_runs_the_flow(clean) -> None:
    pool = clean
    sheet = [["start", "end", "name"], ["6/3", "6/4", "Kickoff"]]
    asked: list[str] = []

    def sheets_api(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, json={"range": "Sheet1!A1:C", "values": sheet})

    registry = _registry()
    queue = Queue(pool, registry=registry)
    providers = parse_providers({"sheets": {"base_url": "https://sheets.googleapis.com", "timeout": 5.0}})
    async with Gateway(providers, pool, transport=httpx.MockTransport(sheets_api)) as gw:
        worker = Worker(pool, registry, WorkerConfig(concurrency=4, lease_s=5, poll_s=0.05), gateway=gw)
        task = asyncio.create_task(worker.run())
        try:
            async def tick() -> None:
                job = await queue.enqueue(JobSpec(AUTOMATION, {}, trigger_meta={"source": "schedule"}))
                deadline = time.monotonic() + 20
                while (await queue.get(job))["status"] != "succeeded":
                    assert time.monotonic() < deadline and not task.done(), "the tick did not finish"
                    await asyncio.sleep(0.05)

            await tick()  # from now on: the row already there is not started
            sheet += [["6/5", "6/6", "Review"], ["6/7", "6/8", "Retro"]]
            await tick()
            await tick()  # nothing new: nothing started
            sheet.append(["6/9", "6/10", "Demo"])
            await tick()
            deadline = time.monotonic() + 20
            while True:
                started = await _rows(pool, f"SELECT trigger_meta->>'item_id', status, payload FROM jobs "
                                            f"WHERE automation = '{AUTOMATION}' AND trigger_meta->>'source' = 'poll' "
                                            f"ORDER BY (trigger_meta->>'item_id')::int")
                if len(started) == 3 and all(s == "succeeded" for _, s, _ in started):
                    break
                assert time.monotonic() < deadline, f"the started rows did not all run: {started}"
                await asyncio.sleep(0.05)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 15)
    assert [i for i, _, _ in started] == ["3", "4", "5"]
    assert started[0][2] == {"__ROW_NUMBER__": 3, "__SPREADSHEET_ID__": "1SxO", "__SHEET__": "Sheet1",
                             "0": "6/5", "1": "6/6", "2": "Review"}
    assert all(url == "https://sheets.googleapis.com/v4/spreadsheets/1SxO/values/'Sheet1'!A1:C" for url in asked)
    assert len(asked) == 4, "only the ticks read the sheet; a started row's job runs on its own bundle"
    (cursor,), = await _rows(pool, f"SELECT cursor FROM poller_state WHERE poller = '{AUTOMATION}'")
    assert cursor == {"row": 5}

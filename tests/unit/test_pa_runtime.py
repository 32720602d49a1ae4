"""The Power Automate runtime's bookkeeping: outputs kept in the trace as the importer keeps the legacy run's."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from queue_core.compat import power_automate


def _ctx() -> Any:
    return SimpleNamespace(trace=SimpleNamespace(outputs={}), job_id="j", decide=lambda *a: None)


def test_an_action_s_outputs_go_to_the_trace_as_the_history_import_keeps_them() -> None:
    ctx = _ctx()
    run = power_automate.FlowRun(ctx, None)

    async def compose(run: Any) -> Any:
        return {"a": 1}

    async def call(run: Any) -> Any:
        return {"statusCode": 200, "headers": {}, "body": {"id": 7}}

    async def variable(run: Any) -> Any:
        return power_automate.NO_OUTPUTS

    async def flow() -> None:
        await run.act("Compose", {}, compose)
        await run.act("Call", {"Compose": ["Succeeded"]}, call)
        await run.act("Init", {"Call": ["Succeeded"]}, variable)
        await run.act("Skipped", {"Call": ["Failed"]}, compose)

    asyncio.run(flow())
    assert ctx.trace.outputs == {"Compose": {"a": 1}, "Call": {"id": 7}}
    assert run.status_of == {"Compose": "Succeeded", "Call": "Succeeded", "Init": "Succeeded", "Skipped": "Skipped"}


def test_the_outputs_of_an_action_inside_a_foreach_stay_out_of_the_trace() -> None:
    ctx = _ctx()
    run = power_automate.FlowRun(ctx, None)
    run.define(members={"Each": ["Inner"]}, top=["Each"])

    async def inner(run: Any) -> Any:
        return run.item()

    async def each(run: Any) -> None:
        await run.act("Inner", {}, inner)

    async def loop(run: Any) -> Any:
        return await run.foreach("Each", [1, 2], each)

    asyncio.run(run.act("Each", {}, loop))
    assert ctx.trace.outputs == {} and run.outputs("Inner") == 2  # after the loop: its last iteration's

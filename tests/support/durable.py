"""Automations for the durable-execution tests. Side effects go to the ``effects`` table, keyed
by the child idempotency key; ``progress`` rows let a test watch a job from outside."""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from typing import Any

import psycopg

from queue_core import Context, Registry, TerminalError, Trigger, automation

registry = Registry()


def _db() -> str:
    return os.environ["WORKER_DB"]


async def effect(ctx: Context, name: str, value: Any = None) -> None:
    """Apply a side effect once per key (as an idempotent provider would); count deliveries."""
    async with await psycopg.AsyncConnection.connect(_db(), autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO effects (key, job_id, name, deliveries, applied_at) VALUES (%s, %s, %s, 1, clock_timestamp())"
            " ON CONFLICT (key) DO UPDATE SET deliveries = effects.deliveries + 1",
            (ctx.idempotency_key(name), ctx.job_id, name),
        )


async def progress(ctx: Context, what: str, value: int = 0) -> None:
    async with await psycopg.AsyncConnection.connect(_db(), autocommit=True) as conn:
        await conn.execute("INSERT INTO progress (job_id, what, value) VALUES (%s, %s, %s)", (ctx.job_id, what, value))


@automation("two-steps", registry=registry)
async def two_steps(ctx: Context, trigger: Trigger) -> None:
    async def first() -> str:
        await effect(ctx, "first")
        return "one"

    async def second() -> str:
        await effect(ctx, "second")
        return "two"

    assert await ctx.step("first", first) == "one"
    await progress(ctx, "between")
    if trigger.body.get("hang") and not ctx.job.reclaimed:
        await asyncio.sleep(60)  # the test SIGKILLs the worker here, between the two steps
    await ctx.step("second", second)


@automation("checkpointed", registry=registry)
async def checkpointed(ctx: Context, trigger: Trigger) -> None:
    total = trigger.body["items"]

    async def import_rows() -> int:
        start = (ctx.last_checkpoint() or {"next": 0})["next"]
        await progress(ctx, "start", start)
        for item in range(start, total):
            if item % 100 == 0:
                await ctx.checkpoint({"next": item})
            await progress(ctx, "item", item)
            if item == 250 and start == 0:
                await asyncio.sleep(60)  # the test SIGKILLs the worker at item 250
        return total

    await ctx.step("import-rows", import_rows)


@automation("saga", registry=registry)
async def saga(ctx: Context, trigger: Trigger) -> None:
    async def undo(name: str) -> None:
        await progress(ctx, f"undo-start:{name}")
        if name == "reserve" and trigger.body.get("crash_in_rollback"):
            async with await psycopg.AsyncConnection.connect(_db(), autocommit=True) as conn:
                row = await (await conn.execute("SELECT count(*) FROM progress WHERE what = 'undo-start:reserve'")).fetchone()
            if row and row[0] == 1:
                await asyncio.sleep(60)  # the test SIGKILLs the worker in the middle of the rollback
        await effect(ctx, f"undo:{name}")

    async def do(name: str) -> str:
        await effect(ctx, name)
        return name

    async def fail() -> None:
        raise TerminalError("card declined")

    ctx.on_failure(undo, "reserve")
    await ctx.step("reserve", do, "reserve")
    ctx.on_failure(undo, "charge")
    await ctx.step("charge", do, "charge")
    await ctx.step("ship", fail)


@automation("approval", registry=registry)
async def approval(ctx: Context, trigger: Trigger) -> None:
    res = await ctx.wait_for_token("manager", timeout=timedelta(days=2))
    ctx.decide("approval", res.decision)
    await ctx.step("record", lambda: {"decision": res.decision, "payload": res.payload})


@automation("two-approvals", registry=registry)
async def two_approvals(ctx: Context, trigger: Trigger) -> None:
    first = await ctx.wait_for_token("manager", timeout=timedelta(days=2))
    second = await ctx.wait_for_token("finance", timeout=timedelta(days=2))
    ctx.decide("approvals", [first.decision, second.decision])


@automation("short-approval", registry=registry)
async def short_approval(ctx: Context, trigger: Trigger) -> None:
    ctx.on_failure(lambda: None)
    await ctx.wait_for_token("manager", timeout=timedelta(seconds=trigger.body["timeout"]),
                             on_timeout=trigger.body["on_timeout"])


@automation("sleeper", registry=registry)
async def sleeper(ctx: Context, trigger: Trigger) -> None:
    await ctx.step("before", lambda: "x")
    await ctx.sleep(trigger.body["seconds"])
    await ctx.step("after", lambda: "y")


@automation("flag-waiter", registry=registry)
async def flag_waiter(ctx: Context, trigger: Trigger) -> None:
    res = await ctx.wait_for("SELECT 1 FROM flags WHERE name = %(name)s", {"name": trigger.body["flag"]})
    ctx.decide("flag", res.decision)


class CardDeclined(TerminalError):
    """A typed terminal error, re-raised as such on replay."""


@automation("typed-failure", registry=registry)
async def typed_failure(ctx: Context, trigger: Trigger) -> None:
    async def charge() -> None:
        await progress(ctx, "charge-ran")
        raise CardDeclined("insufficient funds")

    try:
        await ctx.step("charge", charge)
    except CardDeclined as exc:
        await progress(ctx, "caught:" + type(exc).__name__)
        raise


@automation("upcasting", registry=registry)
async def upcasting(ctx: Context, trigger: Trigger) -> None:
    async def work() -> Any:
        if trigger.body.get("old_code") and ctx.attempt == 1:
            await ctx.checkpoint({"cursor": 7}, version=1)
            raise RuntimeError("crash after an old-format checkpoint")
        return ctx.last_checkpoint(version=2)

    await ctx.step("import-rows", work)

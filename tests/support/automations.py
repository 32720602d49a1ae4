"""Automations used by the queue's own tests, registered in a private registry."""

from __future__ import annotations

from typing import Any

from queue_core import Context, Registry, RetryableError, Snooze, TerminalError, Trigger, automation

registry = Registry()


@automation("noop", registry=registry)
async def noop(ctx: Context, trigger: Trigger) -> None:
    return None


@automation("fail-terminal", registry=registry)
async def fail_terminal(ctx: Context, trigger: Trigger) -> None:
    raise TerminalError("the account is closed")


@automation("fail-retryable", registry=registry)
async def fail_retryable(ctx: Context, trigger: Trigger) -> None:
    raise RetryableError("upstream timed out", delay=trigger.body.get("delay"))


@automation("explode", registry=registry)
async def explode(ctx: Context, trigger: Trigger) -> None:
    raise KeyError("missing-field")


@automation("snooze", registry=registry)
async def snooze(ctx: Context, trigger: Trigger) -> None:
    if ctx.attempt == 1 and not trigger.body.get("done"):
        raise Snooze(30, "waiting for the CRM to catch up")


@automation("decider", registry=registry)
async def decider(ctx: Context, trigger: Trigger) -> Any:
    ctx.decide("route", "enterprise" if trigger.body.get("employees", 0) > 1000 else "smb")
    if trigger.body.get("free"):
        ctx.filter("free plan")

"""n8n's Wait node: an interval, a point in time, or an HTTP call that resumes the run, each a durable wait.

What n8n does (``n8n-nodes-base/nodes/Wait``), and what this does with the queue's waits (the job
releases its worker; a retry or reclaim keeps the first attempt's wake time):

- ``timeInterval``: ``amount`` (a number, or what an expression gave: ``"10"`` counts as 10, as
  JavaScript's ``*`` reads it) times the ``unit`` (seconds, minutes, hours, days), evaluated once,
  with the first item, as n8n reads ``getNodeParameter(..., 0)``; then the input items pass on;
- ``specificTime``: ``dateTime`` (ISO text, an expression's date) read in the workflow's timezone
  when it names none; a time past wakes at once;
- in shadow and dry-run both are durable sleeps of no time (a replay's clock stands at the
  trigger's time: a timer would never come due);
- ``webhook``: the run waits for one HTTP call; it outputs one item ``{headers, params, query,
  body}`` as a Webhook node does. Here the call is the control plane's ``POST
  /waits/<token>/resolve`` (``ctx.create_token``: the resume URL is ``flow.resume_urls[node]``),
  its ``payload`` the item's body; ``limitWaitTime`` ends the wait at its limit with the input
  items, as n8n resumes a timed-out Wait. In shadow and dry-run the legacy run's recorded
  output of the node answers (nothing waits for a call that a replay never makes).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ..errors import NodeFailed, TerminalError, WaitTimeoutError

Items = list[dict[str, Any]]


def _emitted(flow: Any, node: str, items: Items) -> Items:
    """Record ``items`` as ``node``'s output (``Flow.emit``) and return them."""
    flow.emit(node, items)
    return items
UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}


def _first(items: Items, value: Any) -> Any:
    """A parameter as n8n reads it for item 0: an expression (a function of item, index) or a literal."""
    if callable(value):
        return value(items[0] if items else {"json": {}}, 0)
    return value


def _number(node: str, what: str, value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value.strip() or 0) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise NodeFailed(f"{node}: the wait {what} {value!r} is not a number") from None
    if math.isnan(number) or math.isinf(number):
        raise NodeFailed(f"{node}: the wait {what} {value!r} is not a number")
    return number


def interval_seconds(node: str, amount: Any, unit: Any) -> float:
    """Return the seconds a ``timeInterval`` Wait waits for ``amount`` of ``unit`` (n8n's arithmetic)."""
    factor = UNITS.get(str(unit))
    if factor is None:
        raise NodeFailed(f"{node}: the wait unit {unit!r} is not one of {', '.join(UNITS)}")
    return max(_number(node, "amount", amount) * factor, 0.0)


def moment(node: str, value: Any, timezone: str | None) -> datetime:
    """Return the time a ``specificTime`` Wait wakes at: ISO text (or a date), in ``timezone`` when naive."""
    if isinstance(value, datetime):
        when = value
    else:
        text = str(value or "").strip()
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise NodeFailed(f"{node}: Cannot put execution to wait because `dateTime` parameter is not a valid "
                             f"date ({text!r})") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=ZoneInfo(timezone) if timezone else UTC)
    return when


def _replayed(ctx: Any) -> bool:
    """A shadow or dry-run job: its clock stands at the trigger's time, so a timer would never come due."""
    return getattr(ctx, "mode", "live") != "live"


async def wait_interval(flow: Any, node: str, items: Items, amount: Any, unit: Any) -> Items:
    """Wait ``amount`` ``unit`` durably (values or functions of item 0); return the items.

    In shadow and dry-run the wait is a durable sleep of no time: a replay proves what the
    workflow does, not its pacing, and its clock stands still at the trigger's time.
    """
    seconds = interval_seconds(node, _first(items, amount), _first(items, unit))
    await flow.ctx.sleep(0 if _replayed(flow.ctx) else seconds)
    return _emitted(flow, node, items)


async def wait_until(flow: Any, node: str, items: Items, when: Any, timezone: str | None = None) -> Items:
    """Wait durably until ``when`` (a value or a function of item 0); return the items (a replay: no wait)."""
    wake = moment(node, _first(items, when), timezone)
    if _replayed(flow.ctx):
        await flow.ctx.sleep(0)
    else:
        await flow.ctx.sleep_until(wake)
    return _emitted(flow, node, items)


def _limit(flow: Any, node: str, items: Items, seconds: Any, unit: Any, until: Any,
           timezone: str | None) -> timedelta | None:
    """The webhook wait's limit (``limitWaitTime``) from now: an interval, or a time; None: no limit."""
    if until is not None:
        now: datetime = flow.ctx.now()
        return max(moment(node, _first(items, until), timezone) - now, timedelta(0))
    if seconds is not None:
        return timedelta(seconds=interval_seconds(node, _first(items, seconds), _first(items, unit)))
    return None


async def wait_webhook(flow: Any, node: str, items: Items, *, key: str, limit_amount: Any = None,
                       limit_unit: Any = "hours", limit_until: Any = None, timezone: str | None = None) -> Items:
    """Wait durably for the call that resumes ``node``; return its item (the input items past the limit)."""
    ctx = flow.ctx
    if getattr(ctx, "mode", "live") != "live":
        return _emitted(flow, node, await _recorded(ctx, node, key))
    timeout = _limit(flow, node, items, limit_amount, limit_unit, limit_until, timezone)
    runs = len(getattr(flow, "runs", {}).get(node, []))
    name = f"{key}#{runs}"  # one token per run of the node: a Wait in a loop is resumed once per pass
    token = await ctx.create_token(name)
    urls = getattr(flow, "resume_urls", None)
    if not isinstance(urls, dict):
        urls = flow.resume_urls = {}
    urls[node] = token.resume_url  # $execution.resumeUrl of this wait, for the code that hands it out
    try:
        resolution = await ctx.wait_for_token(name, timeout=timeout)
    except WaitTimeoutError:
        return _emitted(flow, node, items)  # n8n resumes a timed-out Wait with its input items
    body = resolution.payload if resolution.payload is not None else {}
    return _emitted(flow, node, [{"json": {"headers": {}, "params": {}, "query": {}, "body": body}}])


async def _recorded(ctx: Any, node: str, key: str) -> Items:
    gateway = getattr(ctx, "_gateway", None)  # the recording the harness answers shadow calls from
    recorded = gateway.recorded(ctx.automation, ctx.trigger_id, key) if gateway is not None else None
    if recorded is None or not isinstance(recorded.json, list):
        raise TerminalError(f"Wait {node!r} resumes on an HTTP call: in a replay its recorded output (step {key!r}) "
                            "answers it, and the recording has none")
    elements = recorded.json
    returned = await ctx.step(key, lambda: elements)
    return [{"json": e if isinstance(e, dict) else {"value": e}} for e in returned or []]


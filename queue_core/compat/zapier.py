"""The runtime of automations scaffolded from Zaps (``cutover scaffold zapier``).

A Zap runs its steps in order, each step's output mapped into later steps' fields as
``{{<step id>__<field>__<sub field>}}`` (Zapier flattens nested output keys with ``__``). A
scaffolded automation keeps that model: a ``Run`` holds every step's output by step id
(``run.out["5"]``), ``field`` reads one mapped field, ``concat`` writes a field's text, and the
run records what ``cutover import zapier --definition Zapfile.json`` records for the same Zap:

- a Filter by Zapier step is a decision valued ``passed`` or ``stopped``; one that stops ends the
  run ``filtered`` (``run.filter``);
- a Paths step is one decision named after it and valued with the label of the path that ran
  (a list when several did; Zapier runs every path whose rules pass, in order); a run in which no
  path's rules passed ends ``filtered`` (``run.finish``).

Filter rules are ``_zapier_filter``; Code by Zapier ``_zapier_code``; Formatter by Zapier
``_zapier_formatter`` (imported when a Formatter step runs).
"""

from __future__ import annotations

import json as jsonlib
from datetime import datetime, timedelta
from typing import Any

from ..context import RETURNED_STEP
from ..errors import TerminalError
from ..errors import TodoModule as TodoStep
from ._zapier_code import input_data, outputs, run_javascript, run_javascript_fetch
from ._zapier_filter import OPERATORS, number, passes, text
from ._zapier_gmail import send as gmail_send
from ._zapier_sheets import add_row as sheets_add
from ._zapier_sheets import lookup_row as sheets_lookup
from ._zapier_sheets import poll_rows as sheets_poll
from ._zapier_sheets import update_row as sheets_update

FILTER_OPERATORS: frozenset[str] = frozenset(OPERATORS)

__all__ = ["FILTER_OPERATORS", "Run", "ZapRun", "TodoStep", "app_call", "concat", "delay_for", "delay_until", "field",
           "formatter", "gmail_send", "hook_output", "input_data", "loop_outputs", "number", "outputs", "passes", "run_javascript",
           "run_javascript_fetch", "sheets_add", "sheets_lookup", "sheets_poll", "sheets_update",
           "storage", "sub_call", "sub_return", "text", "unflatten", "webhook"]


class ZapRun:
    """One run of a scaffolded Zap: each step's output by id, the paths taken."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.out: dict[str, Any] = {}
        self._paths: dict[str, list[str]] = {}
        self._open: str | None = None  # the last Paths step reached whose paths are being tried

    def emit(self, step: str, output: Any) -> Any:
        """Record ``output`` as step ``step``'s output and return it."""
        self.out[step] = output
        return output

    def filter(self, decision: str, proceed: Any, stop: Any = (), *, label: str) -> None:
        """A Filter by Zapier step: decide ``passed``/``stopped``; a stop ends the run ``filtered``."""
        held = passes(proceed, stop)
        self.ctx.decide(decision, "passed" if held else "stopped")
        if not held:
            self.ctx.filter(f"Filter by Zapier {label!r}: the data did not pass its rules")

    def gate(self, decision: str, proceed: Any, stop: Any = ()) -> bool:
        """A filter inside a path: decide ``passed``/``stopped``; return whether the path goes on."""
        held = passes(proceed, stop)
        self.ctx.decide(decision, "passed" if held else "stopped")
        return held

    def paths(self, decision: str) -> None:
        """Record that the run reached the Paths step whose decision is ``decision``."""
        self._paths.setdefault(decision, [])
        self._open = decision

    def path(self, decision: str, label: str, proceed: Any, stop: Any = ()) -> bool:
        """Return whether path ``label`` runs (its rules pass); decide the paths taken so far."""
        if not passes(proceed, stop):
            return False
        taken = self._paths.setdefault(decision, [])
        taken.append(label)
        self.ctx.decide(decision, taken[0] if len(taken) == 1 else list(taken))
        return True

    def now(self) -> datetime:
        """Return the job's clock (the trigger's time in a shadow replay)."""
        return self.ctx.now()  # type: ignore[no-any-return]

    def finish(self) -> None:
        """End the run ``filtered`` when its Paths step ran no path (every path's rules failed)."""
        if self._open is not None and not self._paths.get(self._open):
            self.ctx.filter(f"Paths {self._open!r}: no path's rules passed")


Run = ZapRun  # what a scaffolded module opens: ``run = zapier.Run(ctx)``


def field(out: dict[str, Any], step: str, *path: str) -> Any:
    """Return ``{{step__a__b}}``: a field of a step's output (None when absent).

    Nested objects are walked key by key; when a key is not there, the rest of the path joined
    with ``__`` is tried (an output already flattened, as Zapier shows it); over an array (line
    items) the rest of the path is read from each element, giving a list.
    """
    return _walk(out.get(step), list(path))


def _walk(value: Any, path: list[str]) -> Any:
    for position, part in enumerate(path):
        if isinstance(value, list):
            return [_walk(v, path[position:]) for v in value]
        if not isinstance(value, dict):
            return None
        if part in value:
            value = value[part]
            continue
        joined = "__".join(path[position:])
        return value.get(joined)
    return value


def concat(*parts: Any) -> str:
    """Return a mapped field's text: each part as Zapier writes it (null as nothing, lists comma-joined)."""
    return "".join(text(p) for p in parts)


def hook_output(trigger: Any) -> dict[str, Any]:
    """Return a Catch Hook trigger's output: the delivery's JSON object (an empty one when none)."""
    body = getattr(trigger, "body", None)
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise TerminalError("Webhooks by Zapier: the delivery's body is not a JSON object; Zapier starts one run "
                            "per element of an array, so split such a delivery before it reaches this automation")
    return body


def _duration(value: Any, unit: str) -> timedelta:
    amount = number(value)
    if amount is None:
        raise TerminalError(f"Delay by Zapier: {text(value)!r} is not a number of {unit}")
    if amount <= 0:  # "Delay releases instantly when ... the Time Delayed For value is 0 or a negative number"
        return timedelta(0)
    seconds = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800}.get(unit.lower().rstrip("s") + "s")
    if seconds is None:
        raise TerminalError(f"Delay by Zapier: unit {unit!r} is not minutes, hours, days or weeks")
    return timedelta(seconds=float(amount) * seconds)


async def delay_for(ctx: Any, value: Any, unit: str) -> dict[str, Any]:
    """Delay For: a durable sleep of ``value`` ``unit`` (none for 0 or less); the output is when it resumed."""
    await ctx.sleep(_duration(value, unit))  # a zero wait still is the step (the trace's path holds it)
    return {"delayed_until": ctx.now().isoformat()}


async def delay_until(ctx: Any, when: Any) -> dict[str, Any]:
    """Delay Until: a durable sleep until the mapped date/time (a past one goes on at once)."""
    from ._zapier_filter import instant

    at = instant(when)
    if at is None:
        raise TerminalError(f"Delay by Zapier: {text(when)!r} is not a date/time")
    await ctx.sleep_until(at)  # a past time releases at once
    return {"delayed_until": at.isoformat()}


def _values(raw: Any) -> list[Any]:
    if isinstance(raw, list):
        return raw
    return [v.strip() for v in text(raw).split(",") if v.strip()]


def loop_outputs(values: dict[str, Any]) -> list[dict[str, Any]]:
    """Return Looping by Zapier's iterations over line items: one per position of the longest value
    list (a list, or comma-separated text), each with its values and ``loop_iteration`` (from 1),
    ``loop_iteration_is_last`` and ``loop_total_iterations``."""
    columns = {str(k): _values(v) for k, v in values.items()}
    total = max((len(v) for v in columns.values()), default=0)
    return [{**{k: (v[i] if i < len(v) else None) for k, v in columns.items()}, "loop_iteration": i + 1,
             "loop_iteration_is_last": i == total - 1, "loop_total_iterations": total} for i in range(total)]


def unflatten(fields: dict[str, Any]) -> dict[str, Any]:
    """Return a webhook's data with ``a__b`` keys made nested objects (Webhooks by Zapier's "unflatten")."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        parts = str(key).split("__")
        at = out
        for part in parts[:-1]:
            nxt = at.get(part)
            if not isinstance(nxt, dict):
                nxt = at[part] = {}
            at = nxt
        at[parts[-1]] = value
    return out


async def sub_call(ctx: Any, automation: str, data: Any, *, key: str) -> Any:
    """Call a Sub-Zap: a child job of ``automation`` given ``data``; its output is what the Sub-Zap returned."""
    await ctx.enqueue(automation, data if isinstance(data, dict) else {"value": data}, key=key)
    (outcome,) = [o for o in await ctx.wait_for_children(policy="fail") if o.key == key] or [None]
    returned = outcome.returned if outcome is not None else None
    return returned if isinstance(returned, dict) else {"value": returned}


async def sub_return(ctx: Any, value: Any) -> Any:
    """Return from a Sub-Zap: ``value`` is what the calling Zap's Call step outputs."""
    return await ctx.step(RETURNED_STEP, lambda: value)


def formatter(action: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run a Formatter by Zapier step (``_zapier_formatter.format_step``); return its output."""
    from . import _zapier_formatter

    result: dict[str, Any] = _zapier_formatter.format_step(action, params)
    return result


def _body(response: Any, step: str) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


async def webhook(ctx: Any, provider: str, method: str, url: str, *, step: str, json: Any = None,
                  data: Any = None, params: Any = None, headers: Any = None, content: Any = None) -> dict[str, Any]:
    """A Webhooks by Zapier action (POST, GET, PUT, Custom Request): one ``ctx.call``; its output.

    The output is the response's JSON object; a reply that is not one is ``{"text": body}``; a
    JSON array is ``{"value": [...]}`` (Zapier's own shape for those is not documented).
    """
    kwargs: dict[str, Any] = {}
    if isinstance(content, str):
        content = content.encode()
    for key, value in (("json", json), ("data", data), ("params", params), ("headers", headers), ("content", content)):
        if value is not None:
            kwargs[key] = value
    response = await ctx.call(provider, method, url, step=step, **kwargs)
    body = _body(response, step)
    if isinstance(body, dict):
        return body
    if isinstance(body, list):
        return {"value": body}
    return {"text": getattr(response, "text", "")}


async def app_call(ctx: Any, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   params: Any = None) -> dict[str, Any]:
    """An app step's REST call (a catalogue operation): one ``ctx.call``; its output is the JSON response."""
    kwargs: dict[str, Any] = {k: v for k, v in (("json", json), ("params", params)) if v is not None}
    response = await ctx.call(provider, method, url, step=step, **kwargs)
    body = _body(response, step)
    if not isinstance(body, dict):
        raise TerminalError(f"step {step!r}: the response is not a JSON object ({getattr(response, 'text', '')[:200]!r})")
    return body


async def storage(ctx: Any, provider: str, action: str, *, step: str, key: Any, value: Any = None) -> dict[str, Any]:
    """Storage by Zapier through its REST API (``store.zapier.com/api/records``), a provider recorded and replayed.

    ``set_value`` POSTs ``{key: value}``; ``get_value`` GETs ``?key=``; ``remove_value`` DELETEs it.
    The output is ``{key: value}`` as the API answers (``{}`` for a missing key).
    """
    name = text(key)
    if not name:
        raise TerminalError(f"Storage by Zapier {step!r}: the key is empty")
    if action == "set_value":
        response = await ctx.call(provider, "POST", "/api/records", step=step, json={name: value})
    elif action == "get_value":
        response = await ctx.call(provider, "GET", "/api/records", step=step, params={"key": name})
    elif action == "remove_value":
        response = await ctx.call(provider, "DELETE", "/api/records", step=step, json={"key": name})
    else:
        raise TerminalError(f"Storage by Zapier {step!r}: action {action!r} is not implemented")
    body = _body(response, step)
    return body if isinstance(body, dict) else {}


def json_text(value: Any) -> str:
    """Return a value as JSON text (a raw webhook body built from mapped fields)."""
    return jsonlib.dumps(value, ensure_ascii=False)

"""The Wait node: an interval, a point in time, or an HTTP call that resumes the run (a durable wait each).

Parameters are read as n8n reads them (``Node.settings``: version 1 waits 1 hour by default,
version 1.1 5 seconds); a parameter given by an expression is evaluated at run time with the
first item (``expr.value``, as n8n reads ``getNodeParameter(name, 0)``). The runtime is
``queue_core.compat._n8n_wait``.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code
from harness.scaffold._code import call, name, stmts

UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
WEBHOOK_NOTE = ("resumes on POST <resume URL> (/waits/<token>/resolve, a control token; the payload is the "
                "item's body) instead of n8n's /webhook-waiting URL: give the caller that URL "
                "(flow.resume_urls); in shadow the recorded output answers")


def _param(value: Any) -> ast.expr:
    """A parameter as generated code passes it: a literal, or ``lambda item, i: <expression>``."""
    if expr.is_expression(value):
        return _code.expr("lambda item, i: $value", value=expr.value(value))
    return _code.lit(value)


def _awaited(slot: Slot, runs: ast.expr) -> list[ast.stmt]:
    return [*stmts("items = $inp", inp=_input(slot)),
            *stmts("$var = (await $runs) if items else []", var=name(slot.var), runs=runs)]


def wait_node(node: Node, slot: Slot) -> NodeCode:
    """Wait: a durable sleep (an interval or until a time) or a durable wait for the call that resumes it."""
    params = node.settings
    resume = params.get("resume", "timeInterval")
    if resume == "timeInterval":
        return _interval(node, slot, params.get("amount"), params.get("unit"))
    if resume == "specificTime":
        runs = call("n8n.wait_until", name("flow"), node.name, name("items"), _param(params.get("dateTime")),
                    slot.timezone)
        return NodeCode([comment(node), *_awaited(slot, runs)], [slot.var])
    if resume == "webhook":
        return _webhook(node, slot, params)
    if resume == "form":
        raise Untranslatable("Wait resuming on a form submission is not translated: serve the form, then resolve "
                             "a wait token (ctx.create_token / ctx.wait_for_token) with its fields")
    raise Untranslatable(f"Wait resuming on {resume!r} is not one n8n has")


def _interval(node: Node, slot: Slot, amount: Any, unit: Any) -> NodeCode:
    expressed = expr.is_expression(amount) or expr.is_expression(unit)
    if not expressed and str(unit) not in UNITS:
        raise Untranslatable(f"Wait unit {unit!r} is not one n8n has")
    if not expressed:
        float(amount)  # a literal amount n8n could not multiply is the node's parameters not read
    runs = call("n8n.wait_interval", name("flow"), node.name, name("items"), _param(amount), _param(unit))
    return NodeCode([comment(node), *_awaited(slot, runs)], [slot.var],
                    why="the interval is evaluated at run time" if expressed else None)


def _webhook(node: Node, slot: Slot, params: dict[str, Any]) -> NodeCode:
    mode = params.get("responseMode", "onReceived")
    if mode != "onReceived":
        raise Untranslatable(f"Wait resuming on a webhook that answers with {mode!r} is not translated: the resume "
                             "call gets the control plane's answer, not the workflow's")
    options = params.get("options") or {}
    shaped = sorted(k for k in ("binaryData", "rawBody") if options.get(k))
    if shaped:
        raise Untranslatable(f"Wait resuming on a webhook with option(s) {', '.join(shaped)} is not translated")
    limit: dict[str, Any] = {}
    if params.get("limitWaitTime") is True:
        if params.get("limitType", "afterTimeInterval") == "atSpecifiedTime":
            limit = {"limit_until": _param(params.get("maxDateAndTime")), "timezone": slot.timezone}
        else:
            limit = {"limit_amount": _param(params.get("resumeAmount")), "limit_unit": _param(params.get("resumeUnit"))}
    runs = call("n8n.wait_webhook", name("flow"), node.name, name("items"), key=slot.step, **limit)
    auth = params.get("incomingAuthentication", "none")
    why = WEBHOOK_NOTE + (f"; n8n's {auth} on the call is replaced by the control token" if auth != "none" else "")
    return NodeCode([comment(node), _code.comment(f"Resumed by one call: {WEBHOOK_NOTE}"), *_awaited(slot, runs)],
                    [slot.var], why=why, call_step=slot.step)

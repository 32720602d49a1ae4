"""Respond to Webhook (v1–v1.5) and a Webhook's answer when its last node finishes: ``ctx.respond``.

The runtime is ``queue_core.compat._n8n_respond``; parameters are read with n8n's defaults
(``Node.settings``). A binary or JWT answer is left for a person.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import ANSWERS_CALLER, NodeCode, Slot, _input, comment
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, name, stmts



def _per_item(value: object) -> ast.expr:
    return _code.expr("lambda item, i: $v", v=expr.value(value))


def respond_node(node: Node, slot: Slot) -> NodeCode:
    params = node.parameters
    respond_with = str(params.get("respondWith", "firstIncomingItem"))
    if respond_with in ("binary", "jwt"):
        raise Untranslatable(f"Respond to Webhook with {respond_with!r} is not translated")
    if node.on_error != "stop":
        raise Untranslatable("Respond to Webhook continuing on error is not translated")
    options = params.get("options") or {}
    kwargs: dict[str, object] = {}
    if respond_with in ("json", "text"):
        kwargs["body"] = _per_item(params.get("responseBody", ""))
    if respond_with == "redirect":
        kwargs["redirect"] = _per_item(params.get("redirectURL", ""))
    if options.get("responseCode") not in (None, ""):
        code = options["responseCode"]
        if not isinstance(code, int):
            raise Untranslatable(f"a response code {code!r} that is not a number is not translated")
        kwargs["code"] = code
    entries = (options.get("responseHeaders") or {}).get("entries") or []
    if entries:
        kwargs["headers"] = _code.expr("lambda item, i: $h", h=dict_of(
            (str(e.get("name", "")), expr.value(e.get("value", ""))) for e in entries if isinstance(e, dict)))
    if options.get("responseKey"):
        kwargs["key"] = str(options["responseKey"])
    second = node.version == 1.3 or (node.version >= 1.4 and bool(params.get("enableResponseOutput")))
    if second:
        kwargs["response_output"] = True
    answer = call("n8n.respond", name("flow"), node.name, name("items"), respond_with, **kwargs)
    outs = [slot.var, f"{slot.var}_response"] if second else [slot.var]
    empty = ast.List([ast.List([], ast.Load()) for _ in outs], ast.Load())
    both = name(f"{slot.var}_outputs")
    lines = [comment(node), *stmts("items = $inp", inp=_input(slot)),
             *stmts("$both = (await $answer) if items else $empty", both=both, answer=answer, empty=empty)]
    for index, out in enumerate(outs):
        lines += stmts("$out = $both[$index]", out=name(out), both=both, index=index)
    return NodeCode(lines, outs, why=ANSWERS_CALLER)


def answers_when_done(node: Node) -> list[ast.stmt]:
    """A Webhook trigger whose answer is its last node's output: the statement that ends the run with it."""
    params = node.settings
    if params.get("responseMode") != "lastNode":
        return []
    options = params.get("options") or {}
    code = params.get("responseCode") if node.version < 2 else _code_of(options.get("responseCode"))
    field = options.get("responsePropertyName")
    return stmts("await n8n.respond_last(flow, $data, $code, $field)", data=str(params.get("responseData",
                 "firstEntryJson")), code=int(code) if isinstance(code, int) else 200,
                 field=field if isinstance(field, str) and field else None)


def _code_of(chosen: object) -> object:
    """Webhook v2's ``options.responseCode``: ``{"values": {"responseCode": 201}}``, or ``customCode``."""
    values = chosen.get("values") if isinstance(chosen, dict) else None
    if not isinstance(values, dict):
        return 200
    code = values.get("responseCode", 200)
    return values.get("customCode", 200) if code == "customCode" else code

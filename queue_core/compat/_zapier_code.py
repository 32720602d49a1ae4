"""Code by Zapier: a step's JavaScript in the V8 sandbox n8n's Code nodes run in, with Zapier's model.

Zapier's model ("Use JavaScript code in Zaps",
https://help.zapier.com/hc/en-us/articles/8496310939021-Use-JavaScript-code-in-Zaps, and its Python twin): the step's *input data* fields are mapped text, given to the code as
``inputData`` (JavaScript) or ``input_data`` (Python), every value a string; the code returns its
output (``return {...}``, or sets ``output``; JavaScript may also call ``callback(err, output)``
and ``await``); an object is one output, an array of objects runs the rest of the Zap once per
object. The JavaScript runs unchanged in ``_n8n_code``'s sandbox (its runner, not a copy):
a function body that Zapier's variables are given to, its ``Date`` the job's clock, in UTC (as
Zapier's Code steps are, whatever the account's zone). Python is
inlined by the translator into the automation (``def code_<id>(input_data)``), and only its
return value is normalised here.
"""

from __future__ import annotations

from typing import Any

from ..errors import NodeFailed, TerminalError
from . import _n8n_code

# Zapier's variables around the step's own source, run as an n8n "run once for all items" Code node
# whose one item is the input data; the output comes back as that node's items.
_BEFORE = ("const inputData = $input.first().json;\n"
           "let output = undefined;\n"
           "let __zapierCallback = undefined;\n"
           "const callback = (error, value) => { __zapierCallback = { error, value }; };\n"
           "const __zapierReturned = await (async () => {\n")
_AFTER = ("\n})();\n"
          "if (__zapierCallback && __zapierCallback.error) { throw __zapierCallback.error; }\n"
          "const __zapierOut = __zapierReturned !== undefined ? __zapierReturned\n"
          "  : (__zapierCallback ? __zapierCallback.value : output);\n"
          "const __zapierList = Array.isArray(__zapierOut) ? __zapierOut : [__zapierOut === undefined || __zapierOut === null ? {} : __zapierOut];\n"
          "return __zapierList.map((o) => ({ json: (o !== null && typeof o === 'object' && !Array.isArray(o)) ? o : { __zapier_not_object: o } }));\n")


def input_data(fields: dict[str, Any]) -> dict[str, str]:
    """Return a Code step's input data as Zapier gives it: every value text."""
    from ._zapier_filter import text

    return {str(k): text(v) for k, v in fields.items()}


def run_javascript(ctx: Any, step: str, source: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    """Run a Code by Zapier JavaScript step; return its outputs (one per object it returned)."""
    clock = getattr(ctx, "now", None)
    try:
        run = _n8n_code.run_js(_BEFORE + source + _AFTER, [{"json": input_data(fields)}], node=step,
                               now=clock() if callable(clock) else None, zone="UTC")
    except NodeFailed as exc:
        raise TerminalError(f"Code by Zapier {step!r}: {exc}") from None
    return outputs([item.get("json") for item in run.items], step)


def outputs(returned: Any, step: str) -> list[dict[str, Any]]:
    """Return a Code step's outputs from what its code returned: an object, or an array of objects."""
    values = returned if isinstance(returned, list) else [{} if returned is None else returned]
    out = []
    for value in values:
        if isinstance(value, dict) and "__zapier_not_object" in value:
            value = value["__zapier_not_object"]
        if not isinstance(value, dict):
            raise TerminalError(f"Code by Zapier {step!r}: output must be an object or an array of objects, "
                                f"got {type(value).__name__}")
        out.append(value)
    return out

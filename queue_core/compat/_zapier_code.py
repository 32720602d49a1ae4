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


# Code by Zapier's ``fetch(url, options)`` (node-fetch's API: "fetch ... an HTTP request library", Zapier's
# JavaScript help; node-fetch's default Accept and User-Agent) over the n8n Code sandbox's ``helpers.httpRequest``: each request goes out through the
# automation's ``ctx.call`` as an n8n Code node's does (``_n8n_code_http``: the same driver, not a copy), its
# answer comes back as a fetch Response (ok, status, statusText, headers.get, text(), json()); an HTTP error
# status is an answer, not a rejection, as with fetch. A text body with no Content-Type (node-fetch sends it as
# text/plain) is refused by the driver, naming it.
_FETCH = ("const fetch = async (url, options) => {\n"
          "  const o = options || {};\n"
          "  const headers = { ...(o.headers || {}) };\n"
          "  const has = (name) => Object.keys(headers).some((k) => k.toLowerCase() === name);\n"
          "  let body = o.body;\n"
          "  if (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams) {\n"
          "    body = String(body);\n"
          "    if (!has('content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded;charset=UTF-8';\n"
          "  } else if (body !== undefined && body !== null && typeof body !== 'string') body = String(body);\n"
          "  if (typeof body === 'string' && !has('content-type')) headers['Content-Type'] = 'text/plain;charset=UTF-8';\n"
          "  if (!has('accept')) headers.Accept = '*/*';\n"
          "  if (!has('user-agent')) headers['User-Agent'] = 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)';\n"
          "  const r = await helpers.httpRequest({ url: String(url), method: String(o.method || 'GET').toUpperCase(),\n"
          "    headers, body: body === null ? undefined : body, encoding: 'text', returnFullResponse: true,\n"
          "    ignoreHttpStatusErrors: true, disableFollowRedirect: o.redirect === 'manual' });\n"
          "  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);\n"
          "  const got = r.headers || {};\n"
          "  const value = (name) => { const v = got[String(name).toLowerCase()];\n"
          "    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : String(v); };\n"
          "  return { ok: r.statusCode >= 200 && r.statusCode < 300, status: r.statusCode, statusText: r.statusMessage || '',\n"
          "    url: String(url), redirected: false,\n"
          "    headers: { get: value, has: (name) => value(name) !== null,\n"
          "      forEach: (fn) => Object.keys(got).forEach((k) => fn(value(k), k)) },\n"
          "    text: async () => text, json: async () => JSON.parse(text) };\n"
          "};\n")


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


async def run_javascript_fetch(ctx: Any, label: str, source: str, fields: dict[str, Any], *,
                               step: str) -> list[dict[str, Any]]:
    """Run a Code by Zapier JavaScript step that calls ``fetch``: each request through ``ctx.call`` at ``step``
    (the provider configured for its URL's origin), the code driven by ``_n8n_code_http.drive``; its outputs."""
    from . import _n8n_code_http

    clock = getattr(ctx, "now", None)
    payload = _n8n_code.payload_of(_FETCH + _BEFORE + source + _AFTER, [{"json": input_data(fields)}], node=label,
                                   mode="runOnceForAllItems", kind="code", outputs=None, execution_id="",
                                   workflow=None, now=clock() if callable(clock) else None, zone="UTC", env=None,
                                   previous=None, static=None, builtins=_n8n_code.DEFAULT_BUILTINS)
    try:
        result = await _n8n_code_http.drive(payload, label, _n8n_code_http.performer(ctx, label, step))
        run = _n8n_code.finish(result, label, None)
    except NodeFailed as exc:
        raise TerminalError(f"Code by Zapier {label!r}: {exc}") from None
    return outputs([item.get("json") for item in run.items], label)


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

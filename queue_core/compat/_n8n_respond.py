"""n8n's answers to a webhook caller: the Respond to Webhook node and a Webhook's "When Last Node Finishes".

Both end in ``ctx.respond(status, body, headers)``: a source with ``respond_timeout_s`` holds the
caller's request until then (``queue_core.server.reply``). What n8n answers
(``n8n-nodes-base/nodes/RespondToWebhook``, the Webhook node's ``responseMode``):

- ``respondWith``: ``firstIncomingItem`` (the default: the first item's json), ``allIncomingItems``
  (every item's json, a list), ``json`` (the Response Body parameter, evaluated for the first item;
  text is parsed as JSON, and text that is not JSON fails the node with n8n's message), ``text``,
  ``noData`` (an empty body), ``redirect`` (``location`` = Redirect URL, status 307 unless set);
  ``options.responseKey`` wraps the body under that (dotted) key; ``options.responseCode`` is the
  status (200 by default); ``options.responseHeaders`` are sent lower-cased;
- the node outputs its input items, and v1.3 (or v1.4+ with ``enableResponseOutput``) a second
  output with one item ``{"response": {"body", "headers", "statusCode"}}``;
- a Webhook answering when the last node finishes sends the last node's first output: its first
  item's json (``firstEntryJson``, the default; ``options.responsePropertyName`` picks one field),
  every item's json (``allEntries``), or nothing (``noData``), with ``responseCode``.

The content type, when the node sets none, is the one n8n's server (Express) sends, measured
against n8n 1.123.81 (``tests/oracle/test_respond_conformance.py``): a text body is
``text/html; charset=utf-8`` (``res.send`` of a string), any other answer — an object, a list, no
body at all (``noData``, a redirect) — ``application/json; charset=utf-8``; a 204 or 304 has none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import NodeFailed

Items = list[dict[str, Any]]
Per = Callable[[dict[str, Any], int], Any]
_NO_CONTENT = (204, 304)


def _sent(status: int, value: Any, headers: dict[str, str]) -> dict[str, str]:
    """The headers n8n's server answers with: the node's, and the content type it leaves out (see above)."""
    if "content-type" in headers or status in _NO_CONTENT:
        return headers
    kind = "text/html" if isinstance(value, str) else "application/json"
    return {**headers, "content-type": f"{kind}; charset=utf-8"}


def _wrapped(key: str | None, value: Any) -> Any:
    if not key:
        return value
    out: dict[str, Any] = {}
    target = out
    *parents, last = key.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value
    return out


async def respond(flow: Any, node: str, items: Items, respond_with: str = "firstIncomingItem", *,
                  body: Per | None = None, code: int | None = None, headers: Per | None = None,
                  key: str | None = None, redirect: Per | None = None, response_output: bool = False) -> list[Items]:
    """Answer the caller as a Respond to Webhook node does; record and return the node's outputs."""
    first = items[0]
    sent = {str(k).lower(): "" if v is None else str(v) for k, v in (headers(first, 0) if headers else {}).items()}
    status = code or 200
    value: Any = None
    if respond_with == "json":
        raw = body(first, 0) if body is not None else None
        if isinstance(raw, str) and raw:
            try:
                value = json.loads(raw)
            except ValueError:
                raise NodeFailed(f"{node}: Invalid JSON in 'Response Body' field") from None
        elif raw:
            value = raw
    elif respond_with == "text":
        value = body(first, 0) if body is not None else ""
    elif respond_with == "allIncomingItems":
        value = _wrapped(key, [item.get("json", {}) for item in items])
    elif respond_with == "firstIncomingItem":
        value = _wrapped(key, first.get("json", {}))
    elif respond_with == "redirect":
        sent["location"] = str(redirect(first, 0) if redirect is not None else "")
        status = code or 307
    elif respond_with != "noData":
        raise NodeFailed(f'{node}: The Response Data option "{respond_with}" is not supported!')
    await flow.ctx.respond(status, value, _sent(status, value, sent))
    outputs = [list(items)]
    if response_output:
        outputs.append([{"json": {"response": {"body": value, "headers": sent, "statusCode": status}}}])
    flow.record(node, outputs)
    return outputs


async def respond_last(flow: Any, data: str = "firstEntryJson", code: int = 200, field: str | None = None) -> None:
    """A Webhook set to answer when the last node finishes: answer with that node's first output."""
    items = flow.last_output()
    value: Any = None
    if data == "allEntries":
        value = [item.get("json", {}) for item in items]
    elif data == "firstEntryJson" and items:
        value = items[0].get("json", {})
        if field:
            value = value.get(field) if isinstance(value, dict) else None
    await flow.ctx.respond(code, value, _sent(code, value, {}))

"""The runtime of Make's app modules (``make.apps``): one catalogue call, its answer shaped as Make's output bundle.

Generated code calls ``make.apps.call(ctx, provider, method, url, step=…, shape=…, json=…)``
for a module that outputs one bundle and ``make.apps.search(…)`` for one that outputs a bundle
per result (Airtable's Search records, Slack's Search messages, ClickUp's tasks…), paging until
the module's limit. Bodies and queries go through :func:`compact` first: Make sends no field
that is left empty (that is why it has the ``erase`` keyword), and a date as ISO 8601 text.

A shadow replay answers ``ctx.call`` with the legacy run's recorded output of the module, which
is already Make's bundle (``X-Cutover-Recorded``; a search's recording is its list of bundles):
it is returned unchanged, and a module's second call (Instagram's publish after the container) is
not made. Otherwise the live answer is shaped by :data:`SHAPES` (``airtable.record`` lifts the
record's ``fields`` beside ``id`` and ``createdTime``, as Make outputs them).
"""

from __future__ import annotations

import json as jsonlib
import os
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from ..errors import ModuleFailed
from ._make_filter import instant, number, text
from ._make_functions import truth

RECORDED = "x-cutover-recorded"  # queue_core.gateway.request.RECORDED_HEADER, lower-cased
Shape = Callable[[Any], Any]

__all__ = ["SHAPES", "api_call", "call", "compact", "epoch_ms", "epoch_s", "flag", "json_text", "num", "recorded", "search", "setting", "shaped", "stripe_form"]


def compact(value: Any) -> Any:
    """Return ``value`` without the fields Make leaves out: None, ``""``, and empty collections; dates as text."""
    if isinstance(value, dict):
        out = {k: compact(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if not _empty(v)}
    if isinstance(value, list):
        return [compact(v) for v in value if not _empty(compact(v))]
    if isinstance(value, datetime):
        return text(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == {} or value == []


def num(value: Any, field: str = "") -> int | float | None:
    """Return a number field's value as Make sends it (None when empty); ModuleFailed when it is not a number."""
    if value is None or value == "":
        return None
    parsed = number(value)
    if parsed is None:
        raise ModuleFailed(f"field {field!r}: {text(value)!r} is not a number")
    return int(parsed) if parsed == parsed.to_integral_value() else float(parsed)


def flag(value: Any) -> bool | None:
    """Return a boolean field's value (None when empty)."""
    return None if value is None or value == "" else truth(value)


def epoch_ms(value: Any) -> int | None:
    """Return a date field as the epoch milliseconds an API such as ClickUp's reads (None when empty)."""
    if value is None or value == "":
        return None
    when = instant(value)
    if when is None:
        raise ModuleFailed(f"{text(value)!r} is not a date")
    return int(when.timestamp() * 1000)


def json_text(value: Any, field: str) -> Any:
    """Return a field Make takes as JSON text (Slack's blocks) as the structure it sends; ModuleFailed when not JSON."""
    if not isinstance(value, str):
        return value
    try:
        return jsonlib.loads(value)
    except ValueError as exc:
        raise ModuleFailed(f"field {field!r}: not valid JSON ({exc})") from None


def stripe_form(fields: Any) -> dict[str, str]:
    """Return a Stripe form body: nested collections as ``a[b]``, arrays as ``a[0]``, and a key/value array
    (``metadata``) as ``metadata[key]``; values as text, empty ones left out."""
    out: dict[str, str] = {}

    def put(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                put(f"{prefix}[{k}]", v)
        elif isinstance(value, list):
            if value and all(isinstance(e, dict) and set(e) <= {"key", "value"} and "key" in e for e in value):
                for e in value:
                    put(f"{prefix}[{text(e['key'])}]", e.get("value"))
                return
            for n, e in enumerate(value):
                put(f"{prefix}[{n}]", e)
        else:
            out[prefix] = text(value)

    for key, value in (compact(fields) or {}).items():
        put(key, value)
    return out


def epoch_s(value: Any) -> int | None:
    """Return a date field as the Unix seconds Stripe reads (None when empty)."""
    ms = epoch_ms(value)
    return None if ms is None else ms // 1000


def setting(name: str, step: str) -> str:
    """Return a connection's setting Make keeps in the connection (Twilio's account SID), from the environment."""
    value = os.environ.get(name, "")
    if not value:
        raise ModuleFailed(f"step {step!r}: set {name} in the environment (Make keeps it in the module's connection)")
    return value


def recorded(response: Any) -> bool:
    """Return whether ``response`` is a shadow replay's recording (the module's output bundle itself)."""
    return RECORDED in {str(k).lower() for k in getattr(response, "headers", {}).keys()}


def _body(response: Any, step: str) -> Any:
    if not getattr(response, "content", b""):
        return {}
    try:
        return response.json()
    except ValueError:
        raise ModuleFailed(f"step {step!r}: the answer is not JSON ({response.text[:200]!r})") from None


async def _send(ctx: Any, provider: str, method: str, url: str, step: str, json: Any, params: Any, data: Any,
                files: Any, content: Any, headers: Any) -> Any:
    kwargs: dict[str, Any] = {}
    if json is not None:
        kwargs["json"] = compact(json)
    if params:
        kwargs["params"] = {k: (text(v) if not isinstance(v, list) else [text(e) for e in v])
                            for k, v in compact(params).items()}
    if data is not None:
        kwargs["data"] = {k: (text(v) if not isinstance(v, list) else [text(e) for e in v])
                          for k, v in compact(data).items()}
    if files:
        kwargs["files"] = files
    if content is not None:
        kwargs["content"] = content
    if headers:
        kwargs["headers"] = {k: text(v) for k, v in headers.items()}
    return await ctx.call(provider, method, url, step=step, **kwargs)


async def call(ctx: Any, provider: str, method: str, url: str, *, step: str, shape: str = "body", json: Any = None,
               params: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None, files: Any = None,
               content: bytes | None = None, headers: Mapping[str, Any] | None = None) -> Any:
    """Make one app module's call; return its output bundle (the recorded one unchanged)."""
    return await shaped(ctx, provider, method, url, SHAPES[shape], step=step, json=json, params=params, data=data,
                        files=files, content=content, headers=headers)


async def shaped(ctx: Any, provider: str, method: str, url: str, shape: Shape, *, step: str, json: Any = None,
                 params: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None, files: Any = None,
                 content: bytes | None = None, headers: Mapping[str, Any] | None = None) -> Any:
    """Make one call and return ``shape`` of its answer, or the recorded bundle unchanged (another area's shapes)."""
    response = await _send(ctx, provider, method, url, step, json, params, data, files, content, headers)
    body = _body(response, step)
    if recorded(response):
        return body
    return shape(body)


async def search(ctx: Any, provider: str, method: str, url: str, *, step: str, shape: str, limit: Any = None,
                 params: Mapping[str, Any] | None = None, json: Any = None) -> list[Any]:
    """Make a search module's calls, page by page until ``limit`` bundles (all when empty); return the bundles."""
    most = num(limit, "limit")
    items, take, following = PAGES[shape]
    query = dict(params or {})
    found: list[Any] = []
    while True:
        response = await _send(ctx, provider, method, url, step, json, query, None, None, None, None)
        body = _body(response, step)
        if recorded(response):  # the recorded bundles of the module
            return body if isinstance(body, list) else [body]
        found += [take(e) for e in items(body)]
        if most is not None and len(found) >= most:
            return found[:int(most)]
        after = following(body, query)
        if after is None or not items(body):
            return found
        query.update(after)


async def api_call(ctx: Any, provider: str, method: str, url: str, *, step: str, headers: Any = (), params: Any = (),
                   body: Any = None) -> dict[str, Any]:
    """An app's "Make an API call" module: its request as written (the body text as it is); Make outputs
    ``body`` (parsed when JSON), ``headers`` and ``statusCode``."""
    kwargs: dict[str, Any] = {}
    if headers:
        kwargs["headers"] = {text(k): text(v) for k, v in headers}
    if params:
        kwargs["params"] = {text(k): text(v) for k, v in params}
    if body is not None and method not in ("GET", "HEAD"):
        kwargs["content"] = text(body).encode("utf-8")
        if not any(k.lower() == "content-type" for k in kwargs.get("headers", {})):
            kwargs.setdefault("headers", {})["Content-Type"] = "application/json"
    response = await ctx.call(provider, method, url, step=step, **kwargs)
    if recorded(response):
        return _body(response, step)  # type: ignore[no-any-return]
    try:
        parsed = response.json() if response.content else ""
    except ValueError:
        parsed = response.text
    return {"body": parsed, "headers": dict(response.headers), "statusCode": response.status_code}


def _airtable_record(body: Any) -> Any:
    if not isinstance(body, dict) or not isinstance(body.get("fields"), dict) or "id" not in body:
        return body
    return {"id": body["id"], "createdTime": body.get("createdTime"), **body["fields"]}


def _slack(body: Any, key: str | None = None) -> Any:
    """A Slack Web API answer: ``ok: false`` is the module's error; else the ``key`` object (the body without ``ok``)."""
    if isinstance(body, dict) and body.get("ok") is False:
        raise ModuleFailed(f"Slack: {body.get('error', 'the call failed')}")
    if not isinstance(body, dict):
        return body
    if key is not None:
        return body.get(key, body)
    return {k: v for k, v in body.items() if k != "ok"}


def _telegram(body: Any) -> Any:
    """A Telegram Bot API answer: ``ok: false`` is the module's error; else its ``result``."""
    if isinstance(body, dict) and body.get("ok") is False:
        raise ModuleFailed(f"Telegram: {body.get('description', 'the call failed')}")
    return body.get("result", body) if isinstance(body, dict) else body


SHAPES: dict[str, Shape] = {
    "body": lambda body: body if isinstance(body, dict) else {"value": body},
    "airtable.record": _airtable_record,
    "slack.user": lambda body: _slack(body, "user"),
    "slack.message": lambda body: _slack(body),
    "telegram.result": _telegram,
    "gemini.file": lambda body: body.get("file", body) if isinstance(body, dict) else body,
}


def _page(body: Any, query: dict[str, Any]) -> dict[str, Any] | None:
    return {"page": int(num(query.get("page"), "page") or 0) + 1}


PAGES: dict[str, tuple[Callable[[Any], list[Any]], Shape, Callable[[Any, dict[str, Any]], dict[str, Any] | None]]] = {
    "airtable.records": (lambda b: list(b.get("records") or []) if isinstance(b, dict) else [], _airtable_record,
                         lambda b, q: {"offset": b["offset"]} if b.get("offset") else None),
    "slack.matches": (lambda b: list(((_slack(b).get("messages") or {}).get("matches")) or []), lambda m: m,
                      lambda b, q: ({"page": b["messages"]["paging"]["page"] + 1}
                                    if (b.get("messages") or {}).get("paging", {}).get("page", 1)
                                    < (b.get("messages") or {}).get("paging", {}).get("pages", 1) else None)),
    "clickup.tasks": (lambda b: list(b.get("tasks") or []) if isinstance(b, dict) else [], lambda t: t,
                      lambda b, q: None if b.get("last_page", True) else _page(b, q)),
    "fic.documents": (lambda b: list(b.get("data") or []) if isinstance(b, dict) else [], lambda d: d,
                      lambda b, q: ({"page": int(b.get("current_page") or 1) + 1} if b.get("next_page_url") else None)),
}

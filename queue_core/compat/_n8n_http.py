"""What scaffolded n8n HTTP Request nodes need at run time: the provider of a computed URL,
n8n's full response, auth headers from credentials, and the error item an error output carries.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ..errors import NodeFailed, RetryableError, TerminalError

Item = dict[str, Any]
_STATUS = re.compile(r"\): (\d{3}) ")
# What a failed ctx.call raises (the gateway's verdict on the answer), which a node set to continue
# turns into an error item; a rate-limit wait (Snooze) is not a failure and passes through.
CALL_ERRORS = (RetryableError, TerminalError)


def provider_of(ctx: Any, url: str, node: str) -> str:
    """Return the configured provider whose ``base_url`` the URL starts with (the longest such).

    For a URL whose host an expression computes at run time; the providers are the worker's
    (``ctx.providers``: ``[tool.cutover.providers]``). Raises NodeFailed naming the node and
    the URL's origin when none is configured for it.
    """
    providers: dict[str, str] = dict(getattr(ctx, "providers", None) or {})
    matches = [(len(base), name) for name, base in providers.items()
               if url == base or url.startswith((base.rstrip("/") + "/", base + "?"))]
    if not matches:
        origin = "/".join(url.split("/")[:3])
        raise NodeFailed(f"{node}: no provider is configured for {origin!r} (the URL {node!r} computed): add "
                               f'[tool.cutover.providers.<name>] base_url = "{origin}"')
    return max(matches)[1]


def full_response(response: Any) -> list[Item]:
    """Return n8n's "Include Response Headers and Status" item: body, headers, statusCode, statusMessage."""
    try:
        body: Any = response.json()
        key = "body"
    except ValueError:
        body, key = response.text, "data"  # n8n names a text body "data", as without the full response
    return [{"json": {key: body, "headers": {k.lower(): v for k, v in response.headers.items()},
                      "statusCode": response.status_code, "statusMessage": response.reason_phrase}}]


def _as_text(response: Any) -> Any:
    """Return the body as n8n's ``toText`` leaves it: a JSON answer is parsed by n8n's HTTP client first,
    so an object or array comes back as ``JSON.stringify`` writes it (compact), any other value as it is."""
    if "json" not in str(response.headers.get("content-type", "")).lower():
        return response.text
    try:
        body = response.json()
    except ValueError:
        return response.text
    if isinstance(body, dict | list):
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return body


def text_response(response: Any, name: str = "data", *, full: bool = False) -> list[Item]:
    """Return n8n's response format "text" item: the body as text under ``name`` (with the full
    response, before the headers, statusCode and statusMessage)."""
    if not full:
        return [{"json": {name: _as_text(response)}}]
    return [{"json": {name: _as_text(response), "headers": {k.lower(): v for k, v in response.headers.items()},
                      "statusCode": response.status_code, "statusMessage": response.reason_phrase}}]


def basic_auth(user: str, password: str) -> dict[str, str]:
    """Return the Authorization header of HTTP basic auth (none when both are empty: a shadow run)."""
    if not user and not password:
        return {}
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return {"Authorization": f"Basic {token}"}


def header_auth(name: str, value: str) -> dict[str, str]:
    """Return n8n's Header Auth credential as a header (none when its name is unset: a shadow run)."""
    return {name: value} if name else {}


def error_item(item: Item, exc: BaseException, *, keep_item: bool) -> Item:
    """Return the item n8n outputs for a failed call when the node continues.

    On the error output (``keep_item``) n8n keeps the item's fields and adds ``error``; on the
    regular output it outputs ``{"error": …}`` alone. ``error`` holds the message and, for an
    HTTP answer, its ``status`` (n8n's own message, code and stack are its HTTP client's words).
    """
    message = str(exc)
    error: dict[str, Any] = {"message": message}
    found = _STATUS.search(message)
    if found:
        error["status"] = int(found.group(1))
    base = dict(item.get("json") or {}) if keep_item else {}
    return {"json": {**base, "error": error}}

"""Translate n8n nodes that call out (HTTP Request, and app nodes with a known REST mapping).

Each call becomes ``await ctx.call(provider, method, url, …, step=…)`` once per item, so budgets,
idempotency keys, modes and recordings apply; its response's JSON is the node's items. The
provider is the one whose ``base_url`` has the URL's host in ``[tool.cutover.providers]``;
for a host with none, a provider table is proposed (printed by ``cutover scaffold`` and written
into the module's docstring).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from harness.scaffold import _apps, _expr
from harness.scaffold._expr import Untranslatable
from harness.scaffold._nodes import NodeCode, Slot, comment
from harness.scaffold._workflow import Node

_STATIC_PREFIX = re.compile(r"^([^{]*)")


def provider_for(url: Any, providers: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    """Return (provider, base URL, proposals) for a URL parameter; raise Untranslatable without a host."""
    raw = url[1:] if _expr.is_expression(url) else url
    if not isinstance(raw, str):
        raise Untranslatable("the URL is not text")
    static = _STATIC_PREFIX.match(raw.strip())
    parts = urlsplit(static.group(1) if static else "")
    if not parts.scheme or not parts.hostname:
        raise Untranslatable("the URL's host is computed by an expression: choose the provider by hand")
    host = parts.hostname
    base = f"{parts.scheme}://{parts.netloc}"
    if host in providers:
        return providers[host], base, {}
    name = _provider_name(host)
    return name, base, {name: base}


def _provider_name(host: str) -> str:
    labels = [label for label in host.split(".") if label not in ("api", "www", "com", "io", "net", "org", "co")]
    stem = labels[0] if labels else host.split(".")[0]
    return re.sub(r"[^a-z0-9_]+", "_", stem.lower()).strip("_") or "provider"


def _pairs(collection: Any) -> str:
    params = (collection or {}).get("parameters") or []
    return "{" + ", ".join(f"{str(p.get('name', ''))!r}: {_expr.value(p.get('value'))}" for p in params) + "}"


def _body(params: dict[str, Any], node: str) -> str | None:
    if not params.get("sendBody"):
        return None
    content = params.get("contentType", "json")
    if content not in ("json", None):
        raise Untranslatable(f"an HTTP body of type {content!r} is not translated")
    if params.get("specifyBody") == "json":
        # n8n sends a JSON body parameter that evaluates to text parsed (`{{ JSON.stringify(…) }}`
        # sends the object, not a string), and fails the node when the text is not JSON.
        raw = params.get("jsonBody")
        if _expr.is_expression(raw):
            inner = str(raw)[1:].strip()
            whole = re.fullmatch(r"\{\{(.*)\}\}", inner, re.S)
            source = _expr.expression(whole.group(1)) if whole else _expr.template(inner)
            return f"n8n.json_body({source}, node={node!r})"
        return f"n8n.json_body({raw!r}, node={node!r})"
    return _pairs(params.get("bodyParameters"))


def http_node(node: Node, slot: Slot) -> NodeCode:
    """HTTP Request v3/v4: one ``ctx.call`` per item; the response JSON becomes the items."""
    if node.version < 3:
        raise Untranslatable(f"HTTP Request v{node.version:g} parameters are not translated (v3+ are)")
    params = node.parameters
    provider, _, proposals = provider_for(params.get("url"), slot.providers)
    method = str(params.get("method", "GET")).upper()
    kwargs = []
    if params.get("sendQuery"):
        kwargs.append(f"params={_pairs(params.get('queryParameters'))}")
    if params.get("sendHeaders"):
        kwargs.append(f"headers={{k: n8n.text(v) for k, v in {_pairs(params.get('headerParameters'))}.items()}}")
    body = _body(params, node.name)
    if body is not None:
        kwargs.append(f"json={body}")
    return _call_lines(node, slot, provider, method, _expr.value(params.get("url")), kwargs, proposals)


def _call_lines(node: Node, slot: Slot, provider: str, method: str, url: str, kwargs: list[str],
                proposals: dict[str, str]) -> NodeCode:
    inp = slot.inputs[0] if slot.inputs else "[]"
    extra = "".join(f", {k}" for k in kwargs)
    lines = [comment(node), f"items = {inp}", f"{slot.var}: n8n.Items = []",
             "for i, item in enumerate(items):",
             f"    response = await ctx.call({provider!r}, {method!r}, n8n.text({url}){extra}, step={slot.step!r})",
             f"    {slot.var}.extend(n8n.response_items(response))",
             "if items:", f"    flow.emit({node.name!r}, {slot.var})"]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


def app_node(node: Node, slot: Slot) -> NodeCode:
    """An app node whose operation maps to one documented REST call (the table in ``_apps.APPS``)."""
    return _apps.app_node(node, slot)


APP_TYPES = _apps.APP_TYPES  # the n8n node types (short names) ``app_node`` translates

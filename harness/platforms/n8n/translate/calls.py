"""Translate n8n nodes that call out (HTTP Request, and app nodes with a known REST mapping).

Each call becomes ``await ctx.call(provider, method, url, …, step=…)`` once per item, so budgets,
idempotency keys, modes and recordings apply; its response's JSON is the node's items. The
provider is the one whose ``base_url`` has the URL's host in ``[tool.cutover.providers]``;
for a host with none, a provider table is proposed (printed by ``cutover scaffold`` and written
into the module's docstring).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import apps, expr, http_options
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, dict_of, name, stmts
from harness.scaffold._provider import provider_for


class _Pairs:
    """One HTTP node's name/value pairs as Python dicts, each credential among them read from the
    environment (or, a bearer token, left to the provider's auth_env) and collected."""

    def __init__(self, node: Node, provider: str) -> None:
        self.node, self.provider = node, provider
        self.credentials: list[_credential.Credential] = []

    def entries(self, pairs: list[tuple[str, Any]], kind: str) -> list[tuple[str, ast.expr]]:
        entries = []
        for key, value in pairs:
            if _credential.is_credential_name(key) and _credential.n8n_secret(value):
                found = _credential.found(value, name=key, kind=kind, provider=self.provider,
                                          where=f'node "{self.node.name}"')
                self.credentials.append(found)
                if not found.bearer:  # a bearer token is the provider's auth_env: the gateway sends it
                    entries.append((key, _credential.source(found)))
            else:
                entries.append((key, expr.value(value)))
        return entries


def _listed(params: dict[str, Any], collection: str, json_flag: str, json_fields: tuple[str, ...],
            what: str) -> list[tuple[str, Any]]:
    """Return the (name, value) pairs of a node's headers or query, as fields or as JSON text."""
    if params.get(json_flag) == "json" or params.get("jsonParameters") is True:
        raw = next((params[f] for f in json_fields if params.get(f) not in (None, "")), "{}")
        if expr.is_expression(raw):
            raise Untranslatable(f"{what} given as a JSON expression are not translated")
        try:
            document = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            raise Untranslatable(f"{what} given as JSON are not valid JSON") from None
        if not isinstance(document, dict):
            raise Untranslatable(f"{what} given as JSON are not an object")
        return list(document.items())
    entries = (params.get(collection) or {}).get("parameters") or []
    return [(str(p.get("name", "")), p.get("value")) for p in entries if isinstance(p, dict)]


def _multipart(params: dict[str, Any], pairs: _Pairs) -> list[tuple[str, ast.expr]]:
    """Return a multipart body's ``data`` (its text fields) and ``files`` (each file part: the item's binary
    property, read at run time) keywords; a file part with no input field name is left out, as n8n does."""
    parts = [p for p in (params.get("bodyParameters") or {}).get("parameters") or [] if isinstance(p, dict)]
    texts = [(str(p.get("name", "")), p.get("value")) for p in parts if p.get("parameterType") != "formBinaryData"]
    files = [(str(p.get("name", "")), p.get("inputDataFieldName")) for p in parts
             if p.get("parameterType") == "formBinaryData" and p.get("inputDataFieldName")]
    found: list[tuple[str, ast.expr]] = [("data", _code.expr("{k: n8n.text(v) for k, v in $fields.items()}",
                                                              fields=dict_of(pairs.entries(texts, "body field"))))]
    if files:
        found.append(("files", dict_of([(k, call("n8n.file_part", name("item"), call("n8n.text", expr.value(v)),
                                                   name("i"), name("ctx"))) for k, v in files])))
    return found


def _body(params: dict[str, Any], node: str, pairs: _Pairs) -> list[tuple[str, ast.expr]]:
    """Return the call's body keywords (``json``; ``data``, a form; ``data`` and ``files``, a multipart form)."""
    if not params.get("sendBody"):
        return []
    content = params.get("contentType", "json")
    if content == "form-urlencoded":
        listed = _listed(params, "bodyParameters", "specifyBody", ("bodyParametersJson",), "form fields")
        return [("data", _code.expr("{k: n8n.text(v) for k, v in $fields.items()}",
                                    fields=dict_of(pairs.entries(listed, "body field"))))]
    if content == "multipart-form-data":
        return _multipart(params, pairs)
    if content not in ("json", None):
        raise Untranslatable(f"an HTTP body of type {content!r} is not translated (json, form-urlencoded and "
                             "multipart-form-data are): the gateway sends a JSON, form or multipart body")
    if params.get("specifyBody") == "json":
        # n8n sends a JSON body parameter that evaluates to text parsed (`{{ JSON.stringify(…) }}`
        # sends the object, not a string), and fails the node when the text is not JSON.
        raw = params.get("jsonBody")
        if expr.is_expression(raw):
            inner = str(raw)[1:].strip()
            whole = re.fullmatch(r"\{\{(.*)\}\}", inner, re.S)
            source = expr.expression(whole.group(1)) if whole else expr.template(inner)
            return [("json", call("n8n.json_body", source, node=node))]
        if _credential.holds_credential(raw):
            raise Untranslatable("a JSON body holding a credential is not translated: read it from the environment")
        return [("json", call("n8n.json_body", raw, node=node))]
    listed = _listed(params, "bodyParameters", "specifyBody", ("bodyParametersJson",), "body fields")
    return [("json", dict_of(pairs.entries(listed, "body field")))]


def http_node(node: Node, slot: Slot) -> NodeCode:
    """HTTP Request v3/v4: one ``ctx.call`` per item; the response JSON becomes the items.

    A credential among its headers, query or body is not copied (``_credential``); its
    authentication is the provider's (``http_options.auth``). A URL whose host an expression
    computes is sent to the configured provider its value starts with, chosen at run time.
    """
    if node.version < 3:
        raise Untranslatable(f"HTTP Request v{node.version:g} parameters are not translated (v3+ are)")
    node = replace(node, parameters=node.settings)  # the defaults the export left out, from n8n's description
    params = node.parameters
    try:
        provider, _, proposals = provider_for(params.get("url"), slot.providers)
        provider_source: ast.expr = ast.Constant(provider)
    except Untranslatable:  # the host is computed: the configured provider for the URL, at run time
        provider, proposals = "url", {}
        provider_source = call("n8n.provider_of", name("ctx"), name("url"), node.name)
    method = str(params.get("method", "GET")).upper()
    pairs = _Pairs(node, provider)
    authentication = http_options.auth(node, provider)
    chosen = http_options.options(node)
    if params.get("pagination") or (params.get("options") or {}).get("pagination"):
        raise Untranslatable("pagination is not translated: loop over the pages in Python")
    kwargs: dict[str, ast.expr] = {}
    json_query = params.get("jsonQuery") if params.get("specifyQuery") == "json" else None
    if params.get("sendQuery") and expr.is_expression(json_query):  # text evaluated, then parsed, as n8n does
        inner = str(json_query)[1:].strip()
        whole = re.fullmatch(r"\{\{(.*)\}\}", inner, re.S)
        source = expr.expression(whole.group(1)) if whole else expr.template(inner)
        kwargs["params"] = call("n8n.json_query", source, node=node.name)
    elif params.get("sendQuery"):
        query = _listed(params, "queryParameters", "specifyQuery", ("jsonQuery", "queryParametersJson"), "query parameters")
        kwargs["params"] = dict_of(pairs.entries(query, "query parameter"))
    headers: ast.expr | None = None
    if params.get("sendHeaders"):
        listed = _listed(params, "headerParameters", "specifyHeaders", ("jsonHeaders", "headerParametersJson"), "headers")
        entries = pairs.entries(listed, "header")
        if entries or not listed:  # none left when the only one was the provider's bearer token
            headers = _code.expr("{k: n8n.text(v) for k, v in $headers.items()}", headers=dict_of(entries))
    if authentication.headers is not None:
        headers = authentication.headers if headers is None else ast.BinOp(headers, ast.BitOr(), authentication.headers)
    if headers is not None:
        kwargs["headers"] = headers
    kwargs.update(_body(params, node.name, pairs))
    url = call("n8n.text", expr.value(params.get("url")))
    code = _call_lines(node, slot, provider_source, method, url, kwargs, proposals, chosen)
    code.credentials = pairs.credentials + authentication.credentials
    return code


def _call_lines(node: Node, slot: Slot, provider: ast.expr, method: str, url: ast.expr, kwargs: dict[str, ast.expr],
                proposals: dict[str, str], chosen: http_options.Options) -> NodeCode:
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    items = "n8n.full_response(response)" if chosen.full_response else "n8n.response_items(response)"
    # autodetect: an answer of a file's content type is the item's binary, as n8n takes it
    file = (f"n8n.file_response(item, response, {chosen.output!r}, full={chosen.full_response}, "
            f"followed={chosen.followed}, node=$node)")
    if chosen.detect:
        items = f"{file} if n8n.is_file(response) else {items}"
    if chosen.file:
        items = file
    if chosen.text:
        items = f"n8n.text_response(response, {chosen.output!r}, full={chosen.full_response})"
    send = "response = await ctx.call($provider, $method, url, **$kwargs, step=$step)"
    outputs = [slot.var]
    if node.on_error == "stop":
        loop = f"    url = $url\n    {send}\n    $var.extend({items})"
        tail = "if items:\n    flow.emit($node, $var)"
        head = "items = $inp\n$var: n8n.Items = []\n"
    else:
        # n8n's "continue": a failed call's item goes on (the error output, or the regular one)
        keep = node.on_error == "error_output"
        errors = f"{slot.var}_error" if keep else slot.var
        outputs = [slot.var, errors] if keep else [slot.var]
        head = "items = $inp\n$var: n8n.Items = []\n" + ("$errors: n8n.Items = []\n" if keep else "")
        loop = (f"    url = $url\n    try:\n        {send}\n    except n8n.CALL_ERRORS as exc:\n"
                f"        $errors.append(n8n.error_item(item, exc, keep_item=$keep))\n        continue\n"
                f"    $var.extend({items})")
        tail = ("if items:\n    flow.emit_outputs($node, [$var, $errors])" if keep else "if items:\n    flow.emit($node, $var)")
        return NodeCode([comment(node), *stmts(head + "for i, item in enumerate(items):\n" + loop + "\n" + tail,
                                               inp=inp, var=name(slot.var), errors=name(errors), provider=provider,
                                               method=method, url=url, kwargs=kwargs, step=slot.step, node=node.name,
                                               keep=keep)],
                        outputs, call_step=slot.step, provider_proposals=proposals)
    lines = [comment(node), *stmts(head + "for i, item in enumerate(items):\n" + loop + "\n" + tail,
                                   inp=inp, var=name(slot.var), provider=provider, method=method, url=url,
                                   kwargs=kwargs, step=slot.step, node=node.name)]
    return NodeCode(lines, outputs, call_step=slot.step, provider_proposals=proposals)


def app_node(node: Node, slot: Slot) -> NodeCode:
    """An app node whose operation maps to a catalogue operation (``apps.N8N_APPS``, ``harness.catalogue``)."""
    return apps.app_node(node, slot)


APP_TYPES = apps.APP_TYPES  # the n8n node types (short names) ``app_node`` translates

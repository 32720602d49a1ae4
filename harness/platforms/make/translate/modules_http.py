"""Make's HTTP modules: "Make a request" v3 (``ActionSendData`` and its Basic-auth, OAuth and API-key
variants), v4 ``MakeRequest``, and "Get a file" (``ActionGetFile``): one ``ctx.call`` each
(``queue_core/compat/_make_http.py`` at run time).

What stays a TODO, named: ``shareCookies`` on (cookies kept between HTTP modules), a v4 body
that is not a JSON string, a URL that is no URL, a query key given twice. Redirects: Make
follows them (``followRedirect``); the provider gateway answers a 3xx as it is. Authentication is never copied: Basic auth
(``authUser``/``authPass`` or the keychain of ``ActionSendDataBasicAuth``), the OAuth connection
and the API-key keychain become the provider's configuration (its ``auth_env``), named in the
module's note; a credential typed into a header or query field is read from the environment
(``harness.scaffold._credential``).
"""

from __future__ import annotations

import ast
import re

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold import _credential
from harness.scaffold._code import lit, stmts
from harness.scaffold._provider import provider_for

__all__ = ["TRANSLATORS", "http", "http_provider"]

_AUTH_NOTES = {
    "http:ActionSendDataBasicAuth": "basic auth (the module's keychain): configure it on the provider",
    "http:ActionSendDataOAuth": "OAuth 2.0 (the module's connection): configure the provider's bearer token (auth_env)",
    "http:ActionSendDataAPIKeyAuth": "API key (the module's keychain): configure it on the provider (a header or "
                                     "query parameter the gateway adds)",
}
_V4_AUTH = {"basicAuth": "basic auth", "apiKey": "API key", "oAuth": "OAuth 2.0", "clientCertificate": "a client certificate"}


def _pairs(raw: object, module: Module, gen: Gen, provider: str, kind: str, key_field: str = "name") -> list[ast.expr]:
    """Return the ``(name, value)`` pairs of headers, query or form fields, a credential among them
    read from the environment (a bearer token left to the provider's auth_env) and collected."""
    pairs: list[ast.expr] = []
    for p in raw if isinstance(raw, list) else []:
        if not isinstance(p, dict):
            continue
        key, value = p.get(key_field, p.get("name", "")), p.get("value", "")
        if isinstance(key, str) and _credential.is_credential_name(key) and _credential.make_secret(value):
            found = _credential.found(value, name=key, kind=kind, provider=provider, where=f'module "{module.label}"')
            gen.credentials.append(found)
            if not found.bearer:
                pairs.append(lit((key, _credential.source(found))))
        else:
            pairs.append(lit((template(key), template(value))))
    return pairs


def http_provider(module: Module, gen: Gen, url: str) -> ast.expr:
    """Return the provider of the module's URL: a name when its host is literal, else the runtime's
    choice among the configured providers by base URL (``make.http.provider_of``)."""
    if "{{" in url.split("//", 1)[-1].split("/", 1)[0] or url.startswith("{{"):
        return ast.Call(ast.Attribute(ast.Attribute(ast.Name("make", ast.Load()), "http", ast.Load()),
                                      "provider_of", ast.Load()),
                        [ast.Name("ctx", ast.Load()), template(url), lit(module.label)], [])
    if not re.match(r"^[a-z][a-z0-9+.-]*://", url, re.I):
        raise Untranslatable(f"the URL {url[:60]!r} is not a URL (a placeholder left in the blueprint?)")
    provider, base, proposals = provider_for(url, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base.split("://", 1)[1].split(":")[0]] = provider
    return lit(provider)


def _refuse(mapper: dict[str, object]) -> None:
    """Raise Untranslatable for the options the provider gateway does not have."""
    if mapper.get("shareCookies"):
        raise Untranslatable("shareCookies is on: cookies shared between HTTP modules are not translated")
    if mapper.get("useMtls"):
        raise Untranslatable("useMtls is on: a client certificate (mutual TLS) is not translated")


def _v3_body(module: Module, gen: Gen, provider: str, kwargs: dict[str, ast.expr]) -> None:
    mapper = module.mapper
    body_type = mapper.get("bodyType") or ""
    if body_type == "raw":
        if mapper.get("data") not in (None, ""):
            content = str(mapper.get("contentType") or "")
            if content == "custom":
                content = str(mapper.get("customContentType") or mapper.get("contentTypeCustom") or "")
            kwargs["raw"] = template(mapper.get("data"))
            kwargs["content_type"] = lit(content)
    elif body_type == "x_www_form_urlencoded":
        kwargs["form"] = ast.List(_pairs(mapper.get("formFields"), module, gen, provider, "form field", "key"),
                                  ast.Load())
    elif body_type == "multipart_form_data":
        fields: list[ast.expr] = []
        files: list[ast.expr] = []
        for field in mapper.get("formDataFields") or []:
            if not isinstance(field, dict):
                continue
            if field.get("fieldType") == "file":
                files.append(ast.Tuple([template(field.get("key", "")), template(field.get("fileName", "")),
                                        template(field.get("data"))], ast.Load()))
            else:
                fields.append(lit((template(field.get("key", "")), template(field.get("value", "")))))
        kwargs["fields"] = ast.List(fields, ast.Load())
        kwargs["files"] = ast.List(files, ast.Load())
    elif body_type:
        raise Untranslatable(f"the HTTP body type {body_type!r} is not translated")


def _v4_body(module: Module, kwargs: dict[str, ast.expr]) -> None:
    mapper = module.mapper
    content = mapper.get("contentType")
    if not content or str(mapper.get("method", "get")).lower() in ("get", "head"):
        return
    if content == "json" and mapper.get("inputMethod") == "dataStructure":
        spec = next((f.get("spec") for f in module.metadata.get("expect") or []
                     if isinstance(f, dict) and f.get("name") == "dataStructureBodyContent"), None)
        if not isinstance(spec, list):
            raise Untranslatable("a v4 JSON body from a data structure whose fields are not in the blueprint "
                                 "(metadata.expect): their types decide the JSON")
        kwargs["body"] = ast.Call(ast.Attribute(ast.Attribute(ast.Name("make", ast.Load()), "tools", ast.Load()),
                                                "typed_fields", ast.Load()),
                                  [template(mapper.get("dataStructureBodyContent") or {}), lit(_plain(spec)),
                                   lit(module.label)], [])
        return
    if content != "json" or mapper.get("inputMethod", "jsonString") != "jsonString":
        raise Untranslatable(f"an HTTP v4 body of type {content!r} ({mapper.get('inputMethod')}) is not translated "
                             "(a JSON string or data structure is)")
    if mapper.get("jsonStringBodyContent") not in (None, ""):
        kwargs["raw"] = template(mapper.get("jsonStringBodyContent"))
        kwargs["content_type"] = lit("application/json")


def _plain(spec: list[object]) -> list[dict[str, object]]:
    """The data structure's fields as ``typed_fields`` reads them: name, type and nested spec."""
    out = []
    for field in spec:
        if isinstance(field, dict):
            item = {"name": field.get("name"), "type": field.get("type")}
            inner = field.get("spec")
            if isinstance(inner, list):
                item["spec"] = _plain(inner)
            elif isinstance(inner, dict):
                item["spec"] = _plain([inner])[0]
            out.append(item)
    return out


def _request(module: Module, gen: Gen) -> tuple[str, ast.expr, str, dict[str, ast.expr]]:
    """What every HTTP module starts with: its URL, its provider (the expression, and its name when it is
    known at translation time) and the keyword arguments holding its headers."""
    url = module.mapper.get("url")
    if not isinstance(url, str) or not url:
        raise Untranslatable("the module has no URL")
    _refuse(module.mapper)
    provider = http_provider(module, gen, url)
    name = str(provider.value) if isinstance(provider, ast.Constant) else ""
    kwargs: dict[str, ast.expr] = {}
    headers = _pairs(module.mapper.get("headers"), module, gen, name, "header")
    if headers:  # none left when the only one was the provider's bearer token
        kwargs["headers"] = ast.List(headers, ast.Load())
    return url, provider, name, kwargs


def http(module: Module, gen: Gen) -> ModuleCode:
    """HTTP "Make a request": one ``ctx.call`` (``make.http.request``); its bundle is statusCode, headers, data."""
    mapper = module.mapper
    url, provider, name, kwargs = _request(module, gen)
    query = mapper.get("queryParameters") or mapper.get("qs")
    names = [p.get("name") for p in query or [] if isinstance(p, dict)]
    if len(names) != len(set(map(str, names))):
        raise Untranslatable("a query key given twice (Make serializes repeated keys as an array) is not translated")
    if query:
        kwargs["params"] = ast.List(_pairs(query, module, gen, name, "query parameter"), ast.Load())
    if module.app == "http:MakeRequest":
        _v4_body(module, kwargs)
    else:
        _v3_body(module, gen, name, kwargs)
    if not mapper.get("parseResponse", True):
        kwargs["parse"] = lit(False)
    method = str(mapper.get("method") or "get").upper()
    lines = stmts("$var = await make.http.request(ctx, $provider, $method, $url, step=$step, module=$label, **$kwargs)",
                  var=var(module), provider=provider, method=method, url=template(url), step=gen.steps[module.id],
                  label=module.label, kwargs=kwargs)
    return ModuleCode(lines, bundle=var(module), note=_note(module))


def _note(module: Module) -> str:
    notes = []
    auth = _AUTH_NOTES.get(module.app)
    kind = module.parameters.get("authenticationType") or module.mapper.get("authenticationType")
    if auth:
        notes.append(auth)
    elif kind not in (None, "", "noAuth"):
        notes.append(f"authentication ({_V4_AUTH.get(str(kind), kind)}): configure it on the provider")
    elif module.mapper.get("authUser") or module.mapper.get("authPass"):
        notes.append("basic auth (authUser/authPass): configure it on the provider")
    stops = module.mapper.get("stopOnHttpError", True) if module.app == "http:MakeRequest" else \
        module.parameters.get("handleErrors", True)
    if not stops:
        notes.append("a 4xx/5xx answer fails the call here (Make, with 'Evaluate all states as errors' off, "
                     "outputs it and goes on)")
    if module.mapper.get("rejectUnauthorized") is False or module.mapper.get("ca"):
        notes.append("a self-signed certificate (ca / rejectUnauthorized off): the provider's TLS settings")
    timeout = module.mapper.get("timeout")
    if timeout not in (None, ""):
        notes.append(f"timeout {timeout} s: the provider's timeout")
    return "; ".join(notes)


def get_file(module: Module, gen: Gen) -> ModuleCode:
    """HTTP "Get a file": a GET; its bundle is fileName, fileSize and data (the bytes)."""
    mapper = module.mapper
    url, provider, name, kwargs = _request(module, gen)
    if mapper.get("qs"):
        kwargs["params"] = ast.List(_pairs(mapper.get("qs"), module, gen, name, "query parameter"), ast.Load())
    lines = stmts("$var = await make.http.get_file(ctx, $provider, $url, step=$step, **$kwargs)", var=var(module),
                  provider=provider, url=template(url), step=gen.steps[module.id], kwargs=kwargs)
    return ModuleCode(lines, bundle=var(module), note=_note(module))


TRANSLATORS = {
    "http:ActionSendData": http, "http:ActionSendDataBasicAuth": http, "http:ActionSendDataOAuth": http,
    "http:ActionSendDataAPIKeyAuth": http, "http:MakeRequest": http, "http:ActionGetFile": get_file,
}

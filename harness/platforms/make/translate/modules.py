"""Translate one Make module into lines of Python, with Make's semantics (``queue_core.compat.make``).

A translator gets the module and a ``Gen`` (providers, step names) and returns a ``ModuleCode``:
lines that compute the module's output, and the Python expression of that output: ``bundle``
(one bundle) or ``bundles`` (an iterable: everything after the module runs once per bundle).
Structural modules (Router, If-else, Iterator + Aggregator) are laid out by ``flow``.
A module with no translation raises ``make.TodoModule`` when a bundle reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.scaffold import _credential
from harness.scaffold._provider import provider_for
from harness.scaffold._credential import Credential
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.iml import template
from harness.errors import Untranslatable


@dataclass
class Gen:
    """What translating one scenario shares: providers by host, and the names chosen so far."""

    providers: dict[str, str]  # host -> provider name
    steps: dict[int, str] = field(default_factory=dict)  # module id -> step name (call modules)
    proposals: dict[str, str] = field(default_factory=dict)  # provider -> base URL to configure
    hosts: dict[str, str] = field(default_factory=dict)  # host -> provider, for the manifest
    credentials: list[Credential] = field(default_factory=list)  # read from the environment instead


@dataclass
class ModuleCode:
    """The translation of one module."""

    lines: list[str]
    bundle: str | None = None
    bundles: str | None = None
    todo: str | None = None  # why the module is left for a person
    note: str = ""


def one_line(text: object) -> str:
    """Return ``text`` fit for a comment: any line break made a space."""
    return " ".join(str(text).splitlines())


def var(module: Module) -> str:
    """Return the Python name of a module's current bundle."""
    return f"bundle_{module.id}"


def todo(module: Module, why: str) -> ModuleCode:
    """Return a TODO module: its code fails any bundle that reaches it, naming the module."""
    lines = [f"# TODO: {one_line(why)}"]
    if module.mapper:
        import json

        mapper = json.dumps(_credential.redacted(module.mapper), indent=2, ensure_ascii=False)
        lines += [f"#     {line}" for line in mapper.splitlines()[:30]]
    lines += [f"raise make.TodoModule({module.label!r}, {why!r})"]
    return ModuleCode(lines, bundle="{}", todo=why)


def _pairs(raw: object, module: Module, gen: Gen, provider: str, kind: str) -> str:
    """Return the ``[(name, value), …]`` source of headers or query fields, a credential among them
    read from the environment (a bearer token left to the provider's auth_env) and collected."""
    items = raw if isinstance(raw, list) else []
    pairs = []
    for p in items:
        if not isinstance(p, dict):
            continue
        name, value = p.get("name", ""), p.get("value", "")
        if isinstance(name, str) and _credential.is_credential_name(name) and _credential.make_secret(value):
            found = _credential.found(value, name=name, kind=kind, provider=provider, where=f'module "{module.label}"')
            gen.credentials.append(found)
            if not found.bearer:
                pairs.append(f"({name!r}, {_credential.source(found)})")
        else:
            pairs.append(f"({template(name)}, {template(value)})")
    return "[" + ", ".join(pairs) + "]"


def _http_body(module: Module) -> str | None:
    mapper = module.mapper
    if module.app == "http:MakeRequest":
        content = mapper.get("contentType")
        if not content or str(mapper.get("method", "get")).lower() in ("get", "head"):
            return None
        if content != "json" or mapper.get("inputMethod", "jsonString") != "jsonString":
            raise Untranslatable(f"an HTTP body of type {content!r} ({mapper.get('inputMethod')}) is not translated")
        raw = mapper.get("jsonStringBodyContent")
    else:
        body_type = mapper.get("bodyType") or ""
        if not body_type:
            return None
        content = str(mapper.get("contentType") or "")
        if body_type != "raw" or "json" not in content:
            raise Untranslatable(f"an HTTP body of type {body_type!r} {content!r} is not translated (JSON is)")
        raw = mapper.get("data")
    if raw in (None, ""):
        return None
    return f"make.json_body({template(raw)}, {module.label!r})"


def http(module: Module, gen: Gen) -> ModuleCode:
    """HTTP "Make a request" (v3 ActionSendData, v4 MakeRequest): one ``ctx.call``; its bundle.

    A credential among its headers or query is not copied (``_credential``).
    """
    url = module.mapper.get("url")
    if not isinstance(url, str) or not url:
        raise Untranslatable("the module has no URL")
    provider, base, proposals = provider_for(url, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base.split("://", 1)[1].split(":")[0]] = provider
    method = str(module.mapper.get("method") or "get").upper()
    kwargs = []
    headers = module.mapper.get("headers")
    if headers:
        source = _pairs(headers, module, gen, provider, "header")
        if source != "[]":  # none left when the only one was the provider's bearer token
            kwargs.append(f"headers={source}")
    query = module.mapper.get("queryParameters") or module.mapper.get("qs")
    if query:
        kwargs.append(f"params={_pairs(query, module, gen, provider, 'query parameter')}")
    body = _http_body(module)
    if body is not None:
        kwargs.append(f"json={body}")
    if not module.mapper.get("parseResponse", True):
        kwargs.append("parse=False")
    extra = "".join(f", {k}" for k in kwargs)
    lines = [f"{var(module)} = await make.http(ctx, {provider!r}, {method!r}, {template(url)}{extra}, "
             f"step={gen.steps[module.id]!r})"]
    auth = module.parameters.get("authenticationType")
    note = "" if auth in (None, "noAuth") and not module.app.endswith("BasicAuth") else \
        "authentication: configure it on the provider"
    return ModuleCode(lines, bundle=var(module), note=note)


# App modules with one documented REST call: module type -> (method, URL with {mapper field}, body fields)
APP_CALLS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "slack:CreateMessage": ("POST", "https://slack.com/api/chat.postMessage", ("channel", "text")),
    "lokalise:getATask": ("GET", "https://api.lokalise.com/api2/projects/{project_id}/tasks/{task_id}", ()),
    "notion:getADatabase": ("GET", "https://api.notion.com/v1/databases/{database}", ()),
}


def app_call(module: Module, gen: Gen) -> ModuleCode:
    """An app module whose operation is one documented REST call (``APP_CALLS``); its bundle is the response body."""
    method, url, fields = APP_CALLS[module.app]
    parts, pos = [], 0
    for match in re.finditer(r"\{(\w+)\}", url):
        value = module.mapper.get(match.group(1))
        if value in (None, ""):
            raise Untranslatable(f"the {match.group(1)} field is not mapped")
        parts += [repr(url[pos:match.start()]), template(value)]
        pos = match.end()
    parts.append(repr(url[pos:]))
    provider, base, proposals = provider_for(url, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base.split("://", 1)[1]] = provider
    gen.hosts[module.package] = provider  # the importer names an app call's provider after its app
    body = "{" + ", ".join(f"{f!r}: {template(module.mapper.get(f))}" for f in fields) + "}"
    extra = f", json={body}" if fields else ""
    lines = [f"{var(module)} = await make.app_call(ctx, {provider!r}, {method!r}, make.concat({', '.join(parts)}){extra}, "
             f"step={gen.steps[module.id]!r})"]
    return ModuleCode(lines, bundle=var(module), note=f"{method} {url} (authentication: configure it on the provider)")


def parse_json(module: Module, gen: Gen) -> ModuleCode:
    """Parse JSON: an object is one bundle, an array one bundle per element."""
    return ModuleCode([], bundles=f"make.parse_json({template(module.mapper.get('json'))}, {module.label!r})")


def set_variable(module: Module, gen: Gen) -> ModuleCode:
    """Set variable / Set multiple variables: kept for Get variable; the bundle holds them."""
    if module.app == "util:SetVariables":
        pairs = [(v.get("name"), v.get("value")) for v in module.mapper.get("variables") or [] if isinstance(v, dict)]
    else:
        pairs = [(module.mapper.get("name"), module.mapper.get("value"))]
    if any(not isinstance(name, str) or not name for name, _ in pairs):
        raise Untranslatable("a variable has no name")
    values = "{" + ", ".join(f"{name!r}: {template(value)}" for name, value in pairs) + "}"
    return ModuleCode([f"{var(module)} = {values}", f"run.variables.update({var(module)})"], bundle=var(module))


def get_variable(module: Module, gen: Gen) -> ModuleCode:
    """Get variable: the value a Set variable stored earlier in this run (None when none)."""
    name = module.mapper.get("name")
    if not isinstance(name, str) or not name:
        raise Untranslatable("the variable has no name")
    return ModuleCode([], bundle=f"{{{name!r}: run.variables.get({name!r})}}")


def compose(module: Module, gen: Gen) -> ModuleCode:
    """Compose a string: its text is the bundle's ``value``."""
    return ModuleCode([], bundle=f"{{'value': make.text({template(module.mapper.get('value', ''))})}}")


def sleep(module: Module, gen: Gen) -> ModuleCode:
    """Sleep: a durable ``ctx.sleep`` of the mapped seconds."""
    return ModuleCode([f"await ctx.sleep(float(make.number({template(module.mapper.get('duration', 0))}) or 0))"],
                      bundle="{}")


def passthrough(module: Module, gen: Gen) -> ModuleCode:
    """A module that only passes on (If-else's Merge, a placeholder): an empty bundle."""
    return ModuleCode([], bundle="{}")


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    "http:ActionSendData": http, "http:ActionSendDataBasicAuth": http, "http:MakeRequest": http,
    "json:ParseJSON": parse_json, "util:SetVariable2": set_variable, "util:SetVariable": set_variable,
    "util:SetVariables": set_variable, "util:GetVariable2": get_variable, "util:GetVariable": get_variable,
    "util:ComposeTransformer": compose, "util:FunctionSleep": sleep, "builtin:BasicMerge": passthrough,
    "placeholder:Placeholder": passthrough, **{app: app_call for app in APP_CALLS},
}
TRIGGERS = ("gateway:CustomWebHook", "gateway:CustomMailHook")
NO_CALL_PACKAGES = ("builtin", "gateway", "util", "json", "placeholder")


def makes_call(module: Module) -> bool:
    """Return whether the Make importer records a call (and a step) for ``module``."""
    return module.package not in NO_CALL_PACKAGES


def translate(module: Module, gen: Gen) -> ModuleCode:
    """Translate a non-structural module, or return its TODO (the reason named)."""
    translator = TRANSLATORS.get(module.app)
    if translator is None:
        return todo(module, f"no translation for module type {module.app}" + (
            " (an app module: write the ctx.call to its REST endpoint)" if makes_call(module) else ""))
    try:
        return translator(module, gen)
    except Untranslatable as exc:
        return todo(module, exc.reason)

"""Translate one Make module into lines of Python, with Make's semantics (``queue_core.compat.make``).

A translator gets the module and a ``Gen`` (providers, step names) and returns a ``ModuleCode``:
statements that compute the module's output (``ast`` nodes, ``harness.scaffold._code``), and
the Python expression of that output: ``bundle`` (one bundle) or ``bundles`` (an iterable:
everything after the module runs once per bundle).
Structural modules (Router, If-else, Iterator + Aggregator) are laid out by ``flow``.
A module with no translation raises ``make.TodoModule`` when a bundle reaches it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps import app_translators
from harness.platforms.make.translate.base import Gen, ModuleCode, _empty, todo, var
from harness.platforms.make.translate.iml import SETTINGS, template
from harness.platforms.make.translate.modules_http import TRANSLATORS as HTTP_TRANSLATORS
from harness.platforms.make.translate.modules_store import TRANSLATORS as STORE_TRANSLATORS
from harness.platforms.make.translate.modules_text import TRANSLATORS as TEXT_TRANSLATORS
from harness.scaffold._code import call, dict_of, expr, lit, stmts
from harness.scaffold._provider import provider_for

__all__ = ["Gen", "ModuleCode", "TRANSLATORS", "TRIGGERS", "makes_call", "todo", "translate", "var"]


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
        parts += [lit(url[pos:match.start()]), template(value)]
        pos = match.end()
    parts.append(lit(url[pos:]))
    provider, base, proposals = provider_for(url, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base.split("://", 1)[1]] = provider
    gen.hosts[module.package] = provider  # the importer names an app call's provider after its app
    kwargs = {"json": dict_of((f, template(module.mapper.get(f))) for f in fields)} if fields else {}
    lines = stmts("$var = await make.app_call(ctx, $provider, $method, make.concat(*$parts), **$kwargs, step=$step)",
                  var=var(module), provider=provider, method=method, parts=parts, kwargs=kwargs,
                  step=gen.steps[module.id])
    return ModuleCode(lines, bundle=var(module), note=f"{method} {url} (authentication: configure it on the provider)")


def parse_json(module: Module, gen: Gen) -> ModuleCode:
    """Parse JSON: an object is one bundle, an array one bundle per element."""
    return ModuleCode([], bundles=call("make.parse_json", template(module.mapper.get("json")), module.label))


def set_variable(module: Module, gen: Gen) -> ModuleCode:
    """Set variable / Set multiple variables: kept for Get variable; the bundle holds them."""
    if module.app == "util:SetVariables":
        pairs = [(v.get("name"), v.get("value")) for v in module.mapper.get("variables") or [] if isinstance(v, dict)]
    else:
        pairs = [(module.mapper.get("name"), module.mapper.get("value"))]
    if any(not isinstance(key, str) or not key for key, _ in pairs):
        raise Untranslatable("a variable has no name")
    values = dict_of((key, template(value)) for key, value in pairs)
    return ModuleCode(stmts("$var = $values\nrun.variables.update($var)", var=var(module), values=values),
                      bundle=var(module))


def get_variable(module: Module, gen: Gen) -> ModuleCode:
    """Get variable: the value a Set variable stored earlier in this run (None when none)."""
    key = module.mapper.get("name")
    if not isinstance(key, str) or not key:
        raise Untranslatable("the variable has no name")
    return ModuleCode([], bundle=expr("{$key: run.variables.get($key)}", key=key))


def get_variables(module: Module, gen: Gen) -> ModuleCode:
    """Get multiple variables: each one a Set variable stored earlier in this run, under its name."""
    names = [v.get("name") if isinstance(v, dict) else v for v in module.mapper.get("variables") or []]
    if not names or any(not isinstance(n, str) or not n or "{{" in n for n in names):
        raise Untranslatable("a variable's name is missing or mapped")
    return ModuleCode([], bundle=dict_of((n, expr("run.variables.get($key)", key=n)) for n in names))


def compose(module: Module, gen: Gen) -> ModuleCode:
    """Compose a string: its text is the bundle's ``value``."""
    return ModuleCode([], bundle=expr("{'value': make.text($value)}", value=template(module.mapper.get("value", ""))))


def sleep(module: Module, gen: Gen) -> ModuleCode:
    """Sleep: a durable ``ctx.sleep`` of the mapped seconds."""
    return ModuleCode(stmts("await ctx.sleep(float(make.number($duration) or 0))",
                            duration=template(module.mapper.get("duration", 0))), bundle=_empty())


def repeater(module: Module, gen: Gen) -> ModuleCode:
    """Repeater as the scenario's first module (elsewhere ``flow`` loops over it): ``{"i": …}`` bundles."""
    m = module.mapper
    return ModuleCode([], bundles=call("make.repeat", template(m.get("start", 1)), template(m.get("repeats", 1)),
                                       template(m.get("step", 1))), note="the bundles it outputs")


def passthrough(module: Module, gen: Gen) -> ModuleCode:
    """A module that only passes on (If-else's Merge, a placeholder): an empty bundle."""
    return ModuleCode([], bundle=_empty())


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    **HTTP_TRANSLATORS, **TEXT_TRANSLATORS, **STORE_TRANSLATORS,
    "json:ParseJSON": parse_json, "util:SetVariable2": set_variable, "util:SetVariable": set_variable,
    "util:SetVariables": set_variable, "util:GetVariable2": get_variable, "util:GetVariable": get_variable,
    "util:GetVariables": get_variables,
    "util:ComposeTransformer": compose, "util:FunctionSleep": sleep, "builtin:BasicMerge": passthrough, "builtin:BasicRepeater": repeater,
    "placeholder:Placeholder": passthrough, **{app: app_call for app in APP_CALLS},
    **app_translators(),  # harness/platforms/make/translate/apps/<area>.py: each area's TRANSLATORS
}
TRIGGERS = ("gateway:CustomWebHook", "gateway:CustomMailHook")
NO_CALL_PACKAGES = ("builtin", "gateway", "util", "json", "placeholder", "regexp")


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
        code = translator(module, gen)
    except Untranslatable as exc:
        return todo(module, exc.reason)
    needed = sorted({"MAKE_" + re.sub(r"[^A-Z0-9]+", "_", v.upper())
                     for v in re.findall(r"\bvar\.([\w.]+)", str(module.mapper)) if v in SETTINGS})
    if needed and code.todo is None:  # system variables only Make's account knows: settings
        code.note = "; ".join(filter(None, [code.note, f"set {', '.join(needed)} (Make's system variables)"]))
    return code

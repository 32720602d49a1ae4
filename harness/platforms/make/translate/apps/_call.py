"""What the make-apps areas share: a module's mapper fields as a catalogue operation's call (``make.apps``).

:func:`op_call` builds the ``make.apps.call`` (one bundle) or ``make.apps.search`` (a bundle per
result) of a catalogue operation: its provider (the project's for the app's host, else the
catalogue's, proposed), the URL from the base and path with each ``{field}`` mapped, and the body
or query of mapped fields. The importer names an app module's call after its app
(``airtable``), so the app's prefix is mapped to the provider too.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import call, dict_of, lit, name, stmts

__all__ = ["field", "fields", "guarded", "number", "op_call", "provider_of", "required", "url_of"]

Translator = Callable[[Module, Gen], ModuleCode]


def guarded(translators: dict[str, Translator]) -> dict[str, Translator]:
    """Return the translators, each turning a module whose fields are not shaped as its form shapes them
    (an array where a collection goes, …) into a TODO naming it, never an aborted scaffold."""
    def guard(translator: Translator) -> Translator:
        @functools.wraps(translator)
        def translate(module: Module, gen: Gen) -> ModuleCode:
            try:
                return translator(module, gen)
            except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
                raise Untranslatable(f"{module.app}: a field is not shaped as the module's form shapes it "
                                     f"({type(exc).__name__}: {exc})") from None
        return translate
    return {module_type: guard(translator) for module_type, translator in translators.items()}


def provider_of(app: catalogue.App, module: Module, gen: Gen) -> str:
    """Return the app's provider: the project's for its host, else the catalogue's (proposed with its base URL)."""
    provider = gen.providers.get(app.host, app.provider)
    if app.host not in gen.providers:
        gen.proposals.setdefault(provider, app.base_url)
    gen.hosts[app.host] = provider
    gen.hosts[module.package] = provider
    return provider


def required(module: Module, key: str, label: str = "") -> ast.expr:
    """Return a mapped field's expression; Untranslatable when the module leaves it empty."""
    value = module.mapper.get(key)
    if value in (None, "", [], {}):
        raise Untranslatable(f"the {label or key} field is not filled in")
    return template(value)


def field(module: Module, key: str) -> ast.expr | None:
    """Return a mapped field's expression, None when the module leaves it empty."""
    value = module.mapper.get(key)
    return None if value in (None, "", [], {}) else template(value)


def number(module: Module, key: str) -> ast.expr | None:
    """Return a number field as Make sends it (``make.apps.num``), None when empty."""
    value = field(module, key)
    return None if value is None else call("make.apps.num", value, key)


def fields(module: Module, names: dict[str, str], numbers: tuple[str, ...] = (), flags: tuple[str, ...] = (),
           texts: tuple[str, ...] = ()) -> ast.Dict:
    """Return the dict of the API's fields from the module's (Make field -> API field), the empty ones left out.

    A number field is sent as a number, a boolean as a boolean, a text field as text (an array mapped into
    it joined with ", ", as Make writes it), each as the module's form types it.
    """
    pairs: list[tuple[str, ast.expr]] = []
    for key, api in names.items():
        value = field(module, key)
        if value is None:
            continue
        if key in numbers:
            value = call("make.apps.num", value, key)
        elif key in flags:
            value = call("make.apps.flag", value)
        elif key in texts:
            value = call("make.text", value)
        pairs.append((api, value))
    return dict_of(pairs)


def url_of(app: catalogue.App, op: catalogue.Operation, path: dict[str, Any]) -> ast.expr:
    """Return the call's URL: the app's base and the operation's path, each ``{field}`` from ``path`` (expressions)."""
    parts: list[ast.expr] = []
    pos, full = 0, app.base_url + op.path
    for match in re.finditer(r"\{(\w+)\}", full):
        if match.group(1) not in path:
            raise Untranslatable(f"{op.name}: no value for the path field {match.group(1)}")
        parts += [lit(full[pos:match.start()]), lit(path[match.group(1)])]
        pos = match.end()
    if not parts:
        return lit(full)
    parts.append(lit(full[pos:]))
    return call("make.concat", *parts)


def op_call(module: Module, gen: Gen, app_name: str, op_name: str, *, shape: str, path: dict[str, Any] | None = None,
            many: bool = False, before: list[ast.stmt] | None = None, note: str = "", **kwargs: Any) -> ModuleCode:
    """Return the module's code: the catalogue operation's call through ``make.apps`` and its bundle(s).

    ``kwargs`` are the call's ``json``/``params``/``data``/``files``/``headers`` (and ``limit`` of a search),
    expressions; ``many``: the module outputs a bundle per result (``make.apps.search``).
    """
    app, op = catalogue.app(app_name), catalogue.operation(app_name, op_name)
    provider = provider_of(app, module, gen)
    url = url_of(app, op, path or {})
    holes = {"provider": provider, "method": op.method, "url": url, "step": gen.steps[module.id], "shape": shape,
             "kwargs": {k: v for k, v in kwargs.items() if v is not None}}
    comment = f"{app.provider}: {op.name} -> {op.method} {app.base_url}{op.path}"
    if many:
        found = name(f"found_{module.id}")
        lines = stmts("$found = await make.apps.search(ctx, $provider, $method, $url, step=$step, shape=$shape, **$kwargs)",
                      found=found, **holes)
        return ModuleCode((before or []) + lines, bundles=found, note=note or comment)
    lines = stmts("$var = await make.apps.call(ctx, $provider, $method, $url, step=$step, shape=$shape, **$kwargs)",
                  var=var(module), **holes)
    return ModuleCode((before or []) + lines, bundle=var(module), note=note or comment)

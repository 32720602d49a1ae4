"""What the Google app areas' translators share (``google.py``, ``google_mail.py``, ``google_drive.py``,
``..triggers``): the provider of an app's API, required fields, and the awaited runtime call."""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import call, stmts
from harness.scaffold._provider import provider_for

__all__ = ["AUTH", "app_provider", "awaited", "only", "required"]

AUTH = "authentication: the Google connection's OAuth token, configured on the provider"


def app_provider(module: Module, gen: Gen, base: str) -> str:
    """Return the provider of an app's API at ``base``, noted for the manifest (by host, and by app name:
    the importer names an app call's provider after its app)."""
    provider, base_url, proposals = provider_for(base, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base_url.split("://", 1)[1]] = provider
    gen.hosts[module.package] = provider
    return provider


def required(module: Module, *fields: str) -> None:
    """Raise Untranslatable naming the first of ``fields`` the module's mapper leaves empty."""
    for field in fields:
        if module.mapper.get(field) in (None, "", [], {}):
            raise Untranslatable(f"the {field} field is not mapped")


def only(module: Module, *fields: str) -> None:
    """Raise Untranslatable naming a mapped field the translation does not read (so none is dropped silently)."""
    for field, value in module.mapper.items():
        if field not in fields and not field.startswith("__") and value not in (None, "", [], {}, False):
            raise Untranslatable(f"the {field} field is not translated")


def awaited(module: Module, gen: Gen, function: str, base: str, many: bool = False, note: str = AUTH,
            **fields: Any) -> ModuleCode:
    """Return ``bundle = await make.<function>(ctx, provider, step=…, **fields)`` (mapped fields as templates)."""
    provider = app_provider(module, gen, base)
    kwargs = {k: v if isinstance(v, ast.expr) else template(v) for k, v in fields.items()}
    lines = stmts("$var = await $call", var=var(module),
                  call=call(f"make.{function}", name_node("ctx"), provider, step=gen.steps[module.id], **kwargs))
    return ModuleCode(lines, bundles=var(module), note=note) if many else ModuleCode(lines, bundle=var(module), note=note)


def name_node(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Load())



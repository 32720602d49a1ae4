"""Make's Text parser modules (``regexp:Parser``, ``regexp:Replace``, ``regexp:HTMLToText``), JSON
"Create JSON", "Transform to JSON", the Switch and the webhook reply (``gateway:WebhookRespond``): no call; run time in
``queue_core/compat/_make_text.py`` (``make.tools``, Make's semantics are written there).
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import lit, stmts

__all__ = ["TRANSLATORS"]


def _flags(module: Module) -> dict[str, ast.expr]:
    p = module.parameters
    return {"global_match": lit(bool(p.get("global", False))), "sensitive": lit(bool(p.get("sensitive", True))),
            "multiline": lit(bool(p.get("multiline", False))), "singleline": lit(bool(p.get("singleline", False)))}


def _pattern(module: Module) -> str:
    pattern = module.parameters.get("pattern", module.mapper.get("pattern"))
    if not isinstance(pattern, str) or not pattern:
        raise Untranslatable("the module has no pattern")
    if "{{" in pattern:
        raise Untranslatable("a pattern mapped from a bundle is not translated")
    return pattern


def _call(function: str, *args: ast.expr, **kwargs: ast.expr) -> ast.expr:
    target = ast.Attribute(ast.Attribute(ast.Name("make", ast.Load()), "tools", ast.Load()), function, ast.Load())
    return ast.Call(target, list(args), [ast.keyword(k, v) for k, v in kwargs.items()])


def parser(module: Module, gen: Gen) -> ModuleCode:
    """Match pattern: one bundle per match ($1…, named groups, i, __IMTMATCH__)."""
    flags = _flags(module)
    flags["continue_when_none"] = lit(bool(module.parameters.get("continueWhenNoRes", False)))
    return ModuleCode([], bundles=_call("match_pattern", template(module.mapper.get("text", "")), lit(_pattern(module)),
                                        **flags, module=lit(module.label)))


def replace(module: Module, gen: Gen) -> ModuleCode:
    """Replace: the text with the pattern's matches replaced; output ``text``."""
    m = module.mapper
    return ModuleCode([], bundle=_call("replace", template(m.get("text", "")), lit(_pattern(module)),
                                       template(m.get("value", m.get("new", ""))), **_flags(module),
                                       module=lit(module.label)))


def html_to_text(module: Module, gen: Gen) -> ModuleCode:
    """HTML to text: output ``text``."""
    m = module.mapper
    return ModuleCode([], bundle=_call("html_to_text", template(m.get("html", "")),
                                       newline=lit(str(m.get("newline") or "lf")),
                                       uppercase_headings=lit(bool(m.get("uppercaseHeadings", True)))))


def _spec(module: Module) -> list[dict[str, Any]] | None:
    """Return the data structure's fields as the blueprint's ``expect`` lists them (None when absent)."""
    expect = module.metadata.get("expect") if isinstance(module.metadata, dict) else None
    if not isinstance(expect, list) or not all(isinstance(f, dict) for f in expect):
        return None
    return [_plain_spec(f) for f in expect]


def _plain_spec(field: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": field.get("name"), "type": field.get("type")}
    inner = field.get("spec")
    if isinstance(inner, list):
        out["spec"] = [_plain_spec(f) for f in inner if isinstance(f, dict)]
    elif isinstance(inner, dict):
        out["spec"] = _plain_spec(inner)
    return out


def create_json(module: Module, gen: Gen) -> ModuleCode:
    """Create JSON: the data structure's fields as JSON text; output ``json``."""
    spec = _spec(module)
    if spec is None:
        raise Untranslatable("the data structure's fields are not in the blueprint (metadata.expect): "
                         "their types decide the JSON")
    return ModuleCode([], bundle=_call("create_json", template(module.mapper), lit(spec),
                                       space=template(module.parameters.get("space", "")),
                                       module=lit(module.label)))


def switch(module: Module, gen: Gen) -> ModuleCode:
    """Switch: the output of the first case whose pattern matches the input, else the else output; ``output``."""
    m = module.mapper
    cases: list[ast.expr] = [ast.Tuple([template(c.get("pattern", "")), template(c.get("output"))], ast.Load())
             for c in m.get("casesTable") or [] if isinstance(c, dict)]
    return ModuleCode([], bundle=_call("switch", template(m.get("input", "")), ast.List(cases, ast.Load()),
                                       template(m.get("elseOutput")), regexp=lit(bool(m.get("useRegExpMatch"))),
                                       module=lit(module.label)))


def transform_json(module: Module, gen: Gen) -> ModuleCode:
    """Transform to JSON: the mapped object as JSON text; output ``json``."""
    return ModuleCode([], bundle=_call("transform_json", template(module.mapper.get("object")),
                                       space=template(module.parameters.get("space", ""))))


def webhook_respond(module: Module, gen: Gen) -> ModuleCode:
    """Webhook response: ``ctx.respond(status, body, headers)`` (as n8n's Respond to Webhook); an empty bundle."""
    m = module.mapper
    headers = [lit((template(h.get("key", h.get("name", ""))), template(h.get("value", ""))))
               for h in m.get("headers") or [] if isinstance(h, dict)]
    respond = _call("respond", ast.Name("ctx", ast.Load()), template(m.get("status", "200")),
                    template(m.get("body", "")), ast.List(headers, ast.Load()), module=lit(module.label))
    return ModuleCode(stmts("$var = await $respond", var=var(module), respond=respond), bundle=var(module),
                      note="the webhook's synchronous reply (ctx.respond)")


TRANSLATORS = {
    "regexp:Parser": parser, "regexp:Replace": replace, "regexp:HTMLToText": html_to_text,
    "util:Switcher": switch, "json:CreateJSON": create_json, "json:TransformToJSON": transform_json, "gateway:WebhookRespond": webhook_respond,
}

"""A stand-in for ``expr`` (helper wdl's WDL translator) until it is merged: literals, and the
plain reads ``@triggerBody()?['a']``, ``@variables('v')``, ``@body('X')?['a']``, ``@outputs('X')``,
``@item()?['a']``, ``@items('F')?['a']``, whole or inside ``@{…}``. Anything else is Untranslatable.
Deleted when ``expr`` lands.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from harness.errors import Untranslatable
from harness.scaffold._code import call, lit

_READ = re.compile(r"^(triggerBody|triggerOutputs|item)\(\)|^(variables|body|outputs|items|parameters)\('([^']*)'\)")
_INDEX = re.compile(r"^\??\['([^']*)'\]")
_METHODS = {"triggerBody": "trigger_body", "triggerOutputs": "trigger_outputs", "item": "item",
            "variables": "variables", "body": "body", "outputs": "outputs", "items": "items",
            "parameters": "parameters"}


def _read(text: str) -> ast.expr:
    match = _READ.match(text)
    if match is None:
        raise Untranslatable(f"the expression {text[:60]!r} is not translated (the WDL translator is not merged)")
    if match.group(1):
        base: ast.expr = call(f"run.{_METHODS[match.group(1)]}")
    else:
        base = call(f"run.{_METHODS[match.group(2)]}", match.group(3))
    rest, keys = text[match.end():], []
    while rest:
        index = _INDEX.match(rest)
        if index is None:
            raise Untranslatable(f"the expression {text[:60]!r} is not translated (the WDL translator is not merged)")
        keys.append(index.group(1))
        rest = rest[index.end():]
    return call("power_automate.path", base, *keys) if keys else base


def template(raw: Any) -> ast.expr:
    if isinstance(raw, dict):
        return ast.Dict([template(k) for k in raw], [template(v) for v in raw.values()])
    if isinstance(raw, list):
        return ast.List([template(v) for v in raw], ast.Load())
    if not isinstance(raw, str):
        return lit(raw)
    if raw.startswith("@@"):
        return lit(raw[1:])
    if raw.startswith("@") and not raw.startswith("@{"):
        return _read(raw[1:].strip())
    if "@{" not in raw:
        return lit(raw)
    parts: list[ast.expr] = []
    for piece in re.split(r"(@\{[^}]*\})", raw):
        if piece.startswith("@{"):
            parts.append(call("power_automate.text", _read(piece[2:-1].strip())))
        elif piece:
            parts.append(lit(piece))
    return ast.JoinedStr([ast.FormattedValue(p, -1, None) if not isinstance(p, ast.Constant) else p for p in parts])

"""Zapier's mapped fields as Python: ``{{<step id>__<field>__<sub field>}}`` in text, as ``ast`` expressions.

A Zap step's params hold text with ``{{…}}`` references to earlier steps' outputs: the step id,
then the output's keys, nested keys joined with ``__`` (``{{1__channel__name}}``). A field that
is exactly one reference keeps the value's type (``zapier.field(run.out, "1", "channel", "name")``);
text around references is written as Zapier writes a field (``zapier.concat``: null as nothing,
lists comma-joined). A reference to a step that is not before this one in the Zap (a copied Zap
whose references still name the original's ids) raises ``Untranslatable`` naming it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from typing import Any

from harness.errors import Untranslatable
from harness.scaffold._code import call, dict_of, expr, lit

REFERENCE = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")


def references(raw: Any) -> set[str]:
    """Return the step ids ``raw`` (a param value, at any depth) refers to."""
    if isinstance(raw, dict):
        return set().union(*(references(v) for v in raw.values())) if raw else set()
    if isinstance(raw, list):
        return set().union(*(references(v) for v in raw)) if raw else set()
    if not isinstance(raw, str):
        return set()
    return {m.group(1).split("__", 1)[0] for m in REFERENCE.finditer(raw)}


def _reference(inner: str, known: Collection[str]) -> ast.expr:
    parts = inner.split("__")
    step, path = parts[0], [p for p in parts[1:]]
    if step not in known:
        raise Untranslatable(f"{{{{{inner}}}}} refers to step {step}, which is not an earlier step of this Zap")
    if not path or any(not p for p in path):
        raise Untranslatable(f"{{{{{inner}}}}} names no field of step {step}")
    return expr("zapier.field(run.out, $step, *$path)", step=step, path=path)


def template(raw: Any, known: Collection[str]) -> ast.expr:
    """Return the Python expression of a param value: text with references, or a structure of them."""
    if isinstance(raw, dict):
        return dict_of((str(k), template(v, known)) for k, v in raw.items())
    if isinstance(raw, list):
        return ast.List([template(v, known) for v in raw], ast.Load())
    if not isinstance(raw, str):
        return lit(raw)
    matches = list(REFERENCE.finditer(raw))
    if not matches:
        return lit(raw)
    if len(matches) == 1 and matches[0].span() == (0, len(raw)):
        return _reference(matches[0].group(1), known)
    parts: list[ast.expr] = []
    pos = 0
    for match in matches:
        if match.start() > pos:
            parts.append(lit(raw[pos:match.start()]))
        parts.append(_reference(match.group(1), known))
        pos = match.end()
    if pos < len(raw):
        parts.append(lit(raw[pos:]))
    return call("zapier.concat", *parts)


def text_of(raw: Any, known: Collection[str]) -> ast.expr:
    """Return the expression of a param written as text (a field Zapier sends as a string)."""
    value = template(raw, known)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value
    return call("zapier.concat", value) if not (isinstance(value, ast.Call) and _is_concat(value)) else value


def _is_concat(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == "concat"

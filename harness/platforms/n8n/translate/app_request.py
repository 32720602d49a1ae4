"""The parts of one app call as n8n's app nodes build them, and the small translators every app shares.

A request translator takes an n8n node and returns the Python expressions (``ast`` nodes,
``harness.scaffold._code``) of the call's body, query and headers; the method and path are the
catalogue's (``harness.catalogue``). A parameter not translated raises ``Untranslatable`` naming it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.scaffold import _code
from harness.scaffold._code import dict_of, lit

Params = dict[str, Any]


@dataclass(frozen=True)
class Request:
    """The Python expressions of one call's parts (None: not sent) and how its items come out."""

    body: ast.expr | None = None
    query: ast.expr | None = None
    headers: ast.expr | None = None
    items: ast.expr = field(default_factory=lambda: _code.expr("n8n.response_items(response)"))  # for one call
    form: bool = False  # Stripe: the body is form-encoded


def fields(*names: str, aliases: dict[str, str] | None = None) -> Callable[[Node], Request]:
    """A JSON body of the named parameters (a missing one is sent as ``""``)."""
    def build(node: Node) -> Request:
        params = node.parameters
        pairs = []
        for key in names:
            raw = params.get(key, params.get((aliases or {}).get(key, ""), ""))
            pairs.append((key, expr.value(raw)))
        return Request(body=dict_of(pairs))
    return build


def collection(node: Node, collection: str, known: dict[str, str]) -> list[tuple[str, ast.expr]]:
    """Return (API name, value) for each set option of a collection; raise on an unknown one."""
    chosen = node.parameters.get(collection) or {}
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise Untranslatable(f"{collection}.{unknown[0]} is not translated (translated: {', '.join(sorted(known))})")
    return [(known[key], expr.value(chosen[key])) for key in known if key in chosen]


def pairs_source(pairs: list[tuple[str, ast.expr]]) -> ast.expr:
    """Return the source of a list of (name, value) pairs."""
    return lit(pairs)


def check_version(node: Node, at_least: float, app: str) -> None:
    """Raise Untranslatable for a node older than the parameters translated."""
    if node.version < at_least:
        raise Untranslatable(f"{app} v{node.version:g} parameters are not translated (v{at_least:g}+ are)")


def mapped(columns: dict[str, Any]) -> tuple[str, ast.expr]:
    """Return a node's ``columns`` mapping mode and the fields it sends: those it defines, or the item's."""
    mode = columns.get("mappingMode", "defineBelow")
    if mode == "defineBelow":
        return mode, expr.value(columns.get("value") or {})
    if mode == "autoMapInputData":
        return mode, _code.expr("n8n.get(item, 'json') or {}")
    raise Untranslatable(f"columns.mappingMode {mode!r} is not translated")

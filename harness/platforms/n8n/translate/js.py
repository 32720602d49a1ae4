"""The one JavaScript parser of the n8n translator and probes: esprima, one expression at a time.

n8n's ``{{ … }}`` expressions and a Code node's literal ``return [...]`` are JavaScript
expressions; ``parse_expression`` parses one (esprima 4 predates ``?.``: with
``optional_chains`` it is read as ``.``, as n8n's items make no difference between them here).
"""

from __future__ import annotations

import re
from typing import Any

import esprima

from harness.errors import Untranslatable

_OPTIONAL_CHAIN = re.compile(r"\?\.(?!\d)")


def parse_expression(source: str, *, optional_chains: bool = True) -> Any:
    """Return esprima's node of the one JavaScript expression ``source``; raise Untranslatable otherwise."""
    cleaned = _OPTIONAL_CHAIN.sub(".", source.strip()) if optional_chains else source.strip()
    if not cleaned:
        raise Untranslatable("an empty expression")
    try:
        program = esprima.parseScript(f"({cleaned})")
    except esprima.Error as exc:
        raise Untranslatable(f"not an expression this translation parses ({exc})") from None
    if len(program.body) != 1 or program.body[0].type != "ExpressionStatement":
        raise Untranslatable("more than one statement")
    return program.body[0].expression

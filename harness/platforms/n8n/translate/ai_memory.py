"""An AI Agent's memory sub-node (``ai_memory``): n8n's Simple Memory (``memoryBufferWindow`` v1–v1.3).

The session key per item (v1.2+: the item's ``sessionId``, or the ``sessionKey`` with
``sessionIdType: customKey``; v1/v1.1: the ``sessionKey``, its default per version from the
description) and the window (``contextWindowLength`` turns) become the runtime's ``memory``
(``queue_core.compat._n8n_ai_memory``: the turns kept in Postgres across runs). Another memory
(Postgres, Redis, Motorhead, …) is Untranslatable naming it.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_ai import _check_described
from harness.scaffold import _code
from harness.scaffold._code import dict_of

WINDOW = "memoryBufferWindow"


def memory_of(workflow: Workflow, root: Node) -> ast.expr | None:
    """Return the root's memory as the runtime's ``{session, k, custom}`` (code); None without one."""
    found = [workflow.nodes[s.source] for s in workflow.attached(root.name)
             if s.kind == "memory" and not workflow.nodes[s.source].disabled]
    if not found:
        return None
    memory = found[0]
    if memory.short_type != WINDOW or not memory.type.startswith("@n8n/"):
        raise Untranslatable(f"the memory {memory.short_type} is not translated (the Simple Memory, "
                             f"{WINDOW}, is: its turns kept in Postgres)")
    params = _check_described(memory)
    k = params.get("contextWindowLength", 5)
    if not isinstance(k, int) or isinstance(k, bool):
        raise Untranslatable("a Simple Memory whose context window an expression computes is not translated")
    if memory.version >= 1.2:
        custom = params.get("sessionIdType", "fromInput") == "customKey"
        key = params.get("sessionKey", "") if custom else "={{ $json.sessionId }}"
    else:
        custom, key = None, params.get("sessionKey", "")
    session = _code.expr("lambda item, i: $key", key=expr.value(key))
    return dict_of([("session", session), ("k", k), ("custom", custom)])

"""The AI roots' dispatch, and their sub-nodes counted with them (``app_ai``, ``app_ai_chain``).

``module`` asks :func:`is_root` of every node it reaches and translates an AI root with
:func:`root_node` (its sub-nodes are read from the workflow); a sub-node, never reached by a main
connection, gets its root's status from :func:`sub_node_row`.
"""

from __future__ import annotations

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import app_ai, app_ai_chain, app_ai_media
from harness.platforms.n8n.translate.app_ai import PACKAGE, Translator
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, todo
from harness.scaffold._module import NodeRow


def is_root(node: Node) -> bool:
    """Tell whether ``node`` is an AI node this module translates (the others stay n8n's TODO)."""
    return node.type.startswith(PACKAGE) and node.short_type in _translators()


def _translators() -> dict[str, Translator]:
    return {**app_ai.TRANSLATORS, **app_ai_chain.TRANSLATORS, **app_ai_media.TRANSLATORS}


def root_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """Translate an AI node (its sub-nodes read from ``workflow``); a TODO naming why when it cannot be."""
    try:
        return _translators()[node.short_type](node, slot, workflow)
    except Untranslatable as exc:
        return todo(node, slot, exc.reason)
    except Exception as exc:  # noqa: BLE001 - parameters of a shape no translator expects: the estate run goes on
        return todo(node, slot, f"its parameters could not be read ({type(exc).__name__}: {exc})")


def root_of(workflow: Workflow, sub: str) -> tuple[str, str] | None:
    """Return the root node a sub-node serves (through other sub-nodes: a parser's model) and its first kind."""
    seen, current, kind = {sub}, sub, None
    while True:
        served = [s for s in workflow.sub_nodes if s.source == current]
        if not served:
            return (current, kind) if kind is not None else None
        kind = kind or served[0].kind
        current = served[0].target
        if current in seen:
            return None
        seen.add(current)


def sub_node_row(workflow: Workflow, name_: str, rows: list[NodeRow]) -> NodeRow | None:
    """Return a sub-node's row: its root's status (translated or TODO), as part of the root's translation."""
    found = root_of(workflow, name_)
    if found is None:
        return None
    root, kind = found
    row = next((r for r in rows if r.node == root), None)
    if row is None or row.status not in ("translated", "todo"):
        return None
    node = workflow.nodes[name_]
    why = f"a sub-node ({kind}) of {root!r}: part of its translation"
    if row.status == "todo":
        why += f" (a TODO with it: {row.why})"
    return NodeRow(name_, node.type, row.status, why)

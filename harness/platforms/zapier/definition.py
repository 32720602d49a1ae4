"""Read a Zap's definition — the account export's ``Zapfile.json`` — into its ordered steps.

Both versions Zapier has exported are read: ``metadata.version`` ``gdpr_v1`` (today's account data
export) and ``2`` (older Zap exports). Either holds ``zaps[]``, each with ``nodes`` keyed by node id;
a node has ``type_of`` (read, search, write, filter), ``selected_api`` (``SlackAPI``,
``FilterAPI``, ``WebHookCLIAPI@1.0.36``), ``action``, ``title`` and ``parent_id`` (the chain). Paths
are a ``BranchingAPI`` ``branch`` node whose children are ``BranchingAPI`` ``filter`` nodes, one
per path. The Partner API's ``GET /v2/zaps`` (``data[{type: "zap", steps[]}]``) is read as a
linear chain; fetched with ``expand=steps.action`` its steps' ``action`` is the Action object,
whose ``is_instant`` says whether the trigger is instant (a REST hook) or polled. The Zapfile
does not say (``triple_stores.polling_interval_override`` is on every node, instant or not).
Steps are ordered depth first from the root, children by id, which is the order of the editor.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

BRANCHING_API = "BranchingAPI"
# Zapier runs its Schedule trigger on the polling cycle too (is_instant false), but its runs are ticks.
SCHEDULE_APP = "Schedule by Zapier"


@dataclass(frozen=True)
class ZapStep:
    """One step of a Zap: its id, label, kind, and for a path its branch and path label.

    What the translator reads besides (``cutover scaffold zapier``): the node's ``app``
    (``selected_api`` without its ``@version``), ``action``, ``type_of``, ``params``, the
    ``parent`` node id (the chain; a path's steps hang under its ``filter`` node) and ``shown``.
    """

    id: str
    label: str
    kind: str  # trigger, action, search, filter, branch, path
    branch: str | None = None
    app: str = ""
    action: str = ""
    type_of: str = ""
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    parent: str | None = None
    # ``meta.parammap``: what the editor showed for a param (a worksheet's title for its id, a column's header)
    shown: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class ZapDefinition:
    """One Zap's steps in editor order."""

    id: str | None
    title: str | None
    steps: tuple[ZapStep, ...]
    polls: bool | None = None  # the trigger is polled (True), instant (False), or the file does not say (None)


def read_zaps(document: Any) -> list[ZapDefinition]:
    """Return every Zap a Zapfile (gdpr_v1 or v2) or a ``/v2/zaps`` page defines."""
    if not isinstance(document, dict):
        return []
    if isinstance(document.get("zaps"), list):
        return [_zap(z) for z in document["zaps"] if isinstance(z, dict)]
    if isinstance(document.get("data"), list):
        return [_partner_zap(z) for z in document["data"] if isinstance(z, dict)]
    return []


def choose(zaps: list[ZapDefinition], zap_id: Any) -> ZapDefinition | None:
    """Return the Zap a run belongs to (by ``zap_id``), or the only Zap of the file."""
    wanted = str(zap_id) if zap_id is not None else None
    for zap in zaps:
        if wanted is not None and zap.id == wanted:
            return zap
    return zaps[0] if len(zaps) == 1 else None


def _app(node: dict[str, Any]) -> str:
    return str(node.get("selected_api") or "").split("@", 1)[0]


def _label(node: dict[str, Any]) -> str:
    title = node.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    return f"{_app(node) or 'step'}:{node.get('action') or node.get('id')}"


def _kind(node: dict[str, Any], is_root: bool) -> str:
    if is_root:
        return "trigger"
    app, type_of = _app(node), str(node.get("type_of") or "")
    if app == BRANCHING_API:
        return "branch" if node.get("action") == "branch" else "path"
    return {"filter": "filter", "search": "search"}.get(type_of, "action")


def _node_list(nodes: Any) -> list[dict[str, Any]]:
    values = nodes.values() if isinstance(nodes, dict) else nodes if isinstance(nodes, list) else []
    return [n for n in values if isinstance(n, dict) and n.get("id") is not None]


def _sort_key(node: dict[str, Any]) -> tuple[int, str]:
    ident = str(node.get("id"))
    return (int(ident), ident) if ident.isdigit() else (0, ident)


def _zap(zap: dict[str, Any]) -> ZapDefinition:
    nodes = _node_list(zap.get("nodes"))
    known = {str(n["id"]) for n in nodes}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for node in sorted(nodes, key=_sort_key):
        parent = node.get("parent_id")
        key = str(parent) if parent is not None and str(parent) in known else None
        children.setdefault(key, []).append(node)
    steps: list[ZapStep] = []
    stack: list[tuple[dict[str, Any], str | None, bool, int]] = [(n, None, True, 0) for n in reversed(children.get(None, []))]
    seen: set[str] = set()
    while stack:
        node, branch, is_root, position = stack.pop()
        ident = str(node["id"])
        if ident in seen:
            continue
        seen.add(ident)
        kind = _kind(node, is_root)
        label = _label(node) if kind != "path" or _text(node.get("title")) else f"Path {chr(65 + position % 26)}"
        raw = node.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        parent = node.get("parent_id")
        steps.append(ZapStep(ident, label, kind, branch if kind == "path" else None, _app(node),
                             str(node.get("action") or ""), str(node.get("type_of") or ""), params,
                             str(parent) if parent is not None and str(parent) in known else None, _shown(node)))
        inner = label if kind == "branch" else None
        below = children.get(ident, [])
        stack.extend((child, inner, False, i) for i, child in reversed(list(enumerate(below))))
    zap_id = zap.get("id")
    return ZapDefinition(str(zap_id) if zap_id is not None else None, _text(zap.get("title")), _unique(steps))


def _shown(node: dict[str, Any]) -> dict[str, Any]:
    meta = node.get("meta")
    shown = meta.get("parammap") if isinstance(meta, dict) else None
    return dict(shown) if isinstance(shown, dict) else {}


def _unique(steps: list[ZapStep]) -> tuple[ZapStep, ...]:
    """Number repeated labels (two Code steps) ``label #2``, so each step of a path is one name."""
    seen: dict[str, int] = {}
    out = []
    for step in steps:
        seen[step.label] = seen.get(step.label, 0) + 1
        label = step.label if seen[step.label] == 1 else f"{step.label} #{seen[step.label]}"
        out.append(replace(step, label=label))
    return tuple(out)


def _partner_zap(zap: dict[str, Any]) -> ZapDefinition:
    raw = [s for s in zap.get("steps") or [] if isinstance(s, dict)]
    steps = tuple(
        ZapStep(str(i), _text(s.get("title")) or f"step {i + 1}", "trigger" if i == 0 else "action",
                action=_text(s.get("action")) or "", params=_inputs(s),
                parent=str(i - 1) if i else None)
        for i, s in enumerate(raw)
    )
    return ZapDefinition(_text(zap.get("id")), _text(zap.get("title")), steps, trigger_polls(raw[0] if raw else {}))


def _inputs(step: dict[str, Any]) -> dict[str, Any]:
    raw = step.get("inputs")
    return raw if isinstance(raw, dict) else {}


def trigger_polls(step: dict[str, Any]) -> bool | None:
    """Return whether an expanded trigger step polls: a READ action with ``is_instant`` false.

    ``None`` when the step's action is only an id (not expanded), is no READ, or is Schedule by
    Zapier (a tick, not a poll).
    """
    action = step.get("action")
    if not isinstance(action, dict) or action.get("action_type") != "READ" or not isinstance(action.get("is_instant"), bool):
        return None
    app = action.get("app")
    if isinstance(app, dict) and app.get("title") == SCHEDULE_APP:
        return None
    return not action["is_instant"]


def _text(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None

"""Read a Power Automate / Logic Apps flow definition (WDL) into its ordered actions and branches.

Accepted: the export package's ``definition.json`` (``{name, id, type, properties{displayName,
definition, connectionReferences}}``), a Logic Apps workflow resource (``properties.definition``),
``{definition: ...}``, or the bare definition (``{$schema, triggers, actions}``). Actions nest:
``If`` has ``actions`` (true) and ``else.actions``; ``Switch`` has ``cases{name: {actions}}`` and
``default.actions``; ``Scope``/``Foreach``/``Until`` have ``actions``. Order inside a scope is
given only by ``runAfter`` (empty: first); actions are listed depth first in that order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.importer.definition import flow_definition

IF_TYPE = "if"
SWITCH_TYPE = "switch"


@dataclass(frozen=True)
class FlowAction:
    """One action of a flow: its type, the action containing it, and the branch it sits in."""

    name: str
    type: str
    parent: str | None = None
    branch: str | None = None  # "true"/"false" under an If; under a Switch its case's value, or "default"


@dataclass(frozen=True)
class PowerAutomateFlow:
    """A flow's actions in definition order (depth first, ``runAfter`` order inside a scope)."""

    actions: tuple[FlowAction, ...]

    def get(self, name: str) -> FlowAction | None:
        """Return the action called ``name``."""
        return next((a for a in self.actions if a.name == name), None)

    def branches(self) -> list[FlowAction]:
        """Return the If and Switch actions: the flow's decisions."""
        return [a for a in self.actions if a.type in (IF_TYPE, SWITCH_TYPE)]

    def inside(self, parent: str, branch: str) -> list[str]:
        """Return the names of the actions directly inside one branch of ``parent``."""
        return [a.name for a in self.actions if a.parent == parent and a.branch == branch]


def read_flow(document: Any) -> PowerAutomateFlow | None:
    """Return the flow a definition document describes, or ``None`` when it holds none."""
    definition = flow_definition(document)
    if definition is None:
        return None
    out: list[FlowAction] = []
    _scope(definition.get("actions"), None, None, out)
    return PowerAutomateFlow(tuple(out))


def _ordered(actions: dict[str, Any]) -> list[str]:
    """Order a scope's actions by ``runAfter`` (a topological order; ties and cycles by name)."""
    after = {name: set(_run_after(spec)) for name, spec in actions.items()}
    done: list[str] = []
    left = sorted(after)
    while left:
        ready = [n for n in left if not after[n] & set(left)]
        chosen = ready[0] if ready else left[0]
        done.append(chosen)
        left.remove(chosen)
    return done


def _run_after(spec: Any) -> list[str]:
    run_after = spec.get("runAfter") if isinstance(spec, dict) else None
    return [str(k) for k in run_after] if isinstance(run_after, dict) else []


def _scope(actions: Any, parent: str | None, branch: str | None, out: list[FlowAction]) -> None:
    if not isinstance(actions, dict):
        return
    for name in _ordered(actions):
        spec = actions[name] if isinstance(actions[name], dict) else {}
        kind = str(spec.get("type") or "").lower()
        out.append(FlowAction(name, kind, parent, branch))
        if kind == IF_TYPE:
            _scope(spec.get("actions"), name, "true", out)
            _scope(_inner(spec.get("else")), name, "false", out)
        elif kind == SWITCH_TYPE:
            cases: dict[str, Any] = spec["cases"] if isinstance(spec.get("cases"), dict) else {}
            for case in sorted(cases):
                value = cases[case].get("case") if isinstance(cases[case], dict) else None
                label = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else case
                _scope(_inner(cases[case]), name, label, out)
            _scope(_inner(spec.get("default")), name, "default", out)
        else:
            _scope(spec.get("actions"), name, None, out)


def _inner(block: Any) -> Any:
    return block.get("actions") if isinstance(block, dict) else None

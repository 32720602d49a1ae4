"""Item-by-item comparison: a legacy run's per-item sub-traces against the new code's child jobs.

A legacy run over many items (an n8n run whose nodes ran once per item, a fan-out) is recorded
with ``items`` (:class:`~harness.recording.ItemTrace`); the migrated code starts one child job
per item (``ctx.enqueue(..., key=...)``, or a shadow poller's ``ctx.start_new`` with key
``poll:<id>``). Each legacy item is paired with the child whose key matches (``poll:``
prefixes removed) and compared with the same rules and evidence as the parent trace; its
disagreements are named ``items[<key>].<field>``. A legacy item with no child is
``items[<key>]`` ``missing_in_new``, a child with no legacy item ``items[<key>]``
``extra_in_new``. The parent's own trace is compared without the steps that enqueue and wait
for its children (:func:`without_child_steps`). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from harness.shadow.accepted import Judgement
from harness.shadow.diff import Disagreement, diff_traces, generalise
from harness.shadow.normalize import READ_METHODS, Rules, align, reduce_legacy, reduce_new
from harness.recording import ItemTrace, LegacyTrace
from harness.shadow.cases import POLL_PREFIX, ChildRun


CHILD_STEPS = ("child:", "children:")  # ctx.enqueue's and ctx.wait_for_children's step names


def without_child_steps(trace: Mapping[str, Any]) -> dict[str, Any]:
    """Return a new run's trace without the steps that enqueue and wait for child jobs.

    Applied to the parent of a trace with items: the legacy run has no such steps (its items
    are compared with the children themselves), so they would be path mismatches.
    """
    path = [step for step in trace.get("path") or [] if not str(step).startswith(CHILD_STEPS)]
    return dict(trace, path=path)


def pairing_key(key: str) -> str:
    """Return the key a child job is paired on: each ``/`` segment without its ``poll:`` prefix."""
    return "/".join(part.removeprefix(POLL_PREFIX) for part in key.split("/"))


@dataclass
class ItemsCompared:
    """The outcome of comparing a trace's items: disagreements (in legacy item order, extra
    children last), the keys each came from, and the canonical traces of the items that differ."""

    disagreements: list[Disagreement] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # one per disagreement: the item it belongs to
    compared: list[str] = field(default_factory=list)  # every legacy item's key, in order
    extra: list[str] = field(default_factory=list)  # keys of children no legacy item has
    legacy: dict[str, Any] = field(default_factory=dict)  # key -> canonical trace, items that differ
    new: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # key -> the new run's error, children that failed

    def add(self, key: str, found: list[Disagreement], legacy: Any, new: Any) -> None:
        """Record item ``key``'s disagreements (none: it agrees) and, when it differs, its traces."""
        self.disagreements.extend(replace(d, path=f"items[{key}]" + (f".{d.path}" if d.path else "")) for d in found)
        self.keys.extend(key for _ in found)
        if found:
            self.legacy[key], self.new[key] = legacy, new


    def counts(self, judgements: Sequence[Judgement]) -> dict[str, int]:
        """Return how many legacy items were compared, how many agree (every difference of the
        item accepted, by ``judgements``, one per disagreement) and how many children were extra."""
        unexplained = {k for k, j in zip(self.keys, judgements, strict=True) if j.accepted_by is None}
        return {"compared": len(self.compared), "agreed": len(set(self.compared) - unexplained),
                "extra": len(self.extra)}


def _item_trace(parent: LegacyTrace, item: ItemTrace) -> LegacyTrace:
    return replace(parent, status=item.status, path=item.path, decisions=item.decisions, calls=item.calls,
                   outputs=item.outputs, error=item.error, failed_step=item.failed_step, items=[])


def _held(trace: dict[str, Any], evidence: Sequence[str]) -> dict[str, Any]:
    return {k: v for k, v in trace.items() if k in evidence or k == "status"}


def _writes(trace: Mapping[str, Any]) -> bool:
    return any(c.get("method") not in READ_METHODS for c in (trace.get("calls") or {}).values())


def compare_items(legacy: LegacyTrace, children: Sequence[ChildRun], rules: Rules) -> ItemsCompared:
    """Compare ``legacy.items`` with the child jobs of its replay (see the module docstring)."""
    evidence = [str(e) for e in legacy.evidence]
    by_key = {pairing_key(c.key): c for c in children}
    out = ItemsCompared()
    for item in legacy.items:
        out.compared.append(item.key)
        old = reduce_legacy(_item_trace(legacy, item), rules)
        child = by_key.pop(item.key, None)
        if child is None:
            held = _held(old, evidence)
            out.add(item.key, [Disagreement("", "missing_in_new", held, None, _writes(held))], held, None)
            continue
        new = reduce_new(child.trace or {"status": "failed", "error": child.error}, rules)
        if new["status"] == "failed":
            out.errors[item.key] = str((child.trace or {}).get("error") or child.error or "no error recorded")
        left, right = align(old, new, legacy.evidence)
        out.add(item.key, diff_traces(left, right, rules.coercion), left, right)
    for key, child in sorted(by_key.items()):
        held = _held(reduce_new(child.trace or {"status": "failed", "error": child.error}, rules), evidence)
        out.extra.append(key)
        out.add(key, [Disagreement("", "extra_in_new", None, held, _writes(held))], None, held)
    return out


def item_noise(first: Sequence[ChildRun], second: Sequence[ChildRun], rules: Rules) -> set[str]:
    """Return the generalised ``items[...]`` paths where two runs of one trigger's children differ."""
    from harness.shadow.noise import noisy_patterns

    again = {pairing_key(c.key): c for c in second}
    out: set[str] = set()
    for child in first:
        other = again.get(pairing_key(child.key))
        if other is None or child.trace is None or other.trace is None:
            continue
        found = noisy_patterns(reduce_new(child.trace, rules), reduce_new(other.trace, rules))
        out.update(generalise(f"items[{pairing_key(child.key)}].{p}") for p in found)
    return out

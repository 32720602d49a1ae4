"""What the rows say was compared beyond the fields: node outputs, and the runs left unfinished.

Read from the result rows (:func:`harness.shadow.outcome.result_lines`): ``nodes`` (the node
comparison of a trigger) and ``unfinished`` (the untranslated node its replay reached). Per
automation, :func:`node_coverage` unions the nodes compared, excluded (with the reason) and seen
on one side only over every trigger, and :func:`outputs_phrase` says it in one line:
``outputs of 7 of 9 nodes compared; 2 excluded: Webhook (the trigger: …), Wait (…)``. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.manifest import Manifest
from harness.shadow._nodes import TRIGGER_REASON

COMPARED_VERDICTS = ("agreed", "accepted", "disagreed", "unfinished")


def unfinished_counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Per automation: each untranslated node its replays reached, and how many triggers did."""
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        node = row.get("unfinished")
        if node is not None and row.get("verdict") == "unfinished":
            counts = out.setdefault(str(row["automation"]), {})
            counts[str(node)] = counts.get(str(node), 0) + 1
    return out


def node_coverage(rows: Sequence[Mapping[str, Any]], manifest: Manifest) -> dict[str, dict[str, Any]]:
    """Per automation whose rows compared node outputs: the nodes compared, excluded, one-sided."""
    seen: dict[str, dict[str, set[str]]] = {}
    for row in rows:
        nodes = row.get("nodes")
        if not isinstance(nodes, Mapping) or row.get("verdict") not in COMPARED_VERDICTS:
            continue
        entry = seen.setdefault(str(row["automation"]), {"compared": set(), "excluded": set(), "one_side": set()})
        for key in entry:
            entry[key].update(str(n) for n in nodes.get(key) or ())
    out: dict[str, dict[str, Any]] = {}
    for name, entry in sorted(seen.items()):
        reasons = manifest.automations[name].exclude_outputs if name in manifest.automations else {}
        excluded = {n: reasons.get(n, TRIGGER_REASON) for n in sorted(entry["excluded"])}
        compared = sorted(entry["compared"] - entry["excluded"])
        one_side = sorted(entry["one_side"] - entry["excluded"] - set(compared))
        out[name] = {"compared": compared, "excluded": excluded, "one_side": one_side,
                     "nodes": len(set(compared) | set(excluded) | set(one_side))}
    return out


def outputs_phrase(coverage: Mapping[str, Any] | None) -> str | None:
    """Say how many nodes' outputs were compared and which were excluded, why (None: no node outputs)."""
    if not coverage:
        return None
    compared, excluded, one_side = coverage["compared"], coverage["excluded"], coverage["one_side"]
    text = f"outputs of {len(compared)} of {coverage['nodes']} nodes compared"
    if excluded:
        text += f"; {len(excluded)} excluded: " + ", ".join(f"{n} ({why})" for n, why in excluded.items())
    if one_side:
        text += f"; {len(one_side)} ran on one side only: " + ", ".join(one_side[:6]) + (" …" if len(one_side) > 6 else "")
    return text

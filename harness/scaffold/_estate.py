"""The estate table: what scaffolding a directory of workflows produced, counted per workflow and in total.

Every node is counted once: translated (the trigger included), TODO, not reached (disabled, or
no path from the trigger) or a sticky note, so a workflow's four counts add up to its nodes. A
workflow is *whole* when nothing is left for a person (no TODO). ``table`` is what ``cutover
scaffold`` prints; ``estate_json`` is the same table for CI (``--json``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.scaffold import Written
    from harness.scaffold._module import Scaffold


def counts(s: Scaffold[Any]) -> str:
    """Return one scaffold's counts as the per-workflow line says them (the zero extras left out)."""
    text = f"{s.translated} {s.unit}s translated, {s.todo} TODO"
    if s.not_reached:
        text += f", {s.not_reached} not reached"
    if s.notes:
        text += f", {s.notes} sticky note{'s' if s.notes != 1 else ''}"
    return text


def proofs(s: Scaffold[Any]) -> dict[str, str]:
    """Return what proves each translated node: ``oracle``, ``pinned``, ``shadow`` (a call: the shadow run) or ``none``.

    An n8n node is ``oracle`` when the conformance suites prove its type and version against the real
    n8n (``harness.platforms.n8n.translate.prove.proof_of``). A tool with no runnable oracle (Make,
    Zapier, Power Automate are hosted) proves a module type by pinned cases of its documented
    behaviour (``Scaffold.proof``: ``pinned``); its other calls are ``shadow``, the rest ``none``.
    """
    nodes = getattr(s.workflow, "nodes", None)
    out: dict[str, str] = {}
    for row in s.rows:
        if row.status != "translated":
            continue
        step = s.steps.get(row.node) or ""
        version = getattr(nodes.get(row.node), "version", None) if isinstance(nodes, dict) else None
        if version is not None:
            from harness.platforms.n8n.translate.prove import proof_of

            out[row.node] = proof_of(row.type, version, step, nodes.get(row.node))
        else:
            out[row.node] = s.proof(row)
    return out


def _proof_counts(s: Scaffold[Any]) -> dict[str, int]:
    found = list(proofs(s).values())
    return {kind: found.count(kind) for kind in ("oracle", "pinned", "shadow", "none")}


def _totals(results: list[Written]) -> dict[str, int]:
    scaffolds = [w.scaffold for w in results]
    proved = [_proof_counts(s) for s in scaffolds]
    return {
        "workflows": len(scaffolds), "whole": sum(1 for s in scaffolds if s.whole),
        "translated": sum(s.translated for s in scaffolds), "todo": sum(s.todo for s in scaffolds),
        "not_reached": sum(s.not_reached for s in scaffolds), "notes": sum(s.notes for s in scaffolds),
        "nodes": sum(len(s.rows) for s in scaffolds),
        "missing_callees": len(missing_callees(results)),
        "proved_oracle": sum(p["oracle"] for p in proved), "proved_pinned": sum(p["pinned"] for p in proved),
        "proved_shadow": sum(p["shadow"] for p in proved),
        "not_proved": sum(p["none"] for p in proved),
    }


def missing_callees(results: list[Written]) -> dict[str, tuple[str, list[str]]]:
    """Return the automations the estate calls but does not hold: name -> (its workflow, the callers).

    A callee scaffolded in this estate after all (found by another of its callers) is not missing.
    """
    present = {w.scaffold.automation for w in results}
    out: dict[str, tuple[str, list[str]]] = {}
    for w in results:
        for name, workflow in getattr(w.scaffold, "missing", {}).items():
            if name not in present:
                out.setdefault(name, (workflow, []))[1].append(w.scaffold.automation)
    return out


def missing_lines(results: list[Written]) -> list[str]:
    """Return the estate's "missing sub-workflows" lines: each callee, its callers, how to export it."""
    missing = missing_callees(results)
    if not missing:
        return []
    lines = [f"  missing sub-workflows ({len(missing)}): called, not in this estate; the callers are not whole "
             "until they are scaffolded with it:"]
    for name, (workflow, callers) in sorted(missing.items()):
        if workflow.startswith(("http://", "https://")):
            how = f"download {workflow} into the estate directory"
        elif "/" in workflow or workflow.endswith(".json"):
            how = f"copy {workflow} into the estate directory"
        else:
            how = f"n8n export:workflow --id={workflow} --output=<estate>/{name}.json"
        lines.append(f"    {name} (n8n workflow {workflow}), called by {', '.join(sorted(set(callers)))}: {how}")
    return lines


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def table(results: list[Written], hint_template: str) -> list[str]:
    """Return the estate table's lines: a header, one row per workflow, then the totals line."""
    width = max([len(w.scaffold.automation) for w in results] + [10])
    lines = ["", "estate:", f"  {'automation':<{width}} {'trigger':<9} {'translated':>10} {'TODO':>5} "
             f"{'unreached':>9} {'notes':>5} {'whole':>5} {'proved':>6} {'shadow':>6}  import its executions"]
    for w in results:
        s = w.scaffold
        hint = hint_template.format(id=getattr(s.workflow, "id", None) or "<id>", name=s.automation,
                                    definition=getattr(s.workflow, "path", ""))
        p = _proof_counts(s)
        lines.append(f"  {s.automation:<{width}} {s.trigger_kind:<9} {s.translated:>10} {s.todo:>5} "
                     f"{s.not_reached:>9} {s.notes:>5} {'yes' if s.whole else 'no':>5} {p['oracle'] + p['pinned']:>6} "
                     f"{p['shadow']:>6}  {hint}")
    t = _totals(results)
    first = results[0].scaffold
    reachable = t["translated"] + t["todo"]
    lines.append(f"  {t['workflows']} {first.kind}s: {t['translated']} {first.unit}s translated, {t['todo']} TODO "
                 f"({_share(t['translated'], reachable)} of the {reachable} that run); {t['whole']} of "
                 f"{t['workflows']} {first.kind}s whole (no TODO); {t['not_reached']} not reached, "
                 f"{t['notes']} sticky notes")
    nodes = t["proved_oracle"] + t["proved_pinned"] + t["proved_shadow"] + t["not_proved"]
    if first.pinned_tool:
        tool = {"power_automate": "Power Automate"}.get(first.pinned_tool, first.pinned_tool.capitalize())
        by = (f"{t['proved_pinned']} proved by pinned conformance cases of {tool}'s documented "
              f"behaviour (tests/conformance/{first.pinned_tool}; column 'proved')")
    else:
        by = f"{t['proved_oracle']} proved by the real n8n's conformance suites (column 'proved')"
    lines.append(f"  proof of the {nodes} translated {first.unit}s (triggers apart): {by}, {t['proved_shadow']} calls "
                 f"whose proof is the shadow run (column 'shadow'), {t['not_proved']} not proved yet; {t['todo']} TODO")
    return lines + missing_lines(results)


def estate_json(results: list[Written]) -> str:
    """Return the estate table as JSON: per workflow its counts, file and nodes; then the totals."""
    rows = []
    for w in results:
        s = w.scaffold
        proved = proofs(s)
        rows.append({
            "automation": s.automation, "name": getattr(s.workflow, "name", s.automation),
            "definition": str(getattr(s.workflow, "path", "")), "module": str(w.path), "trigger": s.trigger_kind,
            "translated": s.translated, "todo": s.todo, "not_reached": s.not_reached, "notes": s.notes,
            "whole": s.whole, "missing": dict(getattr(s, "missing", {})), "proved": _proof_counts(s),
            "nodes": [{"node": r.node, "type": r.type, "status": r.status, "why": r.why, "proved": proved.get(r.node)}
                      for r in s.rows],
        })
    unit = results[0].scaffold.unit if results else "node"
    missing = [{"automation": name, "workflow": workflow, "callers": sorted(set(callers))}
               for name, (workflow, callers) in sorted(missing_callees(results).items())]
    return json.dumps({"unit": unit, "workflows": rows, "totals": _totals(results), "missing_callees": missing},
                      indent=2, ensure_ascii=False)

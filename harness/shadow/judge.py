"""The judge: a replayed trigger's trace against its legacy trace, reduced to a verdict.

Pure: values in, a :class:`~harness.shadow.outcome.TriggerOutcome` out, no file, database or
clock read (``today`` decides which accepted differences have expired). Both traces are
normalised with the automation's rules (:mod:`harness.shadow.normalize`), aligned on the
evidence the legacy export holds, diffed (:mod:`harness.shadow.diff`), a run over many items
compared item by item (:mod:`harness.shadow._items`), and every disagreement judged against the
accepted differences (:mod:`harness.shadow.accepted`). With the noise check the second run of
the trigger marks the fields that disagree with themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from harness.manifest import Coercion, Manifest
from harness.recording import Evidence, LegacyTrace, TraceStatus
from harness.shadow import _nodes
from harness.shadow import accepted as _accepted
from harness.shadow._error_class import ClassCompared, compare_classes
from harness.shadow._reads import decision_reads
from harness.shadow._items import compare_items, item_noise, without_child_steps
from harness.shadow.cases import Replayed
from harness.shadow.diff import diff_traces
from harness.shadow.index import TriggerRef
from harness.shadow.noise import noisy_patterns
from harness.shadow.normalize import Rules, align, branches, reduce_legacy, reduce_new
from harness.shadow.outcome import TriggerOutcome
from queue_core.provider import ProviderConfig


def rules_for(manifest: Manifest, automation: str, providers: Mapping[str, ProviderConfig]) -> Rules:
    """Return the normalisation rules of ``automation``: its manifest coercion, the providers' base URLs."""
    entry = manifest.automations.get(automation)
    coercion = entry.coercion if entry is not None else Coercion.STRICT
    return Rules(coercion, {name: cfg.base_url for name, cfg in providers.items()},
                 exclude_nodes=dict(entry.exclude_outputs) if entry is not None else {})


def judge(ref: TriggerRef, legacy: LegacyTrace, runs: Sequence[Replayed], rules: Rules,
          entries: Sequence[_accepted.Entry], today: date) -> TriggerOutcome:
    """Return the verdict on ``ref``: its replayed ``runs`` (two with the noise check) against ``legacy``."""
    first = runs[0]
    trace = first.trace or {"status": "failed", "error": first.error}
    if legacy.items:  # the enqueue and wait steps of the children compared item by item
        trace = without_child_steps(trace)
    legacy_norm, new_norm = align(reduce_legacy(legacy, rules), reduce_new(trace, rules), legacy.evidence)
    found = diff_traces(legacy_norm, new_norm, rules.coercion)
    nodes = _compare_nodes(legacy, trace, rules)
    found += nodes.disagreements if nodes is not None else []
    found += _failed_at(legacy, trace, new_norm["status"])
    error_class = _error_class(legacy, trace, new_norm["status"])
    found += error_class.disagreements() if error_class is not None else []
    own = len(found)
    items = compare_items(legacy, first.children, rules) if legacy.items else None
    found += items.disagreements if items is not None else []
    noisy: set[str] = set()
    if len(runs) > 1 and runs[1].trace is not None:
        again = without_child_steps(runs[1].trace) if legacy.items else runs[1].trace
        noisy = noisy_patterns(reduce_new(trace, rules), reduce_new(again, rules))
        noisy |= item_noise(first.children, runs[1].children, rules) if items is not None else set()
    judged = _accepted.judge(entries, ref.automation, found, str(legacy.status), legacy.error, today)
    if items is not None and found:  # the exemplar traces show the items that differ
        legacy_norm, new_norm = dict(legacy_norm, items=items.legacy), dict(new_norm, items=items.new)
    if nodes is not None and (nodes.legacy or nodes.new):  # ...and the nodes that differ
        legacy_norm, new_norm = dict(legacy_norm, nodes=nodes.legacy), dict(new_norm, nodes=nodes.new)
    compared = [str(e) for e in legacy.evidence]
    if str(Evidence.OUTPUTS) in compared and not (legacy_norm.get("outputs") or (nodes and nodes.compared)):
        compared.remove(str(Evidence.OUTPUTS))  # nothing output-like was compared: the verdict must not say so
    return TriggerOutcome(
        ref, "compared", legacy_status=str(legacy.status), new_status=new_norm["status"],
        error=trace.get("error") or (first.error if first.status != "succeeded" else None),
        exception=trace.get("exception"), disagreements=found, judgements=judged, noisy=noisy,
        legacy_branches=branches(legacy_norm, rules.coercion), new_branches=branches(new_norm, rules.coercion),
        legacy_trace=legacy_norm if found else None, new_trace=new_norm if found else None,
        legacy_error=legacy.error, evidence=tuple(compared),
        unfinished=_nodes.unfinished(trace.get("error")) if new_norm["status"] == "failed" else None,
        nodes=nodes.row() if nodes is not None else None,
        error_class=error_class.row() if error_class is not None else None,
        reads=decision_reads(trace.get("reads"), found) if found else {},
        items=items.counts(judged[own:]) if items is not None else None,
        children=0 if items is not None else len(first.children), item_errors=items.errors if items else {},
    )


def _compare_nodes(legacy: LegacyTrace, trace: Mapping[str, Any], rules: Rules) -> _nodes.NodesCompared | None:
    """Compare node outputs when both sides record them and the export holds outputs."""
    new = trace.get("nodes")
    if not legacy.nodes or not isinstance(new, dict) or not new or Evidence.OUTPUTS not in legacy.evidence:
        return None
    return _nodes.compare_nodes(legacy.nodes, new, rules.exclude_nodes, rules.coercion)


def _failed_at(legacy: LegacyTrace, trace: Mapping[str, Any], new_status: str) -> list[Any]:
    """Where two failed runs stopped, when both name the node."""
    if legacy.status is not TraceStatus.FAILED or new_status != "failed":
        return []
    known = set(legacy.nodes) | set(trace.get("nodes") or {}) | {legacy.failed_node}
    return _nodes.failure_disagreement(legacy.failed_node, _nodes.failed_node(trace.get("error"), known))


def _error_class(legacy: LegacyTrace, trace: Mapping[str, Any], new_status: str) -> ClassCompared | None:
    """Why two failed runs failed, in one vocabulary (harness.error_class); None unless both failed."""
    if legacy.status is not TraceStatus.FAILED or new_status != "failed":
        return None
    return compare_classes(legacy.error_class, trace.get("error"))

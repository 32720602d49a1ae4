"""The verdict on one trigger (:class:`TriggerOutcome`) and what its pytest item reads (:class:`ItemResult`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.shadow.accepted import Judgement
from harness.shadow.diff import Disagreement
from harness.shadow.gate import FULL_EVIDENCE
from harness.shadow.index import TriggerRef


@dataclass
class TriggerOutcome:
    """The verdict on one trigger, as its pytest item reports it."""

    ref: TriggerRef
    kind: str  # compared | unpaired | error
    legacy_status: str | None = None
    new_status: str | None = None
    error: str | None = None  # the new run's error, or why the trigger could not be replayed
    exception: str | None = None
    disagreements: list[Disagreement] = field(default_factory=list)
    judgements: list[Judgement] = field(default_factory=list)
    noisy: set[str] = field(default_factory=set)
    legacy_branches: list[str] = field(default_factory=list)
    new_branches: list[str] = field(default_factory=list)
    legacy_trace: dict[str, Any] | None = None
    new_trace: dict[str, Any] | None = None
    legacy_error: str | None = None
    evidence: tuple[str, ...] = FULL_EVIDENCE  # the fields the legacy trace holds (compared)
    items: dict[str, int] | None = None  # legacy items: compared, agreed, extra (children unmatched)
    children: int = 0  # jobs the new code started below the trigger's (not compared: no legacy items)
    item_errors: dict[str, str] = field(default_factory=dict)  # key -> error of a compared child that failed
    unfinished: str | None = None  # the untranslated node (a TODO) the new run reached: never agreement
    nodes: dict[str, Any] | None = None  # the node comparison: compared, excluded, one_side, differing
    error_class: dict[str, Any] | None = None  # both failed: legacy, new, compared (harness.shadow._error_class)
    reads: dict[str, dict[str, Any]] = field(default_factory=dict)  # disagreement path -> trigger fields its decision read
    definition_taken: list[int] | None = None  # the definition's branches the legacy trace took (harness.coverage.took)

    @property
    def unexplained(self) -> list[tuple[Disagreement, Judgement]]:
        """Return the disagreements no live accepted entry covers."""
        return [(d, j) for d, j in zip(self.disagreements, self.judgements, strict=True) if j.accepted_by is None]

    @property
    def failed(self) -> bool:
        return self.kind == "error" or self.unfinished is not None or bool(self.unexplained)

    @property
    def verdict(self) -> str:
        """Return ``agreed``, ``accepted``, ``disagreed``, ``unfinished``, ``unpaired`` or ``error``."""
        if self.kind != "compared":
            return self.kind
        if self.unfinished is not None:
            return "unfinished"
        if not self.disagreements:
            return "agreed"
        return "disagreed" if self.unexplained else "accepted"


@dataclass(frozen=True, slots=True)
class ItemResult:
    """A judged trigger as its pytest item uses it: ready-made failure text and result lines.

    Built where the trigger was replayed (see :meth:`~harness.shadow.batch.BatchReplayer.settle`), so the item only
    writes two strings and passes, skips or fails.
    """

    automation: str
    trigger_id: str
    kind: str  # compared | unpaired | error
    failure: str | None  # the item's failure text; None when it passes
    row: str  # its line of results-<process>.jsonl
    disagreements: str  # its lines of disagreements-<process>.jsonl ("" when none)


def result_lines(outcome: TriggerOutcome) -> tuple[str, str]:
    """Return the outcome's line of ``results-*.jsonl`` and its lines of ``disagreements-*.jsonl``."""
    ref = outcome.ref
    row: dict[str, Any] = {
        "automation": ref.automation, "trigger_id": ref.trigger_id, "seq": ref.seq,
        "verdict": outcome.verdict, "legacy_status": outcome.legacy_status, "new_status": outcome.new_status,
        "legacy_branches": outcome.legacy_branches, "new_branches": outcome.new_branches,
        "disagreements": len(outcome.disagreements),
        "accepted": sum(j.accepted_by is not None for j in outcome.judgements),
        "error": outcome.error, "exception": outcome.exception, "noisy": sorted(outcome.noisy),
        "legacy": outcome.legacy_trace, "new": outcome.new_trace,
    }
    if outcome.kind == "compared" and outcome.evidence != FULL_EVIDENCE:  # full depth stays implicit
        row["evidence"] = list(outcome.evidence)
    if outcome.unfinished is not None:
        row["unfinished"] = outcome.unfinished
    if outcome.nodes is not None:
        row["nodes"] = outcome.nodes
    if outcome.error_class is not None:  # only when both runs failed
        row["error_class"] = outcome.error_class
    if outcome.items is not None:  # both absent for a run over one item: rows as before
        row["items"] = outcome.items
    elif outcome.children:
        row["children"] = outcome.children
    if outcome.definition_taken is not None:  # the report's branch coverage, without re-reading the trace
        row["definition_taken"] = outcome.definition_taken
    lines = "".join(json.dumps({
        "automation": ref.automation, "trigger_id": ref.trigger_id, "seq": ref.seq,
        **d.as_dict(), "accepted_by": j.accepted_by, "expired_by": j.expired_by,
        "noisy": d.pattern in outcome.noisy, **({"reads": outcome.reads[d.path]} if d.path in outcome.reads else {}),
    }, sort_keys=True, default=str) + "\n" for d, j in zip(outcome.disagreements, outcome.judgements, strict=True))
    return json.dumps(row, sort_keys=True, default=str) + "\n", lines

"""Branch coverage from the workflow definition: every branch, and how many recorded runs took it.

A recording set proves only the branches its traffic took. The legacy definition knows all of
them. For an automation whose manifest entry names its ``definition`` (an n8n workflow file, a
Make scenario blueprint, a Zapier Zapfile), the tool's adapter lists every branch
(``harness.platforms.<tool>.branches``: IF/Switch/Filter/loop/error outputs, Router routes, error
handlers, If-else branches, Zap paths and filters), each with how a recorded trace shows it taken:
a decision the importer records (``decision = value``), a step in the path ("ran"), a step that
ran with none of the steps after it ("stopped"), or not at all ("unreadable", never counted as
taken). ``coverage`` counts the legacy traces that took each one. A branch no recorded trigger
took is untested: the report lists it, and ``[tool.cutover.gate] branch_coverage = "definition"``
makes it a NOT READY reason, as it does an unreadable branch and a definition whose branches
cannot be read at all (``DefinitionCoverage.problem``).

Pure: values in, values out (``definition_rows`` reads the definition file).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ExportFormatError
from harness.manifest import AutomationEntry, Coercion
from harness.platforms import adapter_for
from harness.platforms.adapter import Branch, BranchesUnreadable
from harness.recording import Evidence, LegacyTrace

# the trace field each way of reading a branch needs
_NEEDS = {"decision": Evidence.DECISIONS, "ran": Evidence.PATH, "stopped": Evidence.PATH}


@dataclass(frozen=True)
class BranchCount:
    """A branch and the number of legacy traces that took it (``None``: the recording cannot show it)."""

    branch: Branch
    taken: int | None


def _label(value: Any, coercion: Coercion | None) -> str:
    if coercion is None:
        return str(value)
    from harness.shadow.normalize import branch_value  # the report's own normalisation of a decision value

    return branch_value(value, coercion)


def _took(trace: LegacyTrace, branch: Branch, coercion: Coercion | None = None) -> bool:
    if branch.read == "ran":
        return any(step in trace.path for step in branch.steps)
    if branch.read == "stopped":
        return bool(branch.steps) and branch.steps[0] in trace.path and not any(s in trace.path for s in branch.steps[1:])
    if branch.read != "decision":
        return False
    value: Any = trace.decisions.get(branch.decision)
    wanted = _label(branch.value, coercion)
    if isinstance(value, list):
        return wanted in [_label(v, coercion) for v in value]
    return value is not None and _label(value, coercion) == wanted


def coverage(found: list[Branch], traces: Iterable[LegacyTrace], coercion: Coercion | None = None) -> list[BranchCount]:
    """Count, for each branch, the legacy traces that took it.

    An unreadable branch, or one read from a field some trace does not hold (a path-read branch
    of an export without paths), counts ``None``: not shown taken, and not shown untaken either.
    """
    return tally(found, [(took(found, trace, coercion), trace.evidence) for trace in traces])


def took(found: list[Branch], trace: LegacyTrace, coercion: Coercion | None = None) -> list[int]:
    """Return the positions in ``found`` of the branches ``trace`` took (what a shadow run keeps per trigger)."""
    return [i for i, branch in enumerate(found) if _took(trace, branch, coercion)]


def tally(found: list[Branch], traces: Iterable[tuple[Iterable[int], Iterable[str]]]) -> list[BranchCount]:
    """Count as :func:`coverage` does, from each trace's :func:`took` positions and its evidence fields."""
    counts = [0] * len(found)
    held = {str(e) for e in Evidence}
    for positions, evidence in traces:
        for i in positions:
            counts[i] += 1
        held &= {str(e) for e in evidence}
    out = []
    for i, b in enumerate(found):
        need = _NEEDS.get(b.read)
        out.append(BranchCount(b, counts[i] if need is not None and str(need) in held else None))
    return out


def definition_branches(definition: Path, entry: AutomationEntry) -> list[Branch]:
    """Read the entry's definition and return its branches, through the entry's tool.

    Raises BranchesUnreadable naming why when the tool has no branch reader, the file cannot be
    read, or a branching node in it cannot be.
    """
    reader = adapter_for(entry.platform).branches
    if reader is None:
        raise BranchesUnreadable(f"branch coverage does not read {entry.platform} definitions")
    try:
        return reader(definition, entry)
    except ExportFormatError as exc:
        raise BranchesUnreadable(str(exc)) from None


def untaken(counts: list[BranchCount]) -> list[Branch]:
    """Return the branches no recorded trigger took (not those the recording cannot show)."""
    return [c.branch for c in counts if c.taken == 0]


def branch_key(branch: Branch, coercion: Coercion) -> str:
    """How the report names a branch: ``decision=value`` for a recorded decision, else ``node → output``."""
    if branch.read == "decision":
        return f"{branch.decision}={_label(branch.value, coercion)}"
    return f"{branch.node} → {branch.output}"


@dataclass(frozen=True)
class DefinitionCoverage:
    """The report rows of a definition's branches, or why its branches cannot be read (``problem``)."""

    rows: list[dict[str, Any]]
    problem: str | None = None

    @property
    def untaken(self) -> tuple[str, ...]:
        return tuple(r["branch"] for r in self.rows if r["taken"] == 0)

    @property
    def unreadable(self) -> tuple[str, ...]:
        """The branches the recording cannot show, each with why (``Filter → kept (…)``)."""
        return tuple(f'{r["branch"]} ({r["note"]})' for r in self.rows if r["taken"] is None)


def definition_rows(definition: Path, entry: AutomationEntry, traces: Iterable[LegacyTrace] = (),
                    taken: Iterable[tuple[Iterable[int], Iterable[str]]] | None = None) -> DefinitionCoverage:
    """Return the report rows of a definition's branches, counted from the compared legacy ``traces``
    (or, when ``taken`` is given, from each trace's :func:`took` positions and evidence fields).

    A row: ``node``, ``kind``, ``output``, ``branch`` (its key), ``read`` (how a trace shows it),
    ``taken`` (``None``: the recording cannot show it) and ``note`` (why not).
    """
    try:
        found = definition_branches(definition, entry)
    except BranchesUnreadable as exc:
        return DefinitionCoverage([], str(exc))
    counted = coverage(found, traces, entry.coercion) if taken is None else tally(found, taken)
    rows = []
    for count in counted:
        b = count.branch
        note = b.note or ("" if count.taken is not None else "the recorded traces do not hold the "
                          + ("decisions" if b.read == "decision" else "path"))
        rows.append({"node": b.node, "kind": b.kind, "output": b.output, "branch": branch_key(b, entry.coercion),
                     "read": b.read, "taken": count.taken, "note": note})
    return DefinitionCoverage(rows)

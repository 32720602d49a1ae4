"""The go-live gate: is an automation's current code ready to act on live traffic?

Configured in pyproject.toml, with per-automation overrides::

    [tool.cutover.gate]
    min_triggers = 100            # compared triggers needed for a verdict at all
    agreement = 0.995             # share of compared triggers that must agree (accepted
                                  #   differences count as agreeing: they are explained)
    branch_min = 1                # each branch the legacy runs took must be taken at least this
                                  #   often by the new code
    max_side_effect_mismatches = 0   # triggers allowed with unexplained disagreements on
                                     #   calls that are not reads (POST, PUT, PATCH, DELETE)
    evidence = "decisions"        # the evidence depth the legacy traces must reach

    [tool.cutover.gate.automations.github-triage]
    agreement = 0.99

*Evidence depth* is what the legacy export could prove: the fields of a decision trace it holds
(:class:`~harness.recording.Evidence`). The levels are cumulative, in the order
``status → path → decisions → calls → outputs``: depth ``decisions`` means the traces hold
``status``, ``path`` and ``decisions``. An automation's evidence is the fields held by *every* one
of its compared traces (the weakest trace sets it: a READY never rests on a field some trigger
did not compare), and its depth is the deepest level whose fields are all held. The default
requirement is ``decisions``: agreement on statuses alone cannot tell a wrong route from a right
one, so a status-only export is NOT READY until ``evidence = "status"`` says that is enough; even
then the verdict names it (``READY (status only)``).

A run that reached code the scaffold did not translate (a TODO) is *unfinished*: it counts as
compared and never as agreeing, and any such trigger makes the automation NOT READY, naming the
node. A verdict is READY only when every rule holds and no accepted-difference entry of the automation
has expired; it names its reasons either way and the code version it applies to (the hash of
the automation module's source, ``Automation.source_hash``). :func:`judge` is pure but for the
optional ``min_mutation_score``, which reads the newest ``cutover shadow mutate`` measurement of
that code version (:mod:`harness.mutate.store`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from harness.errors import GateConfigError
from harness.recording import ALL_EVIDENCE, Evidence
from queue_core import config as qc_config
from queue_core.errors import ConfigKeyError

FULL_EVIDENCE: tuple[str, ...] = tuple(str(e) for e in ALL_EVIDENCE)


@dataclass(frozen=True)
class GateRules:
    """The thresholds one automation is held to."""

    min_triggers: int = 100
    agreement: float = 0.995
    branch_min: int = 1
    max_side_effect_mismatches: int = 0
    evidence: Evidence = Evidence.DECISIONS
    branch_coverage: str = "legacy"  # or "definition": every branch of the definition must be recorded
    min_mutation_score: float | None = None  # share of mutants the recordings kill (cutover shadow mutate)
    project_dir: str | None = field(default=None, compare=False)  # where min_mutation_score's measurements are


@dataclass(frozen=True)
class GateConfig:
    """Default rules and per-automation overrides."""

    default: GateRules = field(default_factory=GateRules)
    overrides: Mapping[str, GateRules] = field(default_factory=dict)

    def rules_for(self, automation: str) -> GateRules:
        """Return the rules for ``automation`` (its override, else the default)."""
        return self.overrides.get(automation, self.default)


@dataclass(frozen=True)
class AutomationStats:
    """What the replay measured for one automation, as the gate reads it.

    ``side_effect_mismatches`` counts triggers with an unexplained disagreement on a call that is
    not a read. ``branches`` maps each branch the legacy runs took (``route=bug``) to how many times the new
    code took it. ``expired_entries`` lists the labels of expired accepted-difference entries.
    ``evidence`` names the fields every compared legacy trace holds (empty when none was compared).
    ``untaken`` lists the branches of the legacy definition no recorded trigger took (``None``:
    the manifest names no definition); ``branches_countable`` is false when the export holds no
    decisions, so no branch can be shown taken (``untaken`` is then empty, and means nothing).
    ``unfinished`` counts, per untranslated node (a TODO), the triggers whose replay reached it.
    """

    automation: str
    compared: int
    agreed: int
    side_effect_mismatches: int
    branches: Mapping[str, int]
    expired_entries: tuple[str, ...] = ()
    evidence: tuple[str, ...] = FULL_EVIDENCE
    untaken: tuple[str, ...] | None = None
    branches_countable: bool = True
    definition_problem: str | None = None  # why the definition's branches cannot be read at all
    unreadable: tuple[str, ...] = ()  # branches of the definition the recording cannot show taken (with why)
    definition_total: int | None = None  # how many branches the definition has (None: not read)
    unfinished: Mapping[str, int] = field(default_factory=dict)  # untranslated node -> triggers that reached it
    accepted_entries: int | None = None  # accepted-difference entries naming the automation (None: not counted)

    @property
    def agreement(self) -> float:
        """Return the agreeing share of compared triggers (0.0 when none were compared)."""
        return self.agreed / self.compared if self.compared else 0.0


@dataclass(frozen=True)
class Verdict:
    """READY or NOT READY, why, for which code, and on what evidence (the fields compared)."""

    automation: str
    failed: tuple[str, ...]
    met: tuple[str, ...]
    code_version: str
    evidence: tuple[str, ...] = FULL_EVIDENCE
    neutral: tuple[str, ...] = ()  # checks that had nothing to check: neither met nor failed

    @property
    def ready(self) -> bool:
        """Return True when no rule failed."""
        return not self.failed

    @property
    def reasons(self) -> tuple[str, ...]:
        """Return the failed rules, then the rules met."""
        return self.failed + self.met

    @property
    def label(self) -> str:
        """Return READY, NOT READY, or READY naming the fields compared when they are not all five."""
        if not self.ready:
            return "NOT READY"
        if set(self.evidence) >= set(FULL_EVIDENCE):
            return "READY"
        return f"READY ({', '.join(_ordered(self.evidence))} only)"

    def as_dict(self) -> dict[str, Any]:
        """Return the verdict as JSON-ready data."""
        depth = evidence_depth(self.evidence)
        return {"automation": self.automation, "ready": self.ready, "label": self.label,
                "reasons": list(self.reasons), "failed": list(self.failed), "met": list(self.met),
                "code_version": self.code_version, "evidence": list(_ordered(self.evidence)),
                "depth": None if depth is None else str(depth), "compared": compared_phrase(self.evidence),
                "neutral": list(self.neutral)}


def _ordered(fields: Iterable[str]) -> list[str]:
    held = {str(f) for f in fields}
    return [str(e) for e in ALL_EVIDENCE if str(e) in held]


def evidence_depth(fields: Iterable[str]) -> Evidence | None:
    """Return the deepest cumulative level (status → path → decisions → calls → outputs) whose
    fields are all in ``fields``; None when ``status`` is not (nothing was compared)."""
    held = {str(f) for f in fields}
    depth: Evidence | None = None
    for level in ALL_EVIDENCE:
        if str(level) not in held:
            break
        depth = level
    return depth


def compared_phrase(fields: Iterable[str]) -> str:
    """Say what a comparison covered: ``compared: status, path — decisions, calls, outputs not
    compared`` (``status only`` for one field; ``nothing`` when no trace was compared). A field is
    not compared when the export does not hold it, or (outputs) when no output was on both sides."""
    held = _ordered(fields)
    if not held:
        return "compared: nothing (no trace was compared)"
    missing = [str(e) for e in ALL_EVIDENCE if str(e) not in held]
    text = "compared: " + ("status only" if held == ["status"] else ", ".join(held))
    return text + (f" — {', '.join(missing)} not compared" if missing else "")


def _evidence_reason(fields: tuple[str, ...], required: Evidence) -> tuple[bool, str]:
    depth = evidence_depth(fields)
    phrase = compared_phrase(fields)
    if depth is None:
        return False, f"no evidence depth: nothing was compared (the gate requires {required})"
    if ALL_EVIDENCE.index(depth) >= ALL_EVIDENCE.index(required):
        return True, f"evidence depth {depth} meets the required {required} ({phrase})"
    return False, f"evidence depth {depth} is below the required {required} ({phrase})"


def _rules(table: Mapping[str, Any], base: GateRules) -> GateRules:
    """Apply the keys of a checked table that GateRules holds (the schema may know more)."""
    names = {f.name for f in fields(GateRules)}
    changes: dict[str, Any] = {k: float(v) if k in ("agreement", "min_mutation_score") else Evidence(v) if k == "evidence" else v
                               for k, v in table.items() if k in names}
    return replace(base, **changes)


def parse_gate(table: Mapping[str, Any], path: str = "pyproject.toml") -> GateConfig:
    """Validate a ``[tool.cutover.gate]`` table; raise GateConfigError naming the file and field.

    The keys and their ranges are those of ``queue_core.config.SCHEMA`` (the one validator of
    ``[tool.cutover]``); this only builds the rules from a table that passed it.
    """
    from queue_core.config import SCHEMA, check_table

    try:
        check_table(table, SCHEMA.tables["gate"], "tool.cutover.gate", path)
    except ConfigKeyError as exc:
        raise GateConfigError(path, exc.field or "tool.cutover.gate", exc.reason) from None
    default = _rules(table, GateRules(project_dir=str(Path(path).resolve().parent)))
    per = table.get("automations", {})
    return GateConfig(default, {name: _rules(body, default) for name, body in per.items()})


def load_gate(pyproject: Path | None) -> GateConfig:
    """Read ``[tool.cutover.gate]`` from ``pyproject`` (defaults when absent) with queue_core's one
    ``[tool.cutover]`` reader: a file that is not valid TOML is its ConfigError (file and line)."""
    if pyproject is None or not pyproject.is_file():
        return GateConfig()
    return parse_gate(qc_config.read_table(pyproject, "gate"), str(pyproject))


def _definition_rule(stats: AutomationStats, check: Any, note: Any) -> None:
    """``branch_coverage = "definition"``: every branch of the legacy definition was recorded.

    A definition whose branches cannot be read, or a branch the recording cannot show, fails it;
    a definition with no branch at all is a neutral line (nothing was checked), never a pass.
    """
    if stats.definition_problem is not None:
        check(False, "", f"branch coverage is required from the definition, but its branches cannot be read: "
                         f"{stats.definition_problem}")
        return
    if stats.untaken is None:
        check(False, "", "branch coverage is required from the definition, but the manifest names no "
                         f"definition for {stats.automation!r} (definition = \"<file>\")")
        return
    if not stats.branches_countable:
        check(False, "", "branch coverage is required from the definition, but the export holds no decisions, "
                         "so no branch can be shown taken")
        return
    if stats.unreadable:
        check(False, "", f"{len(stats.unreadable)} branch(es) of the definition are not readable from the recording, "
                         "so none can be shown taken: " + "; ".join(stats.unreadable[:4])
                         + (" …" if len(stats.unreadable) > 4 else ""))
    if stats.definition_total == 0:
        note("no branches to check: the definition has no branching node")
        return
    untaken = stats.untaken
    if stats.unreadable and not untaken:
        return  # the readable ones were all taken, but the rule is not met: the unreadable failed it
    total = f"all {stats.definition_total}" if stats.definition_total is not None else "every"
    check(not untaken, f"{total} branch(es) of the definition were taken by a recorded trigger",
          f"{len(untaken)} branch(es) of the definition no recorded trigger took (untested): "
          + ", ".join(untaken[:6]) + (" …" if len(untaken) > 6 else ""))


def _branch_min_rule(stats: AutomationStats, rules: GateRules, check: Any, note: Any) -> None:
    """``branch_min``: each branch the legacy runs took was taken that often by the new code.

    With no legacy branch recorded there is nothing to count: a neutral line, not a pass.
    """
    if not stats.branches:
        note("no branches to check: the compared legacy runs recorded no branch decision "
             f"(branch_min = {rules.branch_min} counted nothing)")
        return
    thin = sorted(b for b, n in stats.branches.items() if n < rules.branch_min)
    check(not thin,
          f"all {len(stats.branches)} legacy branches exercised at least {rules.branch_min}×",
          f"{len(thin)} legacy branch(es) exercised fewer than {rules.branch_min}× by the new code: "
          + ", ".join(f"{b} ({stats.branches[b]}×)" for b in thin[:6]) + (" …" if len(thin) > 6 else ""))


def _mutation_rule(automation: str, code_version: str, rules: GateRules, check: Any) -> None:
    """``min_mutation_score``: the newest ``cutover shadow mutate`` measurement of this code version
    (in the project's reports; the one rule that reads a file) kills at least that share of mutants."""
    from harness.mutate.store import latest

    floor = rules.min_mutation_score or 0.0
    found = latest(Path(rules.project_dir or "."), automation, code_version)
    if found is None:
        check(False, "", f"no mutation measurement of code version {code_version} (the gate requires a mutation "
                         f"score of at least {_pct(floor)}; run cutover shadow mutate SET --automation {automation})")
        return
    score = float(found.get("score") or 0.0)
    measured = f"{found['killed']} of {found['mutants']} mutants killed by set {found.get('set')}"
    check(score >= floor, f"mutation score {_pct(score)} ≥ floor {_pct(floor)} ({measured})",
          f"mutation score {_pct(score)} is below the floor {_pct(floor)} ({measured}; {found['survived']} "
          "mutant(s) not pinned down by the recordings)")


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def judge(stats: AutomationStats, rules: GateRules, code_version: str) -> Verdict:
    """Return the verdict for ``stats`` under ``rules``: failed rules first, then the ones met."""
    failed: list[str] = []
    met: list[str] = []
    neutral: list[str] = []

    def check(ok: bool, good: str, bad: str) -> None:
        (met if ok else failed).append(good if ok else bad)

    check(stats.compared >= rules.min_triggers,
          f"{stats.compared} triggers compared (minimum {rules.min_triggers})",
          f"only {stats.compared} triggers compared; the gate needs at least {rules.min_triggers}")
    disagreeing = stats.compared - stats.agreed
    check(stats.compared > 0 and stats.agreement >= rules.agreement,
          f"agreement {_pct(stats.agreement)} ≥ floor {_pct(rules.agreement)}",
          f"agreement {_pct(stats.agreement)} is below the floor {_pct(rules.agreement)} "
          f"({disagreeing} of {stats.compared} triggers disagree unexplained)")
    _branch_min_rule(stats, rules, check, neutral.append)
    side = (f"{stats.side_effect_mismatches} trigger(s) with unexplained mismatches on side-effecting calls "
            f"(allowed {rules.max_side_effect_mismatches})")
    if stats.compared and str(Evidence.CALLS) not in stats.evidence:  # nothing to check: never "met"
        neutral.append("side-effecting calls not checked: the export holds no calls, so no call was compared "
                       f"(max_side_effect_mismatches = {rules.max_side_effect_mismatches} counted nothing)")
    else:
        check(stats.side_effect_mismatches <= rules.max_side_effect_mismatches, side, side)
    todo = sorted(stats.unfinished.items())
    check(not todo, "no replayed run reached code not translated yet",
          f"{sum(n for _, n in todo)} trigger(s) reached code not translated yet (TODO, never agreement): "
          + ", ".join(f"{node} ({n}×)" for node, n in todo[:6]) + (" …" if len(todo) > 6 else ""))
    if stats.accepted_entries == 0:  # no entry names the automation: none can have expired
        neutral.append("no accepted difference names this automation, so none can have expired")
    else:
        check(not stats.expired_entries, "no accepted difference has expired",
              f"{len(stats.expired_entries)} accepted difference(s) expired: " + "; ".join(stats.expired_entries))
    deep_enough, reason = _evidence_reason(stats.evidence, rules.evidence)
    check(deep_enough, reason, reason)
    if rules.branch_coverage == "definition":
        _definition_rule(stats, check, neutral.append)
    if rules.min_mutation_score is not None:
        _mutation_rule(stats.automation, code_version, rules, check)
    return Verdict(stats.automation, tuple(failed), tuple(met), code_version, tuple(_ordered(stats.evidence)),
                   tuple(neutral))

"""``cutover scaffold probe-triggers``: synthetic triggers for the branches no recorded trigger took.

For an automation whose manifest entry names its n8n ``definition``, ``make_probes`` lists the
definition's branches (``harness.coverage``), counts the legacy traces that took each, and for
every branch none took looks for a *probe*: a recorded trigger with a few fields changed so that
the definition's translated conditions (``oracle``) send items down that output. The
fields it may change are those the node's conditions — and the conditions of the branch nodes
before it — read from the trigger (``reads``). Every one-field, then two-field, change
to a candidate value (the conditions' constants and their neighbours, ``values``) is
tried first; then Hypothesis (``find``, seeded) draws any values for all of them at once and
shrinks to the fewest changed fields. A branch whose
conditions read only a response, a computed value or nothing of the trigger is reported as not
reachable by mutating the trigger, with the reason.

The same set, automation, count, seed and example budget give the same probes. Probes are
written to ``<set>/<automation>/synthetic/`` (``write_synthetic``): a ``triggers.jsonl`` in the
recording format and a ``probes.jsonl`` sidecar saying what each probe targets and changed. The
shadow run reads only ``<automation>/triggers.jsonl``, so a synthetic trigger never counts as
agreement.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

from harness.coverage import BranchCount, coverage
from harness.importer.definition import DefinitionKind
from harness.manifest import MANIFEST_FILE, AutomationEntry, load_manifest
from harness.recording import LegacyTrace, RecordedTrigger, iter_pairs
from harness.platforms.n8n.probe.oracle import Evaluation, Oracle
from harness.platforms.n8n.probe.reads import BRANCHING, Path, Read, ancestors, conditions, literals, node_reads
from harness.platforms.n8n.probe.values import KEEP, apply, candidates, mutation_strategy, read_path
from harness.scaffold._foreign import describe, foreign_kind, read_json
from harness.platforms.adapter import Branch
from harness.platforms.n8n.branches import branches
from harness.platforms.n8n.definition import Workflow, load_workflows
from harness.errors import ProbeError

SYNTHETIC_DIR = "synthetic"
PROBE_SOURCE = "probe:"


@dataclass(frozen=True)
class Change:
    """One field a probe changed: its path in the trigger, the recorded value and the new one."""

    path: Path
    old: Any
    new: Any


@dataclass(frozen=True)
class Probe:
    """A synthetic trigger made to take ``branch``: ``base`` with ``changes`` applied."""

    id: str
    branch: Branch
    base: RecordedTrigger
    trigger: RecordedTrigger
    changes: tuple[Change, ...]
    predicted: tuple[Branch, ...]  # every branch the translated conditions take on the probe


@dataclass(frozen=True)
class Unreached:
    """An untaken branch no probe was found for, and why."""

    branch: Branch
    reason: str


@dataclass(frozen=True)
class ProbeSet:
    """The outcome of ``make_probes``: the definition's branches, the probes, what stayed unreached."""

    automation: str
    definition: str
    seed: int
    counts: tuple[BranchCount, ...]
    probes: tuple[Probe, ...]
    unreached: tuple[Unreached, ...]
    skipped: tuple[Branch, ...] = ()  # untaken branches not searched: the probe count was reached
    legacy: dict[str, LegacyTrace] = field(default_factory=dict)  # base trigger id -> its trace

    @property
    def untaken(self) -> list[Branch]:
        """Return the branches no recorded trigger took."""
        return [c.branch for c in self.counts if c.taken == 0]


@dataclass(frozen=True)
class _Target:
    """What the search for one branch needs: the fields it may change and their constants."""

    branch: Branch
    output: int
    fields: tuple[Path, ...]
    constants: dict[Path, tuple[Any, ...]]  # per field: what the conditions reading it compare with
    blocked: tuple[str, ...]  # why some reads are not the trigger's


def _output_index(found: Sequence[Branch], branch: Branch) -> int:
    return [b for b in found if b.node == branch.node].index(branch)


def _target(workflow: Workflow, found: Sequence[Branch], branch: Branch) -> _Target:
    nodes = [branch.node] + [a for a in ancestors(workflow, branch.node) if workflow.nodes[a].short_type in BRANCHING]
    reads: list[Read] = [r for name in nodes for r in node_reads(workflow, workflow.nodes[name])]
    own = {r.expression for r in node_reads(workflow, workflow.nodes[branch.node])}
    fields = tuple(dict.fromkeys(r.path for r in reads if r.path is not None))
    if not any(r.path is not None for r in node_reads(workflow, workflow.nodes[branch.node])):
        fields = ()  # the node's own conditions read nothing of the trigger: changing upstream fields cannot help
    constants = _constants(workflow, nodes, fields)
    blocked = tuple(dict.fromkeys(f"{r.expression}: {r.why}" for r in reads if r.path is None and r.expression in own))
    return _Target(branch, _output_index(found, branch), fields, constants, blocked)


def _constants(workflow: Workflow, nodes: list[str], fields: tuple[Path, ...]) -> dict[Path, tuple[Any, ...]]:
    """Return, per field, the constants of the conditions that read it (else every constant)."""
    every: list[Any] = []
    own: dict[Path, list[Any]] = {f: [] for f in fields}
    for name in nodes:
        node = workflow.nodes[name]
        every += literals(node.parameters)
        for condition in conditions(node.parameters):
            found = literals(condition)
            for read in node_reads(workflow, node, condition):
                if read.path in own:
                    own[read.path] += found
    return {f: tuple(dict.fromkeys(own[f] or every)) for f in fields}


def _record_path(trigger: RecordedTrigger, path: Path) -> Path:
    """Return ``path`` for this trigger: a list body's item fields are those of its first element."""
    if path[0] == "body" and isinstance(trigger.body, list):
        return ("body", 0, *path[1:])
    return path


def _predicted(evaluation: Evaluation, found: Sequence[Branch]) -> tuple[Branch, ...]:
    return tuple(b for b in found if evaluation.took(b.node, _output_index(found, b)))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _search(oracle: Oracle, target: _Target, base: RecordedTrigger, rng: random.Random,
            examples: int) -> list[tuple[Path, Any]] | None:
    """Return the fewest (path, value) changes of ``base`` that take the target, or None.

    First every one-field change to a candidate value, in order, then every two-field one
    (cheap, and what a reviewer reads best); then Hypothesis over any values of every field at
    once, shrunk to the fewest fields and the simplest values.
    """
    paths = [_record_path(base, p) for p in target.fields]
    specs = [(p, list(target.constants[f]), read_path(base, p)) for p, f in zip(paths, target.fields, strict=True)]

    def takes(changes: list[tuple[Path, Any]]) -> bool:
        probe = apply(base, changes, id=base.id, source=base.source)
        return oracle.run(probe).took(target.branch.node, target.output)

    listed = _enumerated(specs, takes)
    if listed is not None:
        return listed
    found = _hypothesis(specs, takes, rng, examples)
    return None if found is None else _simplest(_one_minimal(found, takes), specs, takes)


PAIR_BUDGET = 20_000  # evaluations the two-field pass may spend (25 us each)


def _enumerated(specs: list[tuple[Path, list[Any], Any]], takes: Any) -> list[tuple[Path, Any]] | None:
    """Return the first one-field, then two-field, change to candidate values that takes the branch."""
    options = [[(path, v) for v in candidates(constants, current) if not _same(v, current)]
               for path, constants, current in specs]
    for choices in options:
        for change in choices:
            if takes([change]):
                return [change]
    spent = 0
    for i, first in enumerate(options):
        for second in options[i + 1:]:
            spent += len(first) * len(second)
            if spent > PAIR_BUDGET:
                return None
            for a in first:
                for b in second:
                    if takes([a, b]):
                        return [a, b]
    return None


def _hypothesis(specs: list[tuple[Path, list[Any], Any]], takes: Any, rng: random.Random,
                examples: int) -> list[tuple[Path, Any]] | None:
    """Run Hypothesis' ``find`` (seeded from ``rng``, no example database) over the fields' values."""
    from hypothesis import HealthCheck, Phase, Verbosity, find, settings
    from hypothesis.errors import NoSuchExample

    def changes_of(values: tuple[Any, ...]) -> list[tuple[Path, Any]]:
        return [(path, v) for (path, _, current), v in zip(specs, values, strict=True)
                if v is not KEEP and not _same(v, current)]

    config = settings(max_examples=examples, database=None, deadline=None, derandomize=False, print_blob=False,
                      verbosity=Verbosity.quiet, phases=(Phase.generate, Phase.shrink),
                      suppress_health_check=list(HealthCheck))
    try:
        values = find(mutation_strategy(specs), lambda v: bool(changes_of(v)) and takes(changes_of(v)),
                      settings=config, random=rng)
    except NoSuchExample:
        return None
    return changes_of(values)


def _simplest(changes: list[tuple[Path, Any]], specs: list[tuple[Path, list[Any], Any]],
              takes: Any) -> list[tuple[Path, Any]]:
    """Replace each changed value by the first candidate that still takes the branch."""
    listed = {path: candidates(constants, current) for path, constants, current in specs}
    current = {path: value for path, _, value in specs}
    out = list(changes)
    for index, (path, _) in enumerate(out):
        for value in listed[path]:
            trial = [*out[:index], (path, value), *out[index + 1:]]
            if not _same(value, current[path]) and takes(trial):
                out = trial
                break
    return out


def _one_minimal(changes: list[tuple[Path, Any]], takes: Any) -> list[tuple[Path, Any]]:
    """Drop every change the branch does not need (each remaining one is necessary)."""
    kept = list(changes)
    for change in list(kept):
        trial = [c for c in kept if c is not change]
        if trial and takes(trial):
            kept = trial
    return kept


MAX_BASES = 1_000  # recorded triggers considered as bases per branch (the first ones of the set)


def _bases(oracle: Oracle, node: str, triggers: Sequence[RecordedTrigger]) -> list[RecordedTrigger]:
    """Return the recorded triggers to mutate: those that reach ``node`` first, in file order."""
    pool = triggers[:MAX_BASES]
    reaching = [t for t in pool if node in oracle.run(t).selected]
    ids = {t.id for t in reaching}
    return reaching + [t for t in pool if t.id not in ids]


def _probe(oracle: Oracle, found: Sequence[Branch], target: _Target, base: RecordedTrigger, number: int,
           changes: list[tuple[Path, Any]]) -> Probe:
    source = f"{PROBE_SOURCE}{target.branch.node}/{target.branch.output}"
    trigger = apply(base, changes, id=f"probe-{number}", source=source)
    made = tuple(Change(p, read_path(base, p), v) for p, v in changes)
    predicted = _predicted(oracle.run(trigger, answers_for=base.id), found)
    return Probe(trigger.id, target.branch, base, trigger, made, predicted)


def _why_unreached(target: _Target, tried: int, examples: int) -> str:
    if not target.fields:
        why = "; ".join(target.blocked) or "its conditions read no field of the trigger"
        return f"not reachable by mutating the trigger: {why}"
    fields = ", ".join(".".join(str(k) for k in p) for p in target.fields)
    extra = f" (other reads: {'; '.join(target.blocked)})" if target.blocked else ""
    return (f"no change of {fields} in {tried} recorded trigger(s) x {examples} examples made the translated "
            f"conditions take it{extra}")


def make_probes(workflow: Workflow, entry: AutomationEntry, pairs: Iterable[tuple[RecordedTrigger, LegacyTrace | None]],
                *, count: int, seed: int = 0, examples: int = 300, tries: int = 3) -> ProbeSet:
    """Return up to ``count`` probes for the branches of ``workflow`` no legacy trace took.

    Probes are handed out one per untaken branch in definition order, then a second per branch
    (from another recorded trigger), and so on. Deterministic for the same inputs and ``seed``.
    Raises ProbeError when there is no recorded trigger to mutate.
    """
    pairs = list(pairs)
    triggers = [t for t, _ in pairs]
    if not triggers:
        raise ProbeError(f"automation {entry.name!r} has no recorded trigger to mutate")
    found = branches(workflow, entry)
    counts = coverage(found, [trace for _, trace in pairs if trace is not None])
    oracle = Oracle(workflow, {t.id: trace.outputs for t, trace in pairs if trace is not None})
    targets = [_target(workflow, found, c.branch) for c in counts if c.taken == 0]
    probes, unreached, skipped = _hand_out(oracle, found, targets, triggers, count, seed, examples, tries)
    bases = {p.base.id for p in probes}
    legacy = {t.id: trace for t, trace in pairs if trace is not None and t.id in bases}
    return ProbeSet(entry.name, entry.definition or workflow.path, seed, tuple(counts), tuple(probes),
                    tuple(unreached), tuple(skipped), legacy)


def _hand_out(oracle: Oracle, found: Sequence[Branch], targets: list[_Target], triggers: Sequence[RecordedTrigger],
              count: int, seed: int, examples: int, tries: int) -> tuple[list[Probe], list[Unreached], list[Branch]]:
    """Search round by round (one probe per branch per round) until ``count`` probes are made."""
    probes: list[Probe] = []
    unreached = [Unreached(t.branch, _why_unreached(t, 0, examples)) for t in targets if not t.fields]
    active = [t for t in targets if t.fields]
    queues = {t.branch: iter(_bases(oracle, t.branch.node, triggers)) for t in active}
    first = True
    while active and len(probes) < count:
        still = []
        for target in active:
            if len(probes) >= count:
                break
            made = _next_probe(oracle, found, target, queues[target.branch], len(probes) + 1, seed, examples,
                               tries if first else MAX_BASES)
            if made is not None:
                probes.append(made)
                still.append(target)
            elif first:
                unreached.append(Unreached(target.branch, _why_unreached(target, min(tries, len(triggers)), examples)))
        active, first = still, False
    tried = {p.branch for p in probes} | {u.branch for u in unreached}
    skipped = [t.branch for t in targets if t.branch not in tried]
    return probes, sorted(unreached, key=lambda u: found.index(u.branch)), skipped


def _next_probe(oracle: Oracle, found: Sequence[Branch], target: _Target, queue: Iterator[RecordedTrigger],
                number: int, seed: int, examples: int, tries: int) -> Probe | None:
    for _ in range(tries):
        base = next(queue, None)
        if base is None:
            return None
        if oracle.run(base).took(target.branch.node, target.output):
            return _probe(oracle, found, target, base, number, [])
        rng = random.Random(f"{seed}:{target.branch.node}:{target.branch.output}:{base.id}")
        changes = _search(oracle, target, base, rng, examples)
        if changes is not None:
            return _probe(oracle, found, target, base, number, changes)
    return None


def load_inputs(set_dir: FilePath, automation: str) -> tuple[Workflow, AutomationEntry,
                                                            list[tuple[RecordedTrigger, LegacyTrace | None]]]:
    """Read what probing ``automation`` of a set needs; raise ProbeError or RecordingError naming the fault."""
    manifest = load_manifest(set_dir / MANIFEST_FILE)
    entry = manifest.automations.get(automation)
    if entry is None:
        known = ", ".join(sorted(manifest.automations)) or "(none)"
        raise ProbeError(f"{set_dir / MANIFEST_FILE}: no automation {automation!r} (the set has: {known})")
    if not entry.definition:
        raise ProbeError(f"{set_dir / MANIFEST_FILE}: [automations.{automation}] names no definition "
                         f"(definition = \"<n8n workflow file, relative to the set>\")")
    _refuse_foreign(set_dir, automation, entry.definition)
    workflow = load_workflows(set_dir / entry.definition)[0]
    return workflow, entry, list(iter_pairs(set_dir / automation))


def _refuse_foreign(set_dir: FilePath, automation: str, definition: str) -> None:
    """Raise ProbeError when the entry's definition is another platform's (probe reads n8n only)."""
    file = set_dir / definition
    kind = foreign_kind(read_json(file), DefinitionKind.N8N_WORKFLOW) if file.is_file() else None
    if kind is not None:
        raise ProbeError(f"{set_dir / MANIFEST_FILE}: [automations.{automation}] definition = {definition!r} is "
                         f"{describe(kind)}; probe-triggers reads n8n definitions only")

"""Measure how much of an automation's code its recordings pin down: ``cutover shadow mutate``.

1. **Baseline.** Every recorded trigger of the automation is replayed once against the code as
   it is, through the shadow run's own pieces (:class:`~harness.shadow.batch.BatchReplayer`:
   the queue, the recorded responses, the judge), with :class:`~harness.mutate.lines.LineRecorder`
   noting which lines of the automation's module each trigger's run executed. Only triggers
   that agree (or differ only as accepted) here can tell a mutant apart: one that already
   disagrees would "kill" every mutant.
2. **Mutants.** Each mutant (:mod:`harness.mutate.mutator`) is loaded as a module object under
   a registry of its own (:mod:`harness.mutate.load`) and the agreeing triggers whose runs
   reached its line are replayed against it, a few first and then more, stopping at the first
   that disagrees with the legacy run or errors: the mutant is *killed*. A mutant of
   module-level code (run at import: a constant table, say) is replayed against every agreeing
   trigger whose run executed any line of the module. A mutant no such trigger disagrees with
   *survived*: that change is "not pinned down by the recordings". A mutant no agreeing
   trigger reaches survives without a replay.

The score is killed / mutants. A mutant that behaves exactly like the original (an equivalent
mutant, e.g. a changed default nobody reads) survives too: a survivor is a place to look, not
proof of a gap. A mutant whose code never ends (a negated ``while`` condition, a step that jumps
past its stop) is stopped by a deadline its loops check (:mod:`harness.mutate.deadline`): each
replay of a chunk may take ``max(timeout, 20 × the baseline's seconds per trigger × the chunk's
triggers)``; a run still looping then fails, and the mutant is *killed by timeout*, counted and
reported as such.
"""

from __future__ import annotations

import inspect
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, MutantTimeout
from harness.mutate.deadline import NAME as DEADLINE, Deadline, guard_loops
from harness.mutate.lines import LineRecorder
from harness.mutate.load import SwappableRegistry, load_mutant
from harness.mutate.mutator import Mutant, mutants, mutated_tree
from harness.shadow import accepted as _accepted
from harness.shadow.batch import BatchReplayer
from harness.shadow.index import SetIndex, TriggerRef
from harness.shadow.outcome import ItemResult
from harness.shadow.settings import ShadowSettings

FIRST_CHUNK = 8  # triggers replayed against a mutant first; each later chunk is four times larger
BATCH = 1000  # triggers per replay call in the baseline
TIMEOUT_S = 10.0  # the least a chunk's replay against a mutant may take before its loops are stopped
SLOWDOWN = 20.0  # ...or this many times the baseline's time for as many triggers, if longer
TIMED_OUT = "MutantTimeout"  # the class name a run stopped by the deadline fails with


class _Replayer(BatchReplayer):
    """A batch replayer over a registry the measurement owns (not the discovered default)."""

    def __init__(self, settings: ShadowSettings, index: SetIndex, entries: list[_accepted.Entry],
                 accepted_path: Path | None, registry: SwappableRegistry, db_url: str) -> None:
        super().__init__(settings, index, entries, accepted_path, db_url=db_url)
        self._own = registry

    @property
    def registry(self) -> Any:
        return self._own


@dataclass
class MutantResult:
    """What became of one mutant."""

    mutant: Mutant
    status: str  # killed | survived
    reached: int  # agreeing triggers whose runs reached the changed line
    replayed: int  # of those, how many were replayed before the verdict
    killed_by: str | None = None  # the trigger id that told the mutant apart
    reason: str = ""
    timeout: bool = False  # killed by timeout: the run of ``killed_by`` never ended (an endless loop)

    def as_dict(self) -> dict[str, Any]:
        return {**self.mutant.as_dict(), "status": self.status, "reached": self.reached, "replayed": self.replayed,
                "killed_by": self.killed_by, "reason": self.reason, "timeout": self.timeout}


def _first_line(text: str | None) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return (lines[0] if lines else "disagreed")[:200]


class Measurement:
    """One automation of one set, measured (see the module docstring). Use as a context manager."""

    def __init__(self, set_dir: Path, automation: str, *, project_root: Path | None = None,
                 progress: Callable[[str], None] = lambda line: None, timeout_s: float = TIMEOUT_S) -> None:
        from harness.shadow.project import load_project
        from queue_core import discover

        self.progress = progress
        self.timeout_s = timeout_s
        self.per_trigger_s = 0.0  # the baseline's seconds per trigger (set by baseline())
        self.project = load_project((project_root or Path.cwd()).resolve())
        root = self.project.root
        self.set_dir = set_dir.resolve()
        if not (self.set_dir / "manifest.toml").is_file():
            raise HarnessError(f"{set_dir}: not a recording set (no manifest.toml in {self.set_dir})")
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        found = discover(self.project.settings.automations)
        if automation not in found:
            raise HarnessError(f"automation {automation!r} is not registered in module "
                               f"{self.project.settings.automations!r}; registered: {', '.join(found.names()) or '(none)'}")
        self.automation = found.get(automation)
        module = inspect.getmodule(self.automation.fn)
        assert module is not None
        self.module_name = module.__name__
        self.filename = inspect.getsourcefile(module) or ""
        self.source = inspect.getsource(module)  # the text Automation.source_hash hashes
        self.index = SetIndex.build(self.set_dir)
        if automation not in self.index.automations:
            raise HarnessError(f"{set_dir}: no recorded triggers of {automation!r} "
                               f"(the set holds {', '.join(sorted(self.index.automations)) or 'none'})")
        self.refs = [r for r in self.index.automations[automation].refs if r.paired]
        self.accepted_path = _accepted.find(self.set_dir, root, None)
        self.entries = _accepted.load(self.accepted_path) if self.accepted_path else []
        self.registry = SwappableRegistry(found.automations())
        self._results = Path(tempfile.mkdtemp(prefix="cutover-mutate-"))
        self._db: str | None = None
        self._replayer: _Replayer | None = None

    # -- the replay -------------------------------------------------------------------------

    def _settings(self) -> ShadowSettings:
        return ShadowSettings(set_dir=self.set_dir, project_root=self.project.root,
                              automations_module=self.project.settings.automations, results_dir=self._results,
                              process_id="mutate", providers=self.project.providers, replayers=0)

    def _open(self) -> _Replayer:
        from queue_core import provision

        if self._replayer is None:
            if self._db is None:
                self._db = provision.fresh_database("cutover_mutate")
            self._replayer = _Replayer(self._settings(), self.index, self.entries, self.accepted_path,
                                       self.registry, self._db)
        return self._replayer

    def _reset(self) -> None:
        """Start again on a new database (after a replay error: its jobs may still be there)."""
        from queue_core import provision

        if self._replayer is not None:
            self._replayer.close()
            self._replayer = None
        if self._db is not None:
            provision.drop_database(self._db)
            self._db = None

    def replay(self, refs: Sequence[TriggerRef]) -> list[ItemResult]:
        """Replay and judge ``refs`` against the registry as it is now swapped."""
        results = self._open().replay_batch(list(refs))
        if any(r.kind == "error" for r in results):
            self._reset()
        return results

    def close(self) -> None:
        import shutil

        self._reset()
        shutil.rmtree(self._results, ignore_errors=True)

    def __enter__(self) -> Measurement:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the measurement --------------------------------------------------------------------

    def baseline(self) -> tuple[list[TriggerRef], dict[str, set[int]]]:
        """Replay every trigger against the code as it is; return the agreeing ones and each one's lines."""
        recorder = LineRecorder(self.filename, self.automation.fn.__code__, [r.trigger_id for r in self.refs])
        agreeing: list[TriggerRef] = []
        started = time.monotonic()
        for start in range(0, len(self.refs), BATCH):
            chunk = self.refs[start:start + BATCH]
            with recorder:
                results = self.replay(chunk)
            agreeing += [ref for ref, r in zip(chunk, results, strict=True) if r.kind == "compared" and r.failure is None]
            self.progress(f"baseline: {start + len(chunk)}/{len(self.refs)} triggers replayed")
        self.per_trigger_s = (time.monotonic() - started) / max(1, len(self.refs))
        return agreeing, recorder.hits

    def chunk_timeout(self, triggers: int) -> float:
        """Return how long a replay of ``triggers`` triggers against a mutant may run before its loops stop."""
        return max(self.timeout_s, SLOWDOWN * self.per_trigger_s * triggers)

    def judge_mutant(self, mutant: Mutant, reaching: list[TriggerRef]) -> MutantResult:
        """Replay ``reaching`` against ``mutant`` until one tells it apart."""
        deadline = Deadline()
        try:
            tree = guard_loops(mutated_tree(self.source, mutant.number, self.filename))
            code = compile(tree, self.filename, "exec", dont_inherit=True)
            with deadline.armed(self.timeout_s):  # module-level code runs now: a loop there may not end either
                loaded = load_mutant(code, self.module_name, self.filename, {DEADLINE: deadline})
        except Exception as exc:  # noqa: BLE001 - a module that cannot load is told apart by every trigger
            return MutantResult(mutant, "killed", len(reaching), 0, None,
                                f"the mutated module fails to load: {type(exc).__name__}: {exc}",
                                timeout=isinstance(exc, MutantTimeout))
        if not reaching:
            return MutantResult(mutant, "survived", 0, 0, None, "no agreeing recorded trigger reaches this line")
        replayed, size = 0, FIRST_CHUNK
        with self.registry.swapped(loaded):
            while replayed < len(reaching):
                chunk = reaching[replayed:replayed + size]
                limit = self.chunk_timeout(len(chunk))
                with deadline.armed(limit):
                    results = self.replay(chunk)
                replayed += len(chunk)
                failing = [(ref, r) for ref, r in zip(chunk, results, strict=True) if r.failure is not None]
                # a run stopped by the deadline decides first: it is why the others may have failed too
                failing.sort(key=lambda pair: TIMED_OUT not in (pair[1].failure or ""))
                for ref, result in failing[:1]:
                    if TIMED_OUT in (result.failure or "") and deadline.fired:
                        return MutantResult(mutant, "killed", len(reaching), replayed, ref.trigger_id,
                                            f"killed by timeout: its run did not end within {limit:g} s "
                                            "(an endless loop)", timeout=True)
                    return MutantResult(mutant, "killed", len(reaching), replayed, ref.trigger_id,
                                        _first_line(result.failure))
                size *= 4
        where = (f"reaching line {mutant.line}" if mutant.in_function
                 else "that ran the module (this line runs at import)")
        return MutantResult(mutant, "survived", len(reaching), replayed, None,
                            f"all {len(reaching)} agreeing trigger(s) {where} still agree")

    def run(self) -> dict[str, Any]:
        """Measure: the baseline, then every mutant; return the content of ``mutation.json``."""
        started = time.monotonic()
        found = mutants(self.source, self.filename)
        self.progress(f"{self.automation.name}: {len(found)} mutants of {self.shown(Path(self.filename))}, "
                      f"{len(self.refs)} recorded triggers")
        agreeing, hits = self.baseline()
        baseline_s = time.monotonic() - started
        module_reach = [r for r in agreeing if hits.get(r.trigger_id)]
        results: list[MutantResult] = []
        for i, mutant in enumerate(found, 1):
            reaching = ([r for r in agreeing if hits.get(r.trigger_id, set()) & mutant.lines]
                        if mutant.in_function else module_reach)
            result = self.judge_mutant(mutant, reaching)
            results.append(result)
            self.progress(f"[{i}/{len(found)}] line {mutant.line} {mutant.kind}: {mutant.before} → {mutant.after}: "
                          f"{result.status}" + (f" by {result.killed_by}" if result.killed_by else "")
                          + (" (timeout)" if result.timeout else "") + f" ({result.replayed} of {result.reached} replayed)")
        killed = sum(r.status == "killed" for r in results)
        timed_out = sum(r.timeout for r in results)
        return {
            "automation": self.automation.name, "code_version": self.automation.source_hash,
            "module": self.shown(Path(self.filename)), "set": self.index.name,
            "set_path": self.shown(self.set_dir),
            "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(time.monotonic() - started, 1), "baseline_seconds": round(baseline_s, 1),
            "triggers": len(self.refs), "agreeing": len(agreeing), "reaching_module": len(module_reach),
            "mutants": len(found), "killed": killed, "killed_by_timeout": timed_out, "survived": len(found) - killed,
            "score": round(killed / len(found), 4) if found else None,
            "by_kind": _by_kind(results),
            "results": [r.as_dict() for r in results],
        }

    def shown(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.project.root.resolve()))
        except ValueError:
            return str(path)


def _by_kind(results: Sequence[MutantResult]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in results:
        counts = out.setdefault(r.mutant.kind, {"mutants": 0, "killed": 0})
        counts["mutants"] += 1
        counts["killed"] += r.status == "killed"
    return out

"""The shadow run behind the pytest plugin: index a set, replay it in batches, judge each trigger.

Kept free of pytest so the plugin stays a thin layer of hooks. One :class:`ShadowRun` lives in
each pytest process (the controller and every xdist worker):

* collection builds a :class:`SetIndex`: per automation, each trigger's id and the byte offsets
  of its ``triggers.jsonl`` and ``legacy.jsonl`` lines, so items hold a few integers and a batch
  re-reads only its own lines (a 100,000-trigger set is never in memory at once);
* the selected triggers are replayed ``batch_size`` at a time through the queue
  (:mod:`harness.shadow.replay`), normalised and diffed against their legacy traces, and judged against
  the accepted differences; each item reads its :class:`ItemResult`. By default the batches
  are replayed in child processes (:mod:`harness.shadow._replay_processes`) a batch or two ahead of the items,
  so pytest's per-item work and the replay run on different cores; ``replayers=0`` replays in
  this process when the first item of a batch runs;
* every item that runs appends one row to ``results-<process>.jsonl`` (and its disagreements to
  ``disagreements-<process>.jsonl``) in a directory shared with the controller, which reads them
  all at the end to write the reports and the gate verdict (:mod:`harness.shadow.report`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any

from harness.shadow import accepted as _accepted
from harness.shadow._items import compare_items, item_noise, without_child_steps
from harness.shadow._mismatch import describe
from harness.shadow.diff import Disagreement, diff_traces
from harness.errors import RecordingError, ReplayError
from harness.shadow.gate import FULL_EVIDENCE
from harness.manifest import MANIFEST_FILE, Coercion, Manifest, load_manifest
from harness.shadow.normalize import Rules, align, branches, reduce_legacy, reduce_new
from harness.recording import LEGACY_FILE, TRIGGERS_FILE, LegacyTrace, RecordedTrigger, trace_from_json, trigger_from_json
from harness.shadow.replay import Case, Replayed, ReplayOptions, ReplaySession, shadow_providers

RAMP_START = 100  # the first batch handed to replay processes; later ones double up to batch_size
RESULTS_PREFIX = "results-"
DISAGREEMENTS_PREFIX = "disagreements-"


@dataclass(frozen=True, slots=True)
class TriggerRef:
    """Where one trigger and its legacy trace live in the set's files (``seq`` = line order)."""

    automation: str
    trigger_id: str
    seq: int
    offset: int
    line: int
    legacy_offset: int
    legacy_line: int

    @property
    def paired(self) -> bool:
        return self.legacy_offset >= 0


@dataclass
class AutomationIndex:
    """One automation directory of a set: its triggers in file order and their arrival span."""

    name: str
    directory: Path
    refs: list[TriggerRef] = field(default_factory=list)
    first_received: str | None = None
    last_received: str | None = None


@dataclass
class SetIndex:
    """A recording set, indexed for collection and batched loading."""

    directory: Path
    manifest: Manifest
    automations: dict[str, AutomationIndex]
    providers: set[str]

    @property
    def name(self) -> str:
        return self.manifest.name

    @classmethod
    def build(cls, directory: Path) -> SetIndex:
        """Index every automation directory of the set; raise RecordingError on malformed lines."""
        manifest = load_manifest(directory / MANIFEST_FILE)
        providers = {p for entry in manifest.automations.values() for p in entry.providers.values()}
        names = sorted(set(manifest.automations) | {p.name for p in directory.iterdir()
                                                    if (p / TRIGGERS_FILE).is_file()})
        autos = {}
        for name in names:
            if (directory / name / TRIGGERS_FILE).is_file():
                autos[name] = _index_automation(name, directory / name, providers)
        return cls(directory, manifest, autos, providers)

    def shell(self) -> SetIndex:
        """Return this index without its trigger references (what a replay process needs)."""
        autos = {name: AutomationIndex(name, a.directory, [], a.first_received, a.last_received)
                 for name, a in self.automations.items()}
        return SetIndex(self.directory, self.manifest, autos, set(self.providers))

    def load(self, refs: Sequence[TriggerRef]) -> list[tuple[TriggerRef, RecordedTrigger, LegacyTrace | None]]:
        """Read and validate the triggers and legacy traces of ``refs`` from their files."""
        out = []
        handles: dict[Path, IO[bytes]] = {}
        try:
            for ref in refs:
                auto = self.automations[ref.automation]
                trigger = trigger_from_json(_read_at(handles, auto.directory / TRIGGERS_FILE, ref.offset),
                                            str(auto.directory / TRIGGERS_FILE), ref.line)
                legacy = None
                if ref.paired:
                    legacy = trace_from_json(_read_at(handles, auto.directory / LEGACY_FILE, ref.legacy_offset),
                                             str(auto.directory / LEGACY_FILE), ref.legacy_line)
                out.append((ref, trigger, legacy))
        finally:
            for handle in handles.values():
                handle.close()
        return out


def _read_at(handles: dict[Path, IO[bytes]], path: Path, offset: int) -> dict[str, Any]:
    handle = handles.get(path)
    if handle is None:
        handle = handles[path] = path.open("rb")
    handle.seek(offset)
    value: dict[str, Any] = json.loads(handle.readline())
    return value


def _lines(path: Path) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Yield (offset, line number, object) for each non-blank JSONL line, with located errors."""
    if not path.exists():
        return
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            start, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                raise RecordingError(str(path), number, None, f"not valid JSON ({exc})") from None
            if not isinstance(value, dict):
                raise RecordingError(str(path), number, None, "expected an object")
            yield start, number, value


def _call_providers(trace: dict[str, Any]) -> set[str]:
    """The providers a legacy trace's calls name, its items' calls included (unvalidated input)."""
    items = [i for i in trace.get("items") or [] if isinstance(i, dict)]
    calls = [c for t in (trace, *items) for c in t.get("calls") or [] if isinstance(c, dict)]
    return {c["provider"] for c in calls if isinstance(c.get("provider"), str)}


def _index_automation(name: str, directory: Path, providers: set[str]) -> AutomationIndex:
    index = AutomationIndex(name, directory)
    legacy = _lines(directory / LEGACY_FILE)
    pending = next(legacy, None)
    seen: set[str] = set()
    for seq, (offset, number, obj) in enumerate(_lines(directory / TRIGGERS_FILE)):
        trigger_id = obj.get("id")
        if not isinstance(trigger_id, str) or not trigger_id:
            raise RecordingError(str(directory / TRIGGERS_FILE), number, "id", "expected a non-empty string")
        if trigger_id in seen:
            raise RecordingError(str(directory / TRIGGERS_FILE), number, "id", f"duplicate trigger id {trigger_id!r}")
        seen.add(trigger_id)
        received = obj.get("received_at")
        index.first_received = index.first_received or (received if isinstance(received, str) else None)
        index.last_received = received if isinstance(received, str) else index.last_received
        l_offset = l_line = -1
        if pending is not None and pending[2].get("trigger_id") == trigger_id:
            l_offset, l_line = pending[0], pending[1]
            providers.update(_call_providers(pending[2]))
            pending = next(legacy, None)
        index.refs.append(TriggerRef(name, trigger_id, seq, offset, number, l_offset, l_line))
    if pending is not None:
        raise RecordingError(str(directory / LEGACY_FILE), pending[1], "trigger_id",
                             f"no trigger {pending[2].get('trigger_id')!r} at or after this position in "
                             f"{TRIGGERS_FILE} (legacy traces must follow the order of their triggers)")
    return index


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
    judgements: list[_accepted.Judgement] = field(default_factory=list)
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

    @property
    def unexplained(self) -> list[tuple[Disagreement, _accepted.Judgement]]:
        """Return the disagreements no live accepted entry covers."""
        return [(d, j) for d, j in zip(self.disagreements, self.judgements, strict=True) if j.accepted_by is None]

    @property
    def failed(self) -> bool:
        return self.kind == "error" or bool(self.unexplained)

    @property
    def verdict(self) -> str:
        """Return ``agreed``, ``accepted``, ``disagreed``, ``unpaired`` or ``error``."""
        if self.kind != "compared":
            return self.kind
        if not self.disagreements:
            return "agreed"
        return "disagreed" if self.unexplained else "accepted"


@dataclass(frozen=True, slots=True)
class ItemResult:
    """A judged trigger as its pytest item uses it: ready-made failure text and result lines.

    Built where the trigger was replayed (see :meth:`ShadowRun.settle`), so the item only
    writes two strings and passes, skips or fails.
    """

    automation: str
    trigger_id: str
    kind: str  # compared | unpaired | error
    failure: str | None  # the item's failure text; None when it passes
    row: str  # its line of results-<process>.jsonl
    disagreements: str  # its lines of disagreements-<process>.jsonl ("" when none)


@dataclass(frozen=True)
class ShadowSettings:
    """What the plugin's options and the project configure for a shadow run."""

    set_dir: Path
    project_root: Path
    automations_module: str
    results_dir: Path
    process_id: str
    mode: str = "shadow"
    seed: int = 0
    noise: bool = False
    accepted_file: Path | None = None
    today: date = field(default_factory=lambda: datetime.now().astimezone().date())
    batch_size: int = 1000
    workers: int = 2
    concurrency: int = 32
    providers: dict[str, Any] = field(default_factory=dict)
    replayers: int = 1  # child processes replaying ahead of the items; 0: replay in this process
    ahead: int = 2  # batches each replay process may be given before their items have run


class ShadowRun:
    """One process's share of a shadow run (see the module docstring)."""

    def __init__(self, settings: ShadowSettings) -> None:
        self.settings = settings
        self.index: SetIndex | None = None
        self.entries: list[_accepted.Entry] = []
        self.accepted_path: Path | None = None
        self._registry: Any = None
        self._session: ReplaySession | None = None
        self._failure: str | None = None
        self._outcomes: dict[tuple[str, str], ItemResult] = {}
        self._files: dict[str, IO[str]] = {}
        self.queue: list[TriggerRef] = []
        self.db_url: str | None = None  # the replay database (a replay process is handed one)
        self._backend: _Backend | None = None
        self._planned: set[tuple[str, str]] = set()  # handed to the backend, outcome not yet taken
        self._cursor = 0  # position in ``queue`` of the first trigger not yet handed out
        self._batches = 0

    # -- collection -------------------------------------------------------------------------

    def build_index(self) -> SetIndex:
        """Index the set and load the accepted-differences file (errors name file and line)."""
        if self.index is None:
            self.index = SetIndex.build(self.settings.set_dir)
            self.accepted_path = _accepted.find(self.settings.set_dir, self.settings.project_root,
                                                self.settings.accepted_file)
            self.entries = _accepted.load(self.accepted_path) if self.accepted_path else []
        return self.index

    @property
    def registry(self) -> Any:
        """The automation registry, imported from the project's automations module."""
        if self._registry is None:
            from queue_core import discover

            root = str(self.settings.project_root)
            if root not in sys.path:
                sys.path.insert(0, root)
            self._registry = discover(self.settings.automations_module)
        return self._registry

    def rules(self, automation: str) -> Rules:
        """Return the normalisation rules of ``automation`` (coercion from the manifest)."""
        assert self.index is not None
        entry = self.index.manifest.automations.get(automation)
        coercion = entry.coercion if entry is not None else Coercion.STRICT
        providers = self._providers()
        return Rules(coercion, {name: cfg.base_url for name, cfg in providers.items()})

    def _providers(self) -> dict[str, Any]:
        assert self.index is not None
        return shadow_providers(self.settings.providers, sorted(self.index.providers))

    # -- replay -----------------------------------------------------------------------------

    def outcome(self, ref: TriggerRef, position: int = -1) -> ItemResult:
        """Return ``ref``'s judged result; ``position`` is its place in ``queue`` (-1: not there).

        A trigger not handed out yet starts a batch with the triggers that follow it in
        ``queue``; the backend is kept ``ahead`` batches ahead of the items.
        """
        key = (ref.automation, ref.trigger_id)
        backend = self._backend or self._start_backend()
        if key not in self._outcomes and key not in self._planned:
            refs = [ref]
            if position >= 0:
                self._cursor = max(self._cursor, position + 1)
                refs += self._take(self._batch_size() - 1)
            self._submit(backend, refs)
        self._fill(backend)
        while key not in self._outcomes:
            for result in backend.receive():
                okey = (result.automation, result.trigger_id)
                self._planned.discard(okey)
                self._outcomes[okey] = result
            self._fill(backend)
        return self._outcomes.pop(key)

    def _batch_size(self) -> int:
        # Replay processes start on small batches, so the first items need not wait for a
        # full one; the size doubles up to batch_size.
        if self.settings.replayers == 0:
            return self.settings.batch_size
        return min(self.settings.batch_size, RAMP_START << min(self._batches, 16))

    def _take(self, count: int) -> list[TriggerRef]:
        refs: list[TriggerRef] = []
        while len(refs) < count and self._cursor < len(self.queue):
            ref = self.queue[self._cursor]
            self._cursor += 1
            if (ref.automation, ref.trigger_id) not in self._planned:
                refs.append(ref)
        return refs

    def _submit(self, backend: _Backend, refs: list[TriggerRef]) -> None:
        self._planned.update((r.automation, r.trigger_id) for r in refs)
        self._batches += 1
        backend.submit(refs)

    def _fill(self, backend: _Backend) -> None:
        while backend.in_flight < backend.ahead:
            refs = self._take(self._batch_size())
            if not refs:
                return
            self._submit(backend, refs)

    def _start_backend(self) -> _Backend:
        if self.settings.replayers > 0:
            from harness.shadow._replay_processes import ReplayProcesses

            self.build_index()
            self._backend = ReplayProcesses(self)
        else:
            self._backend = _InProcess(self)
        return self._backend

    def prestart(self) -> None:
        """Start the replay processes now, so they are ready when the first item runs."""
        if self._backend is None and self.settings.replayers > 0:
            self._start_backend()

    def replay_batch(self, refs: Sequence[TriggerRef]) -> list[ItemResult]:
        """Replay and judge ``refs`` here, in order: what a replay process or the in-process
        backend does with a batch."""
        return [self.settle(o) for o in self._replay(refs)]

    def _replay(self, refs: Sequence[TriggerRef]) -> list[TriggerOutcome]:
        assert self.index is not None
        if self._failure is not None:
            return [TriggerOutcome(r, "error", error=self._failure) for r in refs]
        loaded = self.index.load(refs)
        out: dict[int, TriggerOutcome] = {}
        cases: list[Case] = []
        for i, (ref, trigger, legacy) in enumerate(loaded):
            if legacy is None:
                out[i] = TriggerOutcome(ref, "unpaired")
            elif ref.automation not in self.registry:
                out[i] = TriggerOutcome(ref, "error", error=(
                    f"automation {ref.automation!r} is not registered: no @automation({ref.automation!r}) in "
                    f"module {self.settings.automations_module!r} ([tool.cutover] automations); "
                    f"registered: {', '.join(self.registry.names()) or '(none)'}"))
            else:
                cases.append(Case(i, ref.automation, trigger, legacy))
                if self.settings.noise:
                    cases.append(Case(i, ref.automation, trigger, legacy, repeat=1))
        try:
            results = self._replay_session().replay(cases)
        except ReplayError as exc:
            self._failure = str(exc)
            return [out.get(i) or TriggerOutcome(ref, "error", error=self._failure)
                    for i, (ref, _, _) in enumerate(loaded)]
        by_key: dict[int, list[Replayed]] = {}
        for result in results:
            by_key.setdefault(result.key, []).append(result)
        for i, runs in by_key.items():
            ref, _, legacy = loaded[i]
            assert legacy is not None
            out[i] = self._judge(ref, legacy, runs)
        return [out[i] for i in range(len(loaded))]

    def _replay_session(self) -> ReplaySession:
        if self._session is None:
            from queue_core.states import Mode

            assert self.index is not None
            options = ReplayOptions(mode=Mode(self.settings.mode), seed=self.settings.seed,
                                    workers=self.settings.workers, concurrency=self.settings.concurrency,
                                    recording=self.index.name, scratch=True)
            self._session = ReplaySession(self.registry, self._providers(), options, db_url=self.db_url)
        return self._session

    def _judge(self, ref: TriggerRef, legacy: LegacyTrace, runs: list[Replayed]) -> TriggerOutcome:
        rules = self.rules(ref.automation)
        first = runs[0]
        trace = first.trace or {"status": "failed", "error": first.error}
        if legacy.items:  # the enqueue and wait steps of the children compared item by item
            trace = without_child_steps(trace)
        legacy_norm, new_norm = align(reduce_legacy(legacy, rules), reduce_new(trace, rules), legacy.evidence)
        found = diff_traces(legacy_norm, new_norm, rules.coercion)
        own = len(found)
        items = compare_items(legacy, first.children, rules) if legacy.items else None
        found += items.disagreements if items is not None else []
        noisy: set[str] = set()
        if len(runs) > 1 and runs[1].trace is not None:
            from harness.shadow.noise import noisy_patterns

            again = without_child_steps(runs[1].trace) if legacy.items else runs[1].trace
            noisy = noisy_patterns(reduce_new(trace, rules), reduce_new(again, rules))
            noisy |= item_noise(first.children, runs[1].children, rules) if items is not None else set()
        judged = _accepted.judge(self.entries, ref.automation, found, str(legacy.status), legacy.error,
                                 self.settings.today)
        if items is not None and found:  # the exemplar traces show the items that differ
            legacy_norm, new_norm = dict(legacy_norm, items=items.legacy), dict(new_norm, items=items.new)
        return TriggerOutcome(
            ref, "compared", legacy_status=str(legacy.status), new_status=new_norm["status"],
            error=trace.get("error") or (first.error if first.status != "succeeded" else None),
            exception=trace.get("exception"), disagreements=found, judgements=judged, noisy=noisy,
            legacy_branches=branches(legacy_norm, rules.coercion), new_branches=branches(new_norm, rules.coercion),
            legacy_trace=legacy_norm if found else None, new_trace=new_norm if found else None,
            legacy_error=legacy.error, evidence=tuple(str(e) for e in legacy.evidence),
            items=items.counts(judged[own:]) if items is not None else None,
            children=0 if items is not None else len(first.children), item_errors=items.errors if items else {},
        )

    # -- results ----------------------------------------------------------------------------

    def _file(self, prefix: str) -> IO[str]:
        handle = self._files.get(prefix)
        if handle is None:
            self.settings.results_dir.mkdir(parents=True, exist_ok=True)
            path = self.settings.results_dir / f"{prefix}{self.settings.process_id}.jsonl"
            handle = self._files[prefix] = path.open("a", encoding="utf-8")
        return handle

    def settle(self, outcome: TriggerOutcome) -> ItemResult:
        """Turn an outcome into what its item needs: failure text and result lines."""
        ref = outcome.ref
        row = {
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
        if outcome.items is not None:  # both absent for a run over one item: rows as before
            row["items"] = outcome.items
        elif outcome.children:
            row["children"] = outcome.children
        lines = "".join(json.dumps({
            "automation": ref.automation, "trigger_id": ref.trigger_id, "seq": ref.seq,
            **d.as_dict(), "accepted_by": j.accepted_by, "expired_by": j.expired_by,
            "noisy": d.pattern in outcome.noisy,
        }, sort_keys=True, default=str) + "\n" for d, j in zip(outcome.disagreements, outcome.judgements, strict=True))
        return ItemResult(ref.automation, ref.trigger_id, outcome.kind,
                          describe(outcome, self) if outcome.failed else None,
                          json.dumps(row, sort_keys=True, default=str) + "\n", lines)

    def record(self, result: ItemResult) -> None:
        """Append the result of an item that ran to this process's result files."""
        self._file(RESULTS_PREFIX).write(result.row)
        if result.disagreements:
            self._file(DISAGREEMENTS_PREFIX).write(result.disagreements)

    def close(self) -> None:
        """Flush result files, disconnect and drop the replay database."""
        for handle in self._files.values():
            handle.close()
        self._files.clear()
        if self._backend is not None:
            self._backend.close()
            self._backend = None
        if self._session is not None:
            self._session.close()
            self._session = None


class _Backend:
    """Replays batches of triggers handed to it; ``receive`` returns them in the order given."""

    ahead = 0  # batches it may hold beyond the one whose outcomes are being waited for

    @property
    def in_flight(self) -> int:
        raise NotImplementedError

    def submit(self, refs: list[TriggerRef]) -> None:
        raise NotImplementedError

    def receive(self) -> list[ItemResult]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop replaying; outcomes not received are dropped."""


class _InProcess(_Backend):
    """Replays a batch in this process when its outcomes are asked for (nothing ahead)."""

    def __init__(self, run: ShadowRun) -> None:
        self._run = run
        self._pending: list[list[TriggerRef]] = []

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def submit(self, refs: list[TriggerRef]) -> None:
        self._pending.append(refs)

    def receive(self) -> list[ItemResult]:
        return self._run.replay_batch(self._pending.pop(0))


def read_rows(results_dir: Path, prefix: str) -> list[dict[str, Any]]:
    """Read every process's rows with ``prefix`` from ``results_dir`` (to be read, not changed).

    A 100,000-trigger run has as many rows, nearly all alike: their keys, short strings
    (automation, verdict, statuses) and branch lists are shared between rows instead of each
    row holding copies, which keeps the reports' peak memory a third of what it was.
    """
    rows: list[dict[str, Any]] = []
    shared: dict[Any, Any] = {}
    for path in sorted(results_dir.glob(f"{prefix}*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            rows.extend(_shared_row(json.loads(line), shared) for line in handle if line.strip())
    return rows


def _shared_row(row: dict[str, Any], shared: dict[Any, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        if isinstance(value, str) and len(value) <= 24 or isinstance(value, list) and len(value) <= 8 and all(
                isinstance(v, str) for v in value):
            token = (key, value if isinstance(value, str) else tuple(value))
            value = shared.setdefault(token, value)
        out[shared.setdefault(key, key)] = value
    return out


def process_id() -> str:
    """Return a name for this pytest process's result files (the xdist worker id, or main)."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")

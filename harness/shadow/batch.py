"""Replay and judge one batch of triggers where it is asked: a replay process, or the run's own.

A :class:`BatchReplayer` holds what replaying needs (the set's index, the accepted differences,
the automation registry, a :class:`~harness.shadow.replay.ReplaySession` on its own database)
and turns a batch of trigger references into :class:`~harness.shadow.outcome.ItemResult`\\ s:
it reads the batch's lines, replays them through the queue, judges each with the pure
:func:`~harness.shadow.judge.judge`, and writes the failure text and result lines, so the item
that reads a result only passes or fails.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import ReplayError
from harness.shadow import accepted as _accepted
from harness.shadow._mismatch import describe
from harness.shadow.cases import Case, Replayed, ReplayOptions, shadow_providers
from harness.shadow.index import SetIndex, TriggerRef
from harness.shadow.judge import judge, rules_for
from harness.shadow.normalize import Rules
from harness.shadow.outcome import ItemResult, TriggerOutcome, result_lines
from harness.shadow.settings import ShadowSettings
from harness.recording import TRIGGERS_FILE, LegacyTrace
from harness.shadow.replay import ReplaySession


class BatchReplayer:
    """Replays and judges batches of one set's triggers (see the module docstring)."""

    def __init__(self, settings: ShadowSettings, index: SetIndex, entries: list[_accepted.Entry],
                 accepted_path: Path | None, *, db_url: str | None = None) -> None:
        self.settings = settings
        self.index = index
        self.entries = entries
        self.accepted_path = accepted_path
        self.db_url = db_url  # the replay database (a replay process is handed one)
        self._registry: Any = None
        self._session: ReplaySession | None = None
        self._failure: str | None = None
        self._rules: dict[str, Rules] = {}
        self._branches: dict[str, list[Any] | None] = {}

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
        """Return the normalisation rules of ``automation`` (coercion from the manifest), worked out once."""
        rules = self._rules.get(automation)
        if rules is None:
            rules = self._rules[automation] = rules_for(self.index.manifest, automation, self._providers())
        return rules

    def _providers(self) -> dict[str, Any]:
        return shadow_providers(self.settings.providers, sorted(self.index.providers))

    def replay_batch(self, refs: Sequence[TriggerRef]) -> list[ItemResult]:
        """Replay and judge ``refs`` here, in order."""
        return [self.settle(o) for o in self._replay(refs)]

    def _replay(self, refs: Sequence[TriggerRef]) -> list[TriggerOutcome]:
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
            out[i] = outcome = judge(ref, legacy, runs, self.rules(ref.automation), self.entries, self.settings.today)
            outcome.definition_taken = self._definition_taken(ref.automation, legacy)
        return [out[i] for i in range(len(loaded))]

    def _definition_taken(self, automation: str, legacy: LegacyTrace) -> list[int] | None:
        """Return the positions of the definition's branches ``legacy`` took (None: no readable definition).

        The report counts branch coverage from these (:func:`harness.coverage.tally`) instead of
        reading every compared legacy trace again at the end of the run.
        """
        if automation not in self._branches:
            from harness.coverage import definition_branches
            from harness.platforms.adapter import BranchesUnreadable

            entry = self.index.manifest.automations.get(automation)
            found = None
            if entry is not None and entry.definition:
                try:
                    found = definition_branches(self.index.directory / entry.definition, entry)
                except BranchesUnreadable:
                    found = None  # the report says why, reading the traces as before
            self._branches[automation] = found
        found = self._branches[automation]
        if found is None:
            return None
        from harness.coverage import took

        entry = self.index.manifest.automations[automation]
        return took(found, legacy, entry.coercion)

    def _replay_session(self) -> ReplaySession:
        if self._session is None:
            from queue_core.states import Mode

            options = ReplayOptions(mode=Mode(self.settings.mode), seed=self.settings.seed,
                                    workers=self.settings.workers, concurrency=self.settings.concurrency,
                                    recording=self.index.name, scratch=True)
            self._session = ReplaySession(self.registry, self._providers(), options, db_url=self.db_url)
        return self._session

    def _triggers_file(self, automation: str) -> Path:
        path = self.index.automations[automation].directory / TRIGGERS_FILE
        root = self.settings.project_root
        return path.relative_to(root) if path.is_relative_to(root) else path

    def settle(self, outcome: TriggerOutcome) -> ItemResult:
        """Turn an outcome into what its item needs: failure text and result lines."""
        ref = outcome.ref
        row, lines = result_lines(outcome)
        failure = None
        if outcome.failed:
            failure = describe(outcome, self._triggers_file(ref.automation), self.entries, self.accepted_path)
        return ItemResult(ref.automation, ref.trigger_id, outcome.kind, failure, row, lines)

    def close(self) -> None:
        """Disconnect and drop the replay database."""
        if self._session is not None:
            self._session.close()
            self._session = None

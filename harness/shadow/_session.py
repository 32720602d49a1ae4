"""One process's share of a shadow run: the set's index, its scheduler and its result files.

Kept free of pytest, so the plugin is a thin layer of hooks and :func:`harness.shadow.run`
drives the same run without it. One :class:`ShadowRun` lives in each process that runs
triggers (the pytest controller and every xdist worker, or the caller of ``run``):

* :meth:`ShadowRun.build_index` indexes the set (:mod:`harness.shadow.index`) and loads the
  accepted differences;
* the selected triggers (``queue``) are replayed ``batch_size`` at a time
  (:mod:`harness.shadow.schedule`) by a backend: child processes
  (:mod:`harness.shadow._replay_processes`) a batch or two ahead of the items, so pytest's
  per-item work and the replay run on different cores, or, with ``replayers=0``, this process
  when the first item of a batch runs (:class:`~harness.shadow.backend.InProcess`);
* every trigger that runs appends its rows to this process's result files
  (:mod:`harness.shadow.results`), which whoever writes the reports reads at the end
  (:mod:`harness.shadow.summary`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.shadow import accepted as _accepted
from harness.shadow.backend import Backend, InProcess
from harness.shadow.batch import BatchReplayer
from harness.shadow.index import SetIndex, TriggerRef
from harness.shadow.outcome import ItemResult
from harness.shadow.results import ResultFiles
from harness.shadow.schedule import Scheduler
from harness.shadow.settings import ShadowSettings


class ShadowRun:
    """One process's share of a shadow run (see the module docstring)."""

    def __init__(self, settings: ShadowSettings) -> None:
        self.settings = settings
        self.index: SetIndex | None = None
        self.entries: list[_accepted.Entry] = []
        self.accepted_path: Path | None = None
        self.queue: list[TriggerRef] = []
        self._replayer: BatchReplayer | None = None
        self._backend: Backend | None = None
        self._scheduler: Scheduler | None = None
        self._results = ResultFiles(settings.results_dir, settings.process_id)

    def build_index(self) -> SetIndex:
        """Index the set and load the accepted-differences file (errors name file and line)."""
        if self.index is None:
            self.index = SetIndex.build(self.settings.set_dir)
            self.accepted_path = _accepted.find(self.settings.set_dir, self.settings.project_root,
                                                self.settings.accepted_file)
            self.entries = _accepted.load(self.accepted_path) if self.accepted_path else []
        return self.index

    @property
    def replayer(self) -> BatchReplayer:
        """This process's batch replayer (the in-process backend's, and the settler of errors)."""
        if self._replayer is None:
            self._replayer = BatchReplayer(self.settings, self.build_index(), self.entries, self.accepted_path)
        return self._replayer

    @property
    def registry(self) -> Any:
        """The automation registry, imported from the project's automations module."""
        return self.replayer.registry

    def selected(self, ref: TriggerRef) -> bool:
        """Tell whether this run replays ``ref`` (all of them, or the ``shard``'s share)."""
        shard = self.settings.shard
        return shard is None or shard.selects(ref.automation, ref.trigger_id)

    def prestart(self) -> None:
        """Start the replay processes now, so they are ready when the first item runs."""
        if self._backend is None and self.settings.replayers > 0:
            self._start_backend()

    def _start_backend(self) -> Backend:
        if self.settings.replayers > 0:
            from harness.shadow._replay_processes import ReplayProcesses

            self._backend = ReplayProcesses(self.replayer)
        else:
            self._backend = InProcess(self.replayer.replay_batch)
        return self._backend

    def outcome(self, ref: TriggerRef, position: int = -1) -> ItemResult:
        """Return ``ref``'s judged result; ``position`` is its place in ``queue`` (-1: not there)."""
        if self._scheduler is None:
            backend = self._backend or self._start_backend()
            self._scheduler = Scheduler(backend, self.queue, batch_size=self.settings.batch_size,
                                        ramp=self.settings.replayers > 0)
        return self._scheduler.outcome(ref, position)

    def ready(self, ref: TriggerRef) -> bool:
        """Tell whether ``ref``'s result can be had without replaying anything in this process."""
        if self.settings.replayers > 0:
            return True  # replay processes replay; this one only waits for their answers
        return self._scheduler is not None and self._scheduler.has(ref)

    def record(self, result: ItemResult) -> None:
        """Append the result of an item that ran to this process's result files."""
        self._results.record(result)

    def close(self) -> None:
        """Flush result files, stop the replay processes, disconnect and drop the replay database."""
        self._results.close()
        if self._backend is not None:
            self._backend.close()
            self._backend = None
        self._scheduler = None
        if self._replayer is not None:
            self._replayer.close()
            self._replayer = None

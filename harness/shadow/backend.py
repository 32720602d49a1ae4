"""Replay backends: where the batches a :class:`~harness.shadow.schedule.Scheduler` hands out are replayed.

A backend takes batches in order (``submit``) and gives their results back in the same order
(``receive``); ``ahead`` is how many batches it may hold beyond the one being waited for.
:class:`InProcess` replays a batch in the caller's process when its results are asked for;
:class:`~harness.shadow._replay_processes.ReplayProcesses` replays them in child processes,
ahead of the items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.shadow.index import TriggerRef
from harness.shadow.outcome import ItemResult


class Backend:
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


class InProcess(Backend):
    """Replays a batch in this process when its outcomes are asked for (nothing ahead)."""

    def __init__(self, replay_batch: Callable[[Sequence[TriggerRef]], list[ItemResult]]) -> None:
        self._replay_batch = replay_batch
        self._pending: list[list[TriggerRef]] = []

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def submit(self, refs: list[TriggerRef]) -> None:
        self._pending.append(refs)

    def receive(self) -> list[ItemResult]:
        return self._replay_batch(self._pending.pop(0))

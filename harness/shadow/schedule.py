"""The scheduling of a run's batches to its replay backend, a batch or two ahead of the items.

The items ask for their results one at a time, in ``queue`` order. :class:`Scheduler` answers
each from a batch: a trigger not handed out yet starts a batch with the triggers that follow it
in ``queue``, and the backend is kept ``ahead`` batches ahead of the items, so a replay process
is replaying the next batches while pytest reports the items of the last one. Replay processes
start on small batches (:data:`RAMP_START`, doubling up to ``batch_size``) so that the first
items need not wait for a full one.
"""

from __future__ import annotations

from harness.shadow.backend import Backend
from harness.shadow.index import TriggerRef
from harness.shadow.outcome import ItemResult

RAMP_START = 100  # the first batch handed to replay processes; later ones double up to batch_size


class Scheduler:
    """Hands ``queue``'s triggers to ``backend`` in batches and gives each item its result."""

    def __init__(self, backend: Backend, queue: list[TriggerRef], *, batch_size: int, ramp: bool) -> None:
        self.backend = backend
        self.queue = queue
        self._batch_size_max = batch_size
        self._ramp = ramp
        self._outcomes: dict[tuple[str, str], ItemResult] = {}
        self._planned: set[tuple[str, str]] = set()  # handed to the backend, outcome not yet taken
        self._cursor = 0  # position in ``queue`` of the first trigger not yet handed out
        self._batches = 0

    def outcome(self, ref: TriggerRef, position: int = -1) -> ItemResult:
        """Return ``ref``'s judged result; ``position`` is its place in ``queue`` (-1: not there)."""
        key = (ref.automation, ref.trigger_id)
        backend = self.backend
        if key not in self._outcomes and key not in self._planned:
            refs = [ref]
            if position >= 0:
                self._cursor = max(self._cursor, position + 1)
                refs += self._take(self._batch_size() - 1)
            self._submit(refs)
        self._fill()
        while key not in self._outcomes:
            for result in backend.receive():
                okey = (result.automation, result.trigger_id)
                self._planned.discard(okey)
                self._outcomes[okey] = result
            self._fill()
        return self._outcomes.pop(key)

    def has(self, ref: TriggerRef) -> bool:
        """Tell whether ``ref``'s result is here already (its batch was received)."""
        return (ref.automation, ref.trigger_id) in self._outcomes

    def _batch_size(self) -> int:
        if not self._ramp:
            return self._batch_size_max
        return min(self._batch_size_max, RAMP_START << min(self._batches, 16))

    def _take(self, count: int) -> list[TriggerRef]:
        refs: list[TriggerRef] = []
        while len(refs) < count and self._cursor < len(self.queue):
            ref = self.queue[self._cursor]
            self._cursor += 1
            if (ref.automation, ref.trigger_id) not in self._planned:
                refs.append(ref)
        return refs

    def _submit(self, refs: list[TriggerRef]) -> None:
        self._planned.update((r.automation, r.trigger_id) for r in refs)
        self._batches += 1
        self.backend.submit(refs)

    def _fill(self) -> None:
        while self.backend.in_flight < self.backend.ahead:
            refs = self._take(self._batch_size())
            if not refs:
                return
            self._submit(refs)

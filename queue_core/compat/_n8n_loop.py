"""Loops of scaffolded n8n workflows: the guard of a ``while`` loop, and a SplitInBatches node's state.

n8n runs a node again each time items reach it, so a connection back to an earlier node is a
loop: the scaffold writes it as a Python ``while`` loop whose body is the nodes of the cycle,
run again for the items that came back to its first node. ``LoopState.again`` is the loop's
condition (items came back) and its guard: past ``max_iterations`` the run fails naming the
node, where n8n would run on until the execution is stopped.

SplitInBatches ("Loop Over Items") keeps state between its runs, as n8n's node context does
(SplitInBatchesV1/V2/V3 in n8n-nodes-base): on its first run (or every run, with the Reset
option) the incoming items are the ones to go through, and it outputs the first ``batch_size``
of them; on a later run it outputs the next batch of those it kept, and (v2, v3) adds the items
that came back to the processed ones. When no item is left, v3 outputs every processed item on
output 0 ("done") and nothing on output 1 ("loop"); v2 the same with the outputs the other way
round; v1 outputs nothing at all (its branch stops).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import NodeFailed

Item = dict[str, Any]
Items = list[Item]

MAX_ITERATIONS = 10_000


class LoopState:
    """One loop of a workflow run: how often it ran, and (a SplitInBatches node) the items it keeps."""

    def __init__(self, flow: Any, node: str, *, batch_size: int | None = None, reset: bool = False,
                 version: float = 3, max_iterations: int = MAX_ITERATIONS) -> None:
        self.flow, self.node = flow, node
        self.batch_size, self.reset, self.version = batch_size, reset, version
        self.max_iterations = max_iterations
        self.iterations = 0
        self.remaining: Items | None = None  # None: the node has not run yet in this execution
        self.processed: Items = []

    def again(self, items: Sequence[Item]) -> bool:
        """Return whether the loop runs (again): items reached its first node.

        Raises NodeFailed naming the node when the loop would run more than ``max_iterations``
        times.
        """
        if not items:
            return False
        self.iterations += 1
        if self.iterations > self.max_iterations:
            raise NodeFailed(f"{self.node}: the loop ran {self.max_iterations} times and items still come back to "
                             "it (the scaffold's guard; raise max_iterations= in the code if the workflow really "
                             "loops that long)")
        return True

    def batches(self, items: Sequence[Item]) -> list[Items]:
        """Run the SplitInBatches node on ``items``; record and return its outputs (v1: one, v2/v3: two)."""
        size = self._size()
        incoming = list(items)
        if self.remaining is None or self.reset:
            batch, self.remaining, self.processed = incoming[:size], incoming[size:], []
        else:
            batch, self.remaining = self.remaining[:size], self.remaining[size:]
            if self.version >= 2:
                self.processed = [*self.processed, *incoming]
        if self.version < 2:
            outputs: list[Items] = [batch]
        elif batch:
            outputs = [[], batch] if self.version >= 3 else [batch, []]
        else:
            outputs = [list(self.processed), []] if self.version >= 3 else [[], list(self.processed)]
        if self.version >= 2 or batch:  # v1 with nothing left returns no data: n8n records no run of it
            self.flow.record(self.node, outputs, kind="split-in-batches")
        return outputs

    @property
    def no_items_left(self) -> bool:
        """Return n8n's ``$node[...].context["noItemsLeft"]``: every kept item was output."""
        return self.remaining is not None and not self.remaining

    def _size(self) -> int:
        size = self.batch_size
        if isinstance(size, bool) or not isinstance(size, int | float) or size < 1:
            raise NodeFailed(f"{self.node}: Batch Size must be a number of at least 1, got {size!r}")
        return int(size)

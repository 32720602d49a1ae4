"""Stop a mutant that never ends: a deadline every loop of the mutated module checks.

A mutation can make a loop endless (a negated ``while`` condition, a step that jumps past its
stop). Such a loop that never awaits holds the replay's event loop, so no asyncio timeout can
end it; the check must run inside the loop. :func:`guard_loops` puts a call to the deadline at the
top of the body of every ``while``, ``for`` and ``async for`` of the mutant's tree (the user's
file and the original module are never changed), and :class:`Deadline` raises
:class:`~harness.errors.MutantTimeout` from that call once its time is up, so the run fails
terminally, its replay ends and the mutant is counted *killed by timeout*. The deadline is armed
for one replay of a few triggers at a time (:meth:`Deadline.armed`); between replays it never fires.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from harness.errors import MutantTimeout

NAME = "__cutover_deadline__"  # the global the guarded loops call


class Deadline:
    """A deadline for the runs of one mutant; ``fired`` tells whether a run outlived it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until: float | None = None
        self._seconds = 0.0
        self.fired = False

    @contextmanager
    def armed(self, seconds: float) -> Iterator[None]:
        """Let the guarded loops run for ``seconds`` from now, for the block."""
        self._until, self._seconds, self.fired = self._clock() + seconds, seconds, False
        try:
            yield
        finally:
            self._until = None

    def __call__(self) -> None:
        """Raise MutantTimeout once the armed deadline has passed (a guarded loop calls this)."""
        if self._until is not None and self._clock() > self._until:
            self.fired = True
            raise MutantTimeout(self._seconds)


class _Guard(ast.NodeTransformer):
    def _guarded(self, node: ast.While | ast.For | ast.AsyncFor) -> ast.AST:
        self.generic_visit(node)
        call = ast.Expr(ast.Call(ast.Name(NAME, ast.Load()), [], []))
        node.body.insert(0, ast.copy_location(call, node.body[0]))
        return node

    visit_While = visit_For = visit_AsyncFor = _guarded  # noqa: N815 - NodeTransformer's naming


def guard_loops(tree: ast.Module) -> ast.Module:
    """Return ``tree`` with a deadline check at the top of every loop body (changed in place)."""
    _Guard().visit(tree)
    return ast.fix_missing_locations(tree)

"""The deadline a mutant's loops check: guarded loops stop once it has passed, never between replays."""

from __future__ import annotations

import ast
import textwrap

import pytest

from harness.errors import MutantTimeout
from harness.mutate.deadline import NAME, Deadline, guard_loops

SOURCE = textwrap.dedent('''\
    def spin(items):
        n = 0
        while True:
            n += 1
            for item in items:
                n += item

    async def walk(stream):
        async for _ in stream:
            pass
    ''')


def test_every_loop_body_starts_with_a_call_to_the_deadline() -> None:
    tree = guard_loops(ast.parse(SOURCE))
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.While | ast.For | ast.AsyncFor)]
    assert len(loops) == 3
    for loop in loops:
        first = loop.body[0]
        assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
        assert isinstance(first.value.func, ast.Name) and first.value.func.id == NAME


def test_an_endless_guarded_loop_stops_when_its_deadline_passes() -> None:
    now = [0.0]
    deadline = Deadline(clock=lambda: now[0])
    namespace: dict[str, object] = {NAME: deadline}
    exec(compile(guard_loops(ast.parse(SOURCE)), "<mutant>", "exec"), namespace)  # noqa: S102 - test code

    def tick_clock() -> None:  # each loop iteration's check advances the fake clock by one second
        now[0] += 1.0
        Deadline.__call__(deadline)

    namespace[NAME] = tick_clock
    with deadline.armed(5.0), pytest.raises(MutantTimeout, match="did not end within 5 s"):
        namespace["spin"]([])  # type: ignore[operator]
    assert deadline.fired and now[0] == 6.0


def test_an_unarmed_deadline_never_fires() -> None:
    now = [100.0]
    deadline = Deadline(clock=lambda: now[0])
    with deadline.armed(1.0):
        pass
    now[0] = 1e9
    deadline()  # no exception: disarmed after its block
    assert not deadline.fired

"""bench/rate_budget.py's report: utilisation over every second and over the full-budget seconds."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "rate_budget.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rate_budget_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spread(start: float, count: int) -> list[float]:
    return [start + i / count for i in range(count)]


def test_a_draining_queue_is_not_charged_for_its_ramp_down_tail() -> None:
    bench = _bench()
    # issue 21's run: per-second counts 20, 20, 13, 6, 1 of a 20/1s budget, 60 jobs in all
    admitted = _spread(0, 20) + _spread(1, 20) + _spread(2, 13) + _spread(3, 6) + [4.2]
    seconds = bench.per_second(admitted, 0.0, admitted[-1] + 1e-6, 60)
    assert seconds == [(20, 60), (20, 40), (13, 20), (6, 7), (1, 1)]
    overall, full, count = bench.second_utilisation(seconds, 20.0)
    assert count == 3  # the last two seconds began with fewer than 20 jobs left: demand was below budget
    assert round(overall, 4) == 0.6 and round(full, 4) == round(53 / 60, 4)


def test_a_queue_that_never_drains_has_every_second_at_full_budget() -> None:
    bench = _bench()
    admitted = _spread(0, 10) + _spread(1, 8)
    overall, full, count = bench.second_utilisation(bench.per_second(admitted, 0.0, 2.0, 100), 10.0)
    assert (round(overall, 4), round(full, 4), count) == (0.9, 0.9, 2)

"""The throughput benchmark's sweep finds each system's peak: it climbs a knob until two points
in a row do not improve, then climbs the system's parallelism from its best point (issue 22,
part 8: an earlier sweep stopped with pgqueuer still climbing at the last point it tried).

No database: the sweep's bookkeeping (``Climb``) is fed made-up medians.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        import _peers
        import queue_throughput

        yield queue_throughput, _peers
    finally:
        sys.path.remove(str(BENCH))


def _base(peers):
    return peers.Settings(concurrency=40, batch=0, pgq_managers=2, pgq_batch=10, pgq_cap=True,
                          pgq_driver="asyncpg", raw_loops=2)


def _point(qt, name: str, rate: float):
    return qt.Summary(name, [qt.Outcome(name, jobs_s=rate)])


def _climb(qt, peers, name: str, rates: list[float]):
    """Feed ``rates`` to a Climb the way best_table does; return it and the settings tried."""
    c, tried, base = qt.Climb(name), [], _base(peers)
    for rate in rates:
        if c.stopped is not None:
            break
        ladder_base = c.ladder_base or base
        change = peers.SYSTEMS[name].ladders[c.ladder](c.on_ladder, ladder_base)
        if change is None:
            c.end_ladder("its ladder ends here")
            continue
        settings = replace(ladder_base, **change)
        tried.append(settings)
        c.record(settings.knobs(name), _point(qt, name, rate), settings)
    return c, tried


def test_a_climb_goes_on_while_each_point_beats_the_best_by_more_than_three_percent(bench):
    qt, peers = bench
    c, tried = _climb(qt, peers, "pgqueuer", [100, 200, 300, 400, 500])
    assert c.stopped is None and [s.pgq_batch for s in tried] == [10, 20, 40, 80, 160]


def test_the_first_ladder_stops_after_two_points_in_a_row_without_improvement(bench):
    qt, peers = bench
    # 1,000 then 1,020 (within 3%) then 900: two misses end the batch ladder at its peak, 1,020.
    c, tried = _climb(qt, peers, "raw_sql", [500, 1000, 1020, 900])
    assert c.ladder == 1 and c.on_ladder == 0 and c.misses == 0
    assert c.best is not None and c.best[0] == 1020
    assert c.ladder_base is not None and c.ladder_base.raw_batch == 80


def test_the_parallelism_ladder_starts_from_the_best_point_of_the_first(bench):
    qt, peers = bench
    c, tried = _climb(qt, peers, "raw_sql", [500, 1000, 1020, 900, 1500, 1490, 1400])
    loops = [(s.raw_batch, s.raw_loops) for s in tried[4:]]
    assert loops == [(80, 4), (80, 8), (80, 16)]
    assert c.best is not None and c.best[0] == 1500 and "x 4 loops" in c.best[1]
    assert c.stopped == ("2 points in a row within 3% of its best or below; "
                         "then 2 points in a row within 3% of its best or below")


def test_a_parallelism_ladder_that_is_still_climbing_ends_at_its_cap(bench):
    qt, peers = bench
    c, tried = _climb(qt, peers, "cutover", [100, 90, 80, 200, 300, 400, 500])
    assert [s.lanes for s in tried[3:]] == [4, 8, 16]
    assert tried[-1].db_connections == 36  # 16 lanes, their heartbeats and as many for the jobs
    assert c.stopped == "2 points in a row within 3% of its best or below; then its ladder ends here"
    assert c.best is not None and "x 16 lanes" in c.best[1]


def test_procrastinate_has_one_ladder_capped_below_max_connections(bench):
    qt, peers = bench
    c, tried = _climb(qt, peers, "procrastinate", [10, 20, 40, 80, 160])
    assert [s.concurrency for s in tried] == [10, 20, 40, 80]
    assert c.stopped == "its ladder ends here"

"""A producer lane's bookkeeping (outcomes leave in the order the jobs finished, put-backs first),
the lease guard's timing, and how a worker splits its connections."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from queue_core._lease import LeaseTiming, next_check, overdue
from queue_core.db import default_connections, plan_connections
from queue_core.errors import ConfigError
from queue_core.job import Outcome
from queue_core.worker import WorkerConfig
from queue_core.states import JobStatus
from queue_core.worker.completer import BatchCompleter


def _completer() -> BatchCompleter:
    return BatchCompleter(None, "w", batch=10, stats={"completed": 0}, wake=asyncio.Event())  # type: ignore[arg-type]


def _outcomes(n: int) -> list[Outcome]:
    return [Outcome(uuid.uuid4(), 1, JobStatus.SUCCEEDED, "succeeded") for _ in range(n)]


def test_take_returns_at_most_the_limit_in_finishing_order():
    lane = _completer()
    done = _outcomes(5)
    lane.outcomes.extend(done)
    assert lane.take(3) == done[:3]
    assert lane.take(3) == done[3:]
    assert lane.take(3) == []


def test_outcomes_put_back_after_a_failed_write_go_out_first_in_their_order():
    lane = _completer()
    first, later = _outcomes(3), _outcomes(2)
    lane.outcomes.extend(first)
    taken = lane.take(10)
    lane.outcomes.extend(later)  # jobs finishing while the write failed
    lane.put_back(taken)
    assert lane.take(10) == first + later


def test_outcomes_are_immutable_values():
    outcome = _outcomes(1)[0]
    with pytest.raises(AttributeError):
        outcome.status = JobStatus.FAILED  # type: ignore[misc]
    assert outcome.attempt_inc == 1 and outcome.delay_s is None and outcome.trace is None


# -- the lease guard's timing -----------------------------------------------------------------

def test_a_job_is_overdue_once_its_lease_started_lease_minus_margin_ago():
    timing = LeaseTiming.for_lease(8.0)
    assert (timing.renew_timeout_s, timing.margin_s, timing.horizon_s) == (2.0, 2.0, 6.0)
    renewed = {"old": 100.0, "renewed": 104.0}
    assert overdue(renewed, now=105.9, horizon_s=timing.horizon_s) == []
    assert overdue(renewed, now=106.0, horizon_s=timing.horizon_s) == ["old"]
    assert overdue(renewed, now=110.0, horizon_s=timing.horizon_s) == ["old", "renewed"]


def test_the_guard_next_looks_when_the_earliest_lease_reaches_its_horizon():
    assert next_check({"a": 104.0, "b": 101.0}, now=105.0, horizon_s=6.0) == 107.0
    assert next_check({}, now=105.0, horizon_s=6.0) == 111.0  # a job claimed now is due then


@pytest.mark.parametrize("kw", [{"margin_s": 8.0}, {"margin_s": 0.0}, {"renew_timeout_s": 0.0}])
def test_a_lease_that_leaves_no_time_to_run_is_refused(kw):
    with pytest.raises(ConfigError, match="lease 8.0s"):
        LeaseTiming.for_lease(8.0, **kw)


# -- a worker's connection budget -----------------------------------------------------------------

@pytest.mark.parametrize(("total", "lanes", "own", "listener", "jobs"), [
    (3, 1, 2, 0, 1), (4, 1, 2, 1, 1), (5, 1, 2, 1, 2), (6, 2, 3, 1, 2), (14, 2, 4, 1, 9), (20, 2, 4, 1, 15),
])
def test_a_connection_budget_is_spent_whole_on_lanes_heartbeats_listener_and_jobs(total, lanes, own, listener, jobs):
    plan = plan_connections(total, concurrency=200)
    assert (plan.lanes, plan.own, plan.listener, plan.jobs) == (lanes, own, listener, jobs)
    assert plan.total == total


def test_a_worker_of_concurrency_one_gets_one_lane_and_the_default_budget():
    assert default_connections(1) == 5 and default_connections(200) == 14
    assert plan_connections(default_connections(1), concurrency=1).lanes == 1


def test_fewer_than_three_connections_are_refused_with_the_option_named():
    with pytest.raises(ConfigError, match="at least 3 connections") as info:
        plan_connections(2, concurrency=10)
    assert info.value.field == "db-connections"


def test_a_heartbeat_too_rare_to_renew_a_lease_before_the_guard_cancels_is_refused():
    LeaseTiming.for_lease(30.0, heartbeat_s=10.0)  # the default: a third of the lease
    with pytest.raises(ConfigError, match="heartbeat every 20.0s"):
        LeaseTiming.for_lease(30.0, heartbeat_s=20.0)  # 20 s + a 7.5 s attempt reach the 22.5 s horizon
    with pytest.raises(ConfigError, match="heartbeat every 20.0s"):
        WorkerConfig(lease_s=30.0, heartbeat_s=20.0)

"""A producer lane's bookkeeping: outcomes leave in the order the jobs finished, put-backs first."""

from __future__ import annotations

import uuid

import pytest

from queue_core.job import Outcome
from queue_core.states import JobStatus
from queue_core.worker import _Lane


def _outcomes(n: int) -> list[Outcome]:
    return [Outcome(uuid.uuid4(), 1, JobStatus.SUCCEEDED, "succeeded") for _ in range(n)]


def test_take_returns_at_most_the_limit_in_finishing_order():
    lane = _Lane(capacity=10)
    done = _outcomes(5)
    lane.outcomes.extend(done)
    assert lane.take(3) == done[:3]
    assert lane.take(3) == done[3:]
    assert lane.take(3) == []


def test_outcomes_put_back_after_a_failed_write_go_out_first_in_their_order():
    lane = _Lane(capacity=10)
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

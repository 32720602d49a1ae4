"""The outcomes a worker writes, as the JSON the completion statement reads."""

from __future__ import annotations

import json
import math
import uuid

from queue_core.job import Outcome
from queue_core.queue import outcomes_json
from queue_core.states import ErrorKind, JobStatus

A, B, C = uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3)


def test_a_plain_success_is_its_five_keys():
    assert json.loads(outcomes_json([Outcome(A, 7, JobStatus.SUCCEEDED, "succeeded")])) == [
        {"id": A.hex, "claim_count": 7, "status": "succeeded", "attempt_inc": 1, "event": "succeeded"}
    ]


def test_other_outcomes_carry_what_they_set_escaped():
    retry = Outcome(B, 2, JobStatus.PENDING, "retry_scheduled", 1, 2.5, 'said "no"\n\u2028', ErrorKind.RETRYABLE)
    traced = Outcome(C, 1, JobStatus.SUCCEEDED, "succeeded", trace={"path": ["a"], "n": None})
    forever = Outcome(A, 1, JobStatus.WAITING, "waiting", 0, math.inf)
    rows = json.loads(outcomes_json([retry, traced, forever]))
    assert rows[0] == {"id": B.hex, "claim_count": 2, "status": "pending", "attempt_inc": 1, "event": "retry_scheduled",
                       "delay_s": 2.5, "error": 'said "no"\n\u2028', "kind": "retryable"}
    assert rows[1]["trace"] == {"path": ["a"], "n": None} and "deferred" not in rows[1]
    assert rows[2]["delay_s"] == 365 * 86400.0  # infinity is not JSON: a year stands for "until woken"


def test_a_batch_is_one_array_in_order_and_an_empty_batch_an_empty_array():
    batch = [Outcome(i, 1, JobStatus.SUCCEEDED, "succeeded") for i in (A, B, C)]
    assert [row["id"] for row in json.loads(outcomes_json(batch))] == [A.hex, B.hex, C.hex]
    assert outcomes_json([]) == "[]"

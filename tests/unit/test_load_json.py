"""The worker's JSON loader reads what json.loads reads, and refuses what it refuses."""

from __future__ import annotations

import json
import random
import uuid

import pytest

from queue_core.job import Outcome
from queue_core.queue import _outcome_params, load_json
from queue_core.states import JobStatus

SAME = [b'{"i": 1}', b'{"a": [1, 2.5, "x\\u2028"], "b": null}', b"null", b'"s"', b"123456789012345678901234567890",
        b"[]", b'{"nested": {"deep": [true, false]}}', ' {"blank": "around"}\n'.encode(), '"ünï"'.encode()]


@pytest.mark.parametrize("text", SAME)
def test_the_loader_reads_what_json_loads_reads(text):
    assert load_json(text) == json.loads(text)
    assert load_json(text.decode()) == json.loads(text)


@pytest.mark.parametrize("text", [b'{"a": 1} trailing', b"", b"{", b"  ", b"[1,]"])
def test_the_loader_refuses_what_json_loads_refuses(text):
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        load_json(text)


def test_outcomes_go_out_in_the_order_postgres_sorts_their_ids():
    rng = random.Random(7)
    ids = [uuid.UUID(int=rng.getrandbits(128)) for _ in range(200)]
    outcomes = [Outcome(i, 1, JobStatus.SUCCEEDED, "succeeded") for i in ids]
    sent = [uuid.UUID(row["id"]) for row in json.loads(_outcome_params(outcomes, "w", None)["outcomes"])]
    # Postgres compares uuids byte by byte, as bytes (big-endian) compare.
    assert sent == sorted(ids, key=lambda i: i.bytes)

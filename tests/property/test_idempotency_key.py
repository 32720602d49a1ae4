"""The child idempotency key: sha256(job_id:step), stable, and distinct across (job, step)."""

from __future__ import annotations

import hashlib
import uuid

from hypothesis import given
from hypothesis import strategies as st

from queue_core import child_key

steps = st.text(min_size=1, max_size=40)


@given(st.uuids(), steps)
def test_key_is_sha256_of_job_id_and_step(job_id: uuid.UUID, step: str) -> None:
    assert child_key(job_id, step) == hashlib.sha256(f"{job_id}:{step}".encode()).hexdigest()
    assert child_key(job_id, step) == child_key(str(job_id), step)


@given(st.uuids(), steps, st.uuids(), steps)
def test_distinct_job_step_pairs_get_distinct_keys(j1, s1, j2, s2) -> None:
    if (j1, s1) != (j2, s2):
        assert child_key(j1, s1) != child_key(j2, s2)

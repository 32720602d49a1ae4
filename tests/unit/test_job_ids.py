"""Job ids are version-7 UUIDs: time-ordered, so a batch's index inserts stay on a few pages."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from queue_core.keys import new_job_id


def test_a_job_id_is_an_rfc_9562_version_7_uuid():
    job_id = new_job_id()
    assert job_id.version == 7
    assert job_id.variant == uuid.RFC_4122


@given(st.integers(min_value=0, max_value=2**48 - 2), st.integers(min_value=1, max_value=10**6))
def test_ids_made_later_sort_after_ids_made_earlier(ms, later_by):
    later = min(ms + later_by, 2**48 - 1)
    assert new_job_id(ms) < new_job_id(later)
    assert new_job_id(ms).int >> 80 == ms  # the first 48 bits are the unix time in milliseconds


def test_ids_made_in_the_same_millisecond_differ():
    ids = {new_job_id(1_700_000_000_000) for _ in range(10_000)}
    assert len(ids) == 10_000

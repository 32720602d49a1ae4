"""The child idempotency key: stable, and distinct across (job, step, occurrence, generation).

Occurrence 0 of generation 0 keeps the original ``sha256(job_id:step)``; later occurrences and
renewed generations append ``\\n<n>`` and ``\\ng<g>`` (a step name never holds a line break).
"""

from __future__ import annotations

import hashlib
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from queue_core import child_key

# Names made of separators and digits too: "a:1" against ("a", occurrence 1) is the collision a
# colon-separated derivation would have.
steps = st.one_of(
    st.text(alphabet=":0123456789ga\\#", min_size=1, max_size=12),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), min_size=1, max_size=40),
)
occurrences = st.integers(min_value=0, max_value=10_000)
generations = st.integers(min_value=0, max_value=50)


@given(st.uuids(), steps)
def test_the_first_occurrence_keeps_the_sha256_of_job_id_and_step(job_id: uuid.UUID, step: str) -> None:
    assert child_key(job_id, step) == hashlib.sha256(f"{job_id}:{step}".encode()).hexdigest()
    assert child_key(job_id, step, 0, 0) == child_key(str(job_id), step)


@given(st.uuids(), steps, occurrences, generations)
def test_a_key_is_the_same_every_time_it_is_derived(job_id: uuid.UUID, step: str, n: int, g: int) -> None:
    assert child_key(job_id, step, n, g) == child_key(str(job_id), step, n, g) == child_key(job_id, step, n, g)


@given(st.uuids(), steps, st.integers(min_value=1, max_value=10_000))
def test_a_later_occurrence_is_the_sha256_of_job_id_step_and_its_number(job_id: uuid.UUID, step: str, n: int) -> None:
    assert child_key(job_id, step, n) == hashlib.sha256(f"{job_id}:{step}\n{n}".encode()).hexdigest()


@given(st.uuids(), steps, occurrences, st.integers(min_value=1, max_value=50))
def test_a_renewed_generation_is_mixed_in_after_the_occurrence(job_id: uuid.UUID, step: str, n: int, g: int) -> None:
    assert child_key(job_id, step, n, g) == hashlib.sha256(f"{job_id}:{step}\n{n}\ng{g}".encode()).hexdigest()


@given(st.tuples(st.uuids(), steps, occurrences, generations), st.tuples(st.uuids(), steps, occurrences, generations))
def test_distinct_job_step_occurrence_generation_get_distinct_keys(a: tuple, b: tuple) -> None:
    if a != b:
        assert child_key(*a) != child_key(*b)


@given(st.uuids(), steps, st.lists(occurrences, min_size=2, max_size=60, unique=True))
def test_every_occurrence_of_a_step_in_a_loop_gets_its_own_key(job_id: uuid.UUID, step: str, ns: list[int]) -> None:
    assert len({child_key(job_id, step, n) for n in ns}) == len(ns)


def test_a_step_name_with_a_line_break_or_a_negative_number_is_refused() -> None:
    job_id = uuid.uuid4()
    with pytest.raises(ValueError, match="line break"):
        child_key(job_id, "add\n1")
    with pytest.raises(ValueError, match="must be >= 0"):
        child_key(job_id, "add", -1)
    with pytest.raises(ValueError, match="must be >= 0"):
        child_key(job_id, "add", 0, -1)

"""The Postgres node (v2 … 2.6) against the real n8n: both sides run on copies of one seeded database (``sql_cases``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle import sql_cases
from tests.oracle.conftest import require_oracle

Results = list[tuple[Any, Any, Any, list[str]]]


@pytest.fixture(scope="module")
def results() -> Results:
    require_oracle()
    return sql_cases.measure(sql_cases.sql_cases())


def test_every_postgres_case_is_translated_and_equals_n8n_in_items_and_in_the_table_it_leaves(results: Results) -> None:
    untranslated = [case.id for case, _, got, _ in results if not got.translated]
    assert not untranslated and len(results) == len(sql_cases.sql_cases())
    differing = [f"{case.id}: {case.describe()}\n    {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing[:4])


def test_n8n_really_ran_every_case_and_failed_only_those_meant_to_fail(results: Results) -> None:
    # both sides failing at the node agrees (outcome.differences): the failures must be the meant ones
    failed = [case.inputs[0] for case, expected, _, _ in results if expected.error is not None]
    assert failed == [[row] for row in sql_cases.MEANT_TO_FAIL]
    assert all(got.error is not None for case, _, got, _ in results if case.inputs[0] in failed)
    assert all(expected.nodes for _, expected, _, _ in results if expected.error is None)

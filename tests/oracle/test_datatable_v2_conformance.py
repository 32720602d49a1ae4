"""The Data Table node v1.1 against n8n ``runner.NEWER`` (2.x): n8n on its own seeded data tables, the scaffold on
copies (``datatable_v2_cases``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle import datatable_cases, runner
from tests.oracle.conftest import require_oracle
from tests.oracle.datatable_v2_cases import datatable_v2_cases

Results = list[tuple[Any, Any, Any, list[str]]]


@pytest.fixture(scope="module")
def results() -> Results:
    require_oracle(runner.NEWER)
    return datatable_cases.measure(datatable_v2_cases(), version=runner.NEWER)


def test_every_v1_1_case_is_translated_and_equals_n8n_2x_in_items_and_in_the_table_it_leaves(results: Results) -> None:
    untranslated = [case.id for case, _, got, _ in results if not got.translated]
    assert not untranslated and len(results) == len(datatable_v2_cases())
    differing = [f"{case.id}: {case.describe()}\n    {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing[:4])


def test_n8n_2x_really_ran_every_case_and_sorted_where_asked(results: Results) -> None:
    assert [case.id for case, expected, _, _ in results if expected.error is not None] == []
    by_score = next(expected for case, expected, _, _ in results if case.parameters.get("orderByColumn") == "score")
    scores = [row["score"] for row in by_score.nodes[datatable_cases.UNDER_TEST][0]]
    assert scores == [None, 1.5, 3] or scores == [1.5, 3, None]  # Postgres puts nulls last ascending

"""The Data Table node (v1) against the real n8n: n8n on its own seeded data tables, the scaffold on copies (``datatable_cases``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle import datatable_cases
from tests.oracle.conftest import require_oracle

Results = list[tuple[Any, Any, Any, list[str]]]


@pytest.fixture(scope="module")
def results() -> Results:
    require_oracle()
    return datatable_cases.measure(datatable_cases.datatable_cases())


def test_every_data_table_case_is_translated_and_equals_n8n_in_items_and_in_the_table_it_leaves(results: Results) -> None:
    untranslated = [case.id for case, _, got, _ in results if not got.translated]
    assert not untranslated and len(results) == len(datatable_cases.datatable_cases())
    differing = [f"{case.id}: {case.describe()}\n    {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing[:4])


def test_n8n_really_ran_every_case_on_its_data_table_and_failed_only_where_meant(results: Results) -> None:
    failed = tuple(i for i, (_, expected, _, _) in enumerate(results) if expected.error is not None)
    assert failed == datatable_cases.MEANT_TO_FAIL
    assert all(results[i][2].error is not None for i in failed)
    # every get but the one for a name no row has found rows in n8n's own table: the seeding was read
    gets = [(case, expected) for case, expected, _, _ in results if case.parameters.get("operation") == "get"]
    empty = [case.id for case, expected in gets if not expected.nodes[datatable_cases.UNDER_TEST][0]]
    assert len(gets) > 10 and empty == [case.id for case, _ in gets if "nobody" in str(case.parameters)]

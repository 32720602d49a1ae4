"""Wait and Execution Data against the real n8n (``wait_data_cases``): every case translated and equal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle import conformance, wait_data_cases
from tests.oracle.conftest import require_oracle

KEYS = [f"{t.rsplit('.', 1)[-1]} v{v:g}" for t, versions, _ in wait_data_cases.NODES for v in versions]


@pytest.fixture(scope="module")
def results() -> Iterator[list[conformance.Result]]:
    require_oracle()
    measured, _ = conformance.measure(wait_data_cases.wait_data_cases())
    yield measured


@pytest.mark.parametrize("key", KEYS)
def test_every_wait_and_execution_data_case_is_translated_and_equals_n8n(key: str,
                                                                        results: list[conformance.Result]) -> None:
    mine = [r for r in results if r.case.key == key]
    assert mine, key
    untranslated = [r.case.id for r in mine if not r.scaffold.translated]
    assert not untranslated, untranslated
    refused = [r.case.id for r in mine if r.refused]
    assert not refused, refused
    differing = [f"{r.case.id}: {r.case.describe()}\n    {r.differences}" for r in mine if not r.equal]
    assert not differing, "\n".join(differing[:3])


def test_custom_data_n8n_cannot_store_does_not_stop_a_production_run(results: list[conformance.Result]) -> None:
    refused = [r for r in results if r.case.node_type.endswith("executionData") and r.case.id.endswith(("#5", "#6"))]
    assert len(refused) == 4 and all(r.oracle.error is None and r.oracle.nodes for r in refused)

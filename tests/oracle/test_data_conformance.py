"""Limit, Sort, Split Out and Aggregate against the real n8n (``data_cases``): every drawn case translated and equal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle import conformance, data_cases
from tests.oracle.conftest import require_oracle

KEYS = [f"{t.rsplit('.', 1)[-1]} v{v:g}" for t, versions, _ in data_cases.DATA_NODES for v in versions]


@pytest.fixture(scope="module")
def results() -> Iterator[list[conformance.Result]]:
    require_oracle()
    measured, _ = conformance.measure(data_cases.data_cases())
    yield measured


@pytest.mark.parametrize("key", KEYS)
def test_every_drawn_data_node_case_is_translated_and_equals_n8n(key: str, results: list[conformance.Result]) -> None:
    mine = [r for r in results if r.case.key == key]
    assert len(mine) >= 20, f"only {len(mine)} cases of {key} were drawn"
    untranslated = [r.case.id for r in mine if not r.scaffold.translated]
    assert not untranslated, untranslated
    differing = [f"{r.case.id}: {r.case.describe()}\n    {r.differences}" for r in mine if not r.refused and not r.equal]
    assert not differing, "\n".join(differing[:3])
    assert any(r.oracle.error is None and any(r.oracle.nodes.get("Node under test", [[]])) for r in mine)

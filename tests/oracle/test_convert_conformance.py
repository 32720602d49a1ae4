"""Convert to File (JSON, text) against the real n8n (``convert_cases``): every drawn case translated, json and file equal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle import conformance, convert_cases
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST


@pytest.fixture(scope="module")
def results() -> Iterator[list[conformance.Result]]:
    require_oracle()
    measured, _ = conformance.measure(convert_cases.convert_cases())
    yield measured


@pytest.mark.parametrize("version", convert_cases.VERSIONS)
def test_every_drawn_convert_to_file_case_makes_n8ns_items_and_files(version: float,
                                                                    results: list[conformance.Result]) -> None:
    mine = [r for r in results if r.case.version == version]
    assert len(mine) >= 20, f"only {len(mine)} cases were drawn"
    untranslated = [r.case.id for r in mine if not r.scaffold.translated]
    assert not untranslated, untranslated
    differing = [f"{r.case.id}: {r.case.describe()}\n    {r.differences}" for r in mine if not r.refused and not r.equal]
    assert not differing, "\n".join(differing[:3])
    files = [(r.case.id, r.oracle.binary.get(UNDER_TEST), r.scaffold.binary.get(UNDER_TEST)) for r in mine
             if not r.refused and r.oracle.error is None]
    unequal = [f"{case}:\n  n8n  {expected}\n  mine {got}" for case, expected, got in files if expected != got]
    assert not unequal, "\n".join(unequal[:3])
    assert sum(1 for _, expected, _ in files if expected) >= 10  # n8n made a file in at least a third of the cases

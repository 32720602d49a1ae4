"""Execute Workflow against the real n8n (``sub_cases``): every case translated and equal to n8n's output."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import sub_cases
from tests.oracle.conftest import require_oracle

VERSIONS = (1.0, 1.1, 1.2, 1.3)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Any]]:
    require_oracle()
    yield sub_cases.measure(sub_cases.sub_cases(), tmp_path_factory.mktemp("sub-oracle"))


@pytest.mark.parametrize("version", VERSIONS)
def test_every_execute_workflow_case_is_translated_and_equals_n8n(version: float, results: list[Any]) -> None:
    mine = [r for r in results if r[0].version == version]
    assert len(mine) >= 3
    untranslated = [case.id for case, _, got, _ in mine if not got.translated]
    assert not untranslated, untranslated
    failed = [(case.id, oracle.error) for case, oracle, _, _ in mine if oracle.error]
    assert not failed, failed
    differing = [f"{case.id}: {case.parameters}\n    {found}" for case, _, _, found in mine if found]
    assert not differing, "\n".join(differing[:3])
    assert all(oracle.nodes.get(sub_cases.UNDER_TEST) for _, oracle, _, _ in mine)


def test_the_cases_name_the_callee_by_the_id_n8n_gives_it(tmp_path: Path) -> None:
    case = sub_cases.sub_cases()[5]
    caller, callee = sub_cases.documents(case, 4)
    node = next(n for n in caller["nodes"] if n["name"] == sub_cases.UNDER_TEST)
    assert node["parameters"]["workflowId"]["value"] == callee["id"] == sub_cases.runner.workflow_id(5)

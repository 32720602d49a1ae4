"""Each pinned Make case, scaffolded and run: the module does what Make documents; proved.json agrees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.make.cases import all_cases
from tests.conformance.make.proved import TABLE, table
from tests.conformance.make.runner import mismatches, run_case

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_module_conforms(case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    assert mismatches(case, outcome) == [], outcome.source


def test_every_case_names_its_source() -> None:
    assert all(c.source.startswith("https://") for c in CASES), [c.id for c in CASES if not c.source.startswith("https://")]


def test_proved_table_is_the_cases() -> None:
    """harness/platforms/make/proved.json lists exactly the module types of the cases (all of which pass
    above): rewrite it with ``python -m tests.conformance.make.proved --write``."""
    assert json.loads(TABLE.read_text(encoding="utf-8")) == table(CASES)

"""Every pinned Power Automate case conforms, and the proved table is what the cases prove."""

from __future__ import annotations

import dataclasses

import pytest

from tests.conformance.power_automate.proved import CASES, TABLE, text
from tests.conformance.power_automate.runner import check


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_case_conforms_to_what_microsoft_documents(case) -> None:  # type: ignore[no-untyped-def]
    assert case.source.startswith("https://learn.microsoft.com/")
    assert check(case) == []


def test_a_case_documenting_something_else_is_caught() -> None:
    case = next(c for c in CASES if c.name == "if-true-runs-its-actions-and-skips-the-else")
    wrong = dataclasses.replace(case, decisions={"condition": "false"}, status={"No": "Succeeded"})
    problems = check(wrong)
    assert any("decisions" in p for p in problems) and any("status[No]" in p for p in problems)


def test_the_proved_table_on_disk_is_the_one_the_cases_prove() -> None:
    assert TABLE.read_text(encoding="utf-8") == text()

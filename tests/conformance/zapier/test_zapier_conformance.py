"""Every pinned Zapier case: the scaffolded step does what Zapier documents (``runner.problems`` empty)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conformance.zapier import cases_calls, cases_code, cases_formatter, cases_logic, cases_sheets
from tests.conformance.zapier.runner import Case, problems, step_type


def _older(case: Case) -> Case | None:
    """The same case under the app names older Zap exports (version 2) hold: ``CodeAPI`` with
    ``run_javascript``, ``WebHookAPI``; None for a case whose app has no such name here."""
    api = str(case.node["selected_api"]).split("@", 1)[0]
    if api == "CodeCLIAPI":
        return replace(case, name=f"{case.name} (CodeAPI)", node={**case.node, "selected_api": "CodeAPI",
                                                                   "action": "run_javascript"})
    if api == "WebHookCLIAPI":
        return replace(case, name=f"{case.name} (WebHookAPI)", node={**case.node, "selected_api": "WebHookAPI"})
    return None


BASE: tuple[Case, ...] = (*cases_logic.CASES, *cases_logic.PATHS, *cases_logic.TIMED, *cases_code.CASES,
                          *cases_calls.CASES, *cases_formatter.CASES,
                          *cases_sheets.CASES)
ALL: tuple[Case, ...] = (*BASE, *(c for c in map(_older, BASE) if c is not None))


@pytest.mark.parametrize("case", ALL, ids=[f"{step_type(c)}: {c.name}" for c in ALL])
def test_the_step_does_what_zapier_documents(case: Case) -> None:
    assert case.source.startswith("https://"), "a case cites its public source"
    assert problems(case) == []


def test_the_proved_table_is_what_the_passing_cases_prove() -> None:
    from tests.conformance.zapier.proved import PACKAGE_TABLE, table

    assert PACKAGE_TABLE.is_file(), "run: python -m tests.conformance.zapier.proved --write"
    import json

    assert json.loads(PACKAGE_TABLE.read_text(encoding="utf-8")) == table()

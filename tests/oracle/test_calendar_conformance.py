"""Google Calendar event.create against the real n8n through the app oracle, in a workflow with a timezone."""

from __future__ import annotations

import pytest

from tests.oracle import app_oracle, calendar_cases
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST


@pytest.fixture(scope="module")
def calendar_results() -> dict[str, app_oracle.Result]:
    require_oracle()
    with calendar_cases.with_timezone():
        return {r.case.id: r for r in app_oracle.measure(calendar_cases.CASES)}


@pytest.mark.parametrize("case_id", [c.id for c in calendar_cases.CASES])
def test_a_calendar_case_makes_n8ns_requests_and_items(case_id: str,
                                                       calendar_results: dict[str, app_oracle.Result]) -> None:
    result = calendar_results[case_id]
    assert result.scaffold.translated, f"{case_id}: not translated"
    assert result.n8n.error is None, f"{case_id}: n8n failed: {result.n8n.error}"
    assert result.n8n_requests, f"{case_id}: n8n made no request"
    assert not result.found, "\n".join([case_id, *result.found[:8]])
    assert result.n8n.nodes.get(UNDER_TEST), f"{case_id}: n8n output nothing"

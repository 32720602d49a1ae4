"""Respond to Webhook (v1 … v1.5) and the Webhook's last-node answer against the real n8n (``respond_cases``):
the caller gets the same status, content type, headers and body from the scaffold as from n8n."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle import respond_cases
from tests.oracle.conftest import require_oracle

Results = list[tuple[Any, Any, Any, bool, list[str]]]


@pytest.fixture(scope="module")
def results() -> Results:
    require_oracle()
    return respond_cases.measure(respond_cases.respond_cases())


def test_every_respond_case_is_translated_and_answers_the_caller_as_n8n_does(results: Results) -> None:
    assert len(results) == len(respond_cases.respond_cases())
    untranslated = [case.id for case, _, _, translated, _ in results if not translated]
    assert not untranslated, untranslated
    differing = [f"{case.id}: {found}" for case, _, _, _, found in results if found]
    assert not differing, "\n".join(differing[:6])


def test_n8n_really_answered_each_way_the_cases_ask_for(results: Results) -> None:
    by_id = {case.id: expected for case, expected, _, _, _ in results}
    for version in respond_cases.VERSIONS:
        prefix = f"respondToWebhook v{version:g}"
        assert by_id[f"{prefix} all"].body == respond_cases.ITEMS
        assert by_id[f"{prefix} json headers"].status == 202 and by_id[f"{prefix} json headers"].headers["x-custom"] == "ada"
        assert by_id[f"{prefix} redirect"].headers["location"] == "https://example.com/ada"
        assert by_id[f"{prefix} text"].body == "hello ada" and by_id[f"{prefix} text"].content_type == "text/html"
        assert by_id[f"{prefix} noData code"].status == 204 and by_id[f"{prefix} noData code"].body == ""
    assert by_id["webhook v2 lastNode field"].body == "ada"

"""HTTP Request v3/v4.x against the real n8n: both sides call one loopback server (``http_cases``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import http_cases, http_server, runner
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST

Results = list[tuple[Any, Any, Any, list[str]]]


@pytest.fixture(scope="module")
def results() -> Iterator[Results]:
    require_oracle()
    require_oracle(runner.NEWER)  # v4.4 runs on the second oracle
    with http_server.serving() as base:
        yield http_cases.measure(http_cases.http_cases(base), base)


@pytest.mark.parametrize("version", http_cases.VERSIONS)
def test_every_translated_http_request_case_equals_n8n(version: float, results: Results) -> None:
    mine = [r for r in results if r[0].version == version]
    translated = [r for r in mine if r[2].translated]
    assert len(translated) == len(mine) > 0, [r[0].id for r in mine if not r[2].translated]
    differing = [f"{case.id}: {case.describe()}\n    {found}" for case, _, got, found in translated if found]
    assert not differing, "\n".join(differing[:3])


def test_an_error_output_carries_the_failed_items_in_n8n_and_in_the_scaffold(results: Results) -> None:
    with_errors = [(case, expected, got) for case, expected, got, _ in results
                   if case.settings.get("onError") == "continueErrorOutput"
                   and len(expected.nodes.get(UNDER_TEST, [])) > 1 and expected.nodes[UNDER_TEST][1]]
    assert with_errors, "no drawn case sent an item down the error output"
    for case, expected, got in with_errors:
        assert got.nodes[UNDER_TEST][1] == expected.nodes[UNDER_TEST][1], case.id
        assert all(item["error"]["status"] in (404, 500) for item in got.nodes[UNDER_TEST][1])


def test_a_url_computed_by_an_expression_is_drawn_and_proved(results: Results) -> None:
    computed = [case for case, _, got, found in results if "$json.base" in str(case.parameters["url"])
                and got.translated and not found]
    assert computed


def test_response_format_text_equals_n8n() -> None:
    require_oracle()
    with http_server.serving() as base:
        results = http_cases.measure(http_cases.text_cases(base), base)
    assert all(got.translated for _, _, got, _ in results), [case.id for case, _, got, _ in results if not got.translated]
    differing = [f"{case.id}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    assert any(isinstance((expected.nodes[UNDER_TEST][0][0] or {}).get("page"), str) for _, expected, _, _ in results
               if expected.nodes.get(UNDER_TEST))


def test_file_answers_and_multipart_uploads_equal_n8n_with_their_binary_data() -> None:
    """Response format "file" (and autodetect of a file), multipart bodies with file parts: the items' json,
    their binary entries (every field n8n writes, the base64 bytes among them) and, for an upload, what the
    server read of each part (name, file name, content type, size, sha256) are n8n's."""
    require_oracle()
    with http_server.serving() as base:
        cases = http_cases.binary_cases(base)
        results = http_cases.measure([c for c, _ in cases], base, [props for _, props in cases])
    assert all(got.translated for _, _, got, _ in results), [case.id for case, _, got, _ in results if not got.translated]
    differing = [f"{case.id}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    binary = [(case.id, expected.binary.get(UNDER_TEST), got.binary.get(UNDER_TEST)) for case, expected, got, _ in results]
    assert [b for b in binary if b[1] != b[2]] == []
    files = [entry for _, expected, _ in binary if expected for items in expected for item in items
             for entry in (item or {}).values()]
    assert {e.get("fileName") for e in files} >= {"report one.png", "chart.pdf", "blob", "file"}
    uploads = [expected.nodes[UNDER_TEST][0][0] for case, expected, _, _ in results if "upload" in case.id]
    assert uploads and all(u["files"]["file"]["size"] == len(http_cases.UPLOADED) for u in uploads)


def test_set_and_if_carry_an_items_binary_data_as_n8n_does() -> None:
    """Set keeps or drops the input's binary as n8n's version and options say; IF passes items on whole."""
    require_oracle()
    with http_server.serving() as base:
        cases = http_cases.carry_cases()
        results = http_cases.measure([c for c, _ in cases], base, [props for _, props in cases])
    assert all(got.translated for _, _, got, _ in results), [case.id for case, _, got, _ in results if not got.translated]
    differing = [f"{case.id}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    carried = {case.id: expected.binary.get(UNDER_TEST) is not None for case, expected, _, _ in results}
    assert [case.id for case, expected, got, _ in results if expected.binary.get(UNDER_TEST) != got.binary.get(UNDER_TEST)] == []
    assert set(carried.values()) == {True, False}, carried


def test_merge_combines_items_binary_data_as_n8n_does() -> None:
    """Merge's combining modes merge the inputs' binary data (lodash's merge, by the clash settings) as n8n does."""
    require_oracle()
    with http_server.serving() as base:
        cases = http_cases.merge_carry_cases()
        results = http_cases.measure([c for c, _ in cases], base, [props for _, props in cases])
    assert all(got.translated for _, _, got, _ in results), [case.id for case, _, got, _ in results if not got.translated]
    differing = [f"{case.id}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    unequal = [(case.id, expected.binary.get(UNDER_TEST), got.binary.get(UNDER_TEST)) for case, expected, got, _ in results
               if expected.binary.get(UNDER_TEST) != got.binary.get(UNDER_TEST)]
    assert not unequal, str(unequal)[:2000]
    assert sum(1 for _, expected, _, _ in results if expected.binary.get(UNDER_TEST)) >= 6

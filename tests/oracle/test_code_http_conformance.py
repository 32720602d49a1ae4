"""Code nodes making HTTP calls against the real n8n: both sides call one loopback server (``code_http_cases``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import code_http_cases, http_server
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST

Results = list[tuple[Any, Any, Any, list[str], list[tuple[str, str, str]]]]


@pytest.fixture(scope="module")
def results() -> Iterator[Results]:
    require_oracle()
    with http_server.serving() as base:
        yield code_http_cases.measure(code_http_cases.cases(base), base)


def test_every_code_node_http_case_is_translated_and_equals_n8n(results: Results) -> None:
    assert {case.node_type.rsplit(".", 1)[-1] for case, *_ in results} == {"code", "function", "functionItem"}
    assert [case.id for case, _, got, _, _ in results if not got.translated] == []
    differing = [f"{case.id}: {case.describe()}\n    {found}" for case, _, _, found, _ in results if found]
    assert not differing, "\n".join(differing[:3])


def test_errors_the_code_caught_are_compared_as_values_n8n_gave(results: Results) -> None:
    caught = [expected.nodes[UNDER_TEST][0][0] for case, expected, _, _, _ in results
              if "catch (e)" in case.parameters.get("jsCode", "") and expected.error is None]
    assert {item.get("name") or item.get("n") for item in caught} >= {"AxiosError", "ReferenceError", "NodeApiError"}
    assert {item.get("status") for item in caught} >= {404, 500}


def test_an_error_the_code_lets_through_stops_both_sides_at_the_node(results: Results) -> None:
    stopped = [(case.id, expected.error_node, got.error_node) for case, expected, got, _, _ in results if expected.error]
    assert len(stopped) >= 3
    assert all(theirs == ours == UNDER_TEST for _, theirs, ours in stopped), stopped


def test_every_request_went_through_ctx_call_at_the_node_step(results: Results) -> None:
    """Each request the code made is one ``ctx.call`` to the configured provider, at the node's step."""
    calls = [call for *_, made in results for call in made]
    assert len(calls) > len(results)
    assert {(provider, step) for provider, _, step in calls} == {("oracle", "node-under-test")}
    assert {method for _, method, _ in calls} >= {"GET", "POST", "PUT", "DELETE"}

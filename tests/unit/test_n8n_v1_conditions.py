"""IF / Filter v1 conditions compared as n8n compares them (the differences the real n8n found)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from queue_core.compat import n8n
from queue_core.compat._n8n_filter import _MISSING, _validate
from queue_core.errors import N8nConditionError


def test_boolean_equal_is_strict_as_in_n8n() -> None:
    assert n8n.if_v1("boolean", "equal", False, False)
    assert not n8n.if_v1("boolean", "equal", None, False)  # a missing field is not false
    assert not n8n.if_v1("boolean", "equal", 1, True)
    assert n8n.if_v1("boolean", "notEqual", None, False)


def test_string_equal_is_strict_as_in_n8n() -> None:
    assert not n8n.if_v1("string", "equal", "", None)  # '' === undefined is false
    assert n8n.if_v1("string", "equal", None, None)
    assert not n8n.if_v1("string", "equal", 2, "2")
    assert n8n.if_v1("string", "notEqual", "", None)


@pytest.mark.parametrize("operation", ["startsWith", "notStartsWith", "endsWith", "notEndsWith"])
def test_a_string_method_on_a_missing_value_fails_the_node(operation: str) -> None:
    with pytest.raises(N8nConditionError, match="Cannot read properties of undefined"):
        n8n.if_v1("string", operation, None, "a")
    with pytest.raises(N8nConditionError, match="is not a function"):
        n8n.if_v1("string", operation, 5, "a")


def test_contains_on_a_missing_value_does_not_fail() -> None:
    assert not n8n.if_v1("string", "contains", None, "a")


def test_a_number_is_a_datetime_in_epoch_milliseconds() -> None:
    assert _validate(86_400_000, "dateTime", True) == datetime(1970, 1, 2, tzinfo=UTC)
    assert _validate("2024-01-15", "dateTime", True) == datetime(2024, 1, 15, tzinfo=UTC)
    assert _validate(True, "dateTime", True) is _MISSING  # a boolean is no timestamp


def _filter_workflow(parameters: dict, items: list[dict]) -> dict:
    return {"name": "f", "connections": {"Start": {"main": [[{"node": "Filter", "type": "main", "index": 0}]]}},
            "nodes": [{"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
                      {"name": "Filter", "type": "n8n-nodes-base.filter", "typeVersion": 1, "parameters": parameters}],
            "pinData": {"Start": [{"json": i} for i in items]}}


def test_filter_v1_reads_or_and_the_defaults_the_export_left_out() -> None:
    from harness.platforms.n8n.definition import parse_workflow
    from harness.platforms.n8n.translate.prove import run

    # number conditions with no operation: n8n's default is "smaller"; OR: either condition keeps an item
    parameters = {"conditions": {"number": [{"value1": "={{ $json.a }}", "value2": 5},
                                            {"value1": "={{ $json.b }}", "value2": 1}]},
                  "combineConditions": "OR"}
    items = [{"a": 3, "b": 9}, {"a": 9, "b": 0}, {"a": 9, "b": 9}]
    flow, error, _ = run(parse_workflow(_filter_workflow(parameters, items), "f.json"))
    assert error is None and flow is not None
    assert [i["json"] for i in flow.outputs["Filter"][0]] == [{"a": 3, "b": 9}, {"a": 9, "b": 0}]


def test_ignore_conversion_errors_keeps_the_value_as_n8n_does() -> None:
    from queue_core.errors import NodeFailed

    with pytest.raises(NodeFailed, match="'b' expects a array but we got '4'"):
        n8n.typed("b", 4, "array")
    assert n8n.typed("b", 4, "array", ignore_errors=True) == 4
    assert n8n.typed("n", "12", "number", ignore_errors=True) == 12  # what converts is still converted

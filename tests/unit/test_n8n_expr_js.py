"""n8n expressions kept as JavaScript: evaluated in V8 with n8n's data model and extension methods."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from typing import Any

import pytest

from harness.platforms.n8n.translate import expr
from queue_core.compat import _n8n_expr, n8n
from queue_core.errors import N8nConditionError


class _Ctx:
    def __init__(self, mode: str = "live") -> None:
        self.mode, self.job_id, self.automation = mode, "job-1", "lead-router"

    def now(self) -> datetime:
        return datetime(2024, 3, 10, 14, 30, tzinfo=UTC)


def _flow(mode: str = "live", **outputs: list[dict[str, Any]]) -> n8n.Flow:
    flow = n8n.Flow(_Ctx(mode))
    for name, items in outputs.items():
        flow.emit(name.replace("_", " "), items)
    return flow


def _eval(template: str, item: dict[str, Any], flow: n8n.Flow | None = None, items: list[Any] | None = None) -> Any:
    wrapped = {"json": item}
    return n8n.js_expression(flow or _flow(), template, wrapped, 0, items if items is not None else [wrapped])


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENERIC_TIMEZONE", "UTC")


def test_extension_methods_of_strings_numbers_arrays_objects_and_dates() -> None:
    item = {"note": "mail ana@example.org now", "amount": "$19.955", "tags": ["b", "a", "b"], "o": {"k": [1]},
            "created": "2024-03-10T14:30:00.000Z", "raw": '{"ids":[2,1]}'}
    assert _eval("{{ $json.note.extractEmail() }}", item) == "ana@example.org"
    assert _eval("{{ $json.amount.toNumber().round(2) }}", item) == 19.95
    assert _eval("{{ $json.tags.unique().first() }}", item) == "b"
    assert _eval("{{ $json.o.toJsonString() }}", item) == '{"k":[1]}'
    assert _eval("{{ $json.raw.parseJson().ids.last() }}", item) == 1
    assert _eval("{{ $json.created.toDateTime().minus(1, 'days').toISODate() }}", item) == "2024-03-09"
    assert _eval("{{ $json.created.toDateTime().plus({ hours: 2 }).format('HH:mm') }}", item) == "16:30"
    assert _eval("{{ $json.o.isEmpty() }} {{ ''.isEmpty() }} {{ [].isNotEmpty() }}", item) == "false true false"


def test_javascript_the_python_translation_leaves_runs_as_written() -> None:
    item = {"body": {"box": None}, "id": "ab-cd-ef", "tags": ["x"], "when": "2024-01-01T00:00:00Z"}
    assert _eval("{{ $json.body?.box ?? $json.box ?? 'none' }}", item) == "none"
    assert _eval("{{ $json.id.replace(/-/g, '') }}", item) == "abcdef"
    assert _eval("{{ [...new Set([...$json.tags, 'x', 'y'])] }}", item) == ["x", "y"]
    assert _eval("{{ new Date($json.when).getTime() }}", item) == 1704067200000
    assert _eval("{{ $json.tags?.[5]?.name }}", item) is None  # undefined


def test_a_template_with_text_joins_its_parts_as_n8n_does() -> None:
    item = {"o": {"a": 1}, "l": [1, None, 2], "zero": 0}
    assert _eval("o={{ $json.o }} l={{ $json.l }} z={{ $json.zero }} f={{ false }} n={{ null }}", item) == \
        "o=[object Object] l=1,,2 z=0 f=false n="


def test_now_reads_the_jobs_clock_and_the_data_model_reads_the_run() -> None:
    flow = _flow(Lookup=[{"json": {"v": 1}}, {"json": {"v": 2}}])
    assert _eval("{{ $now.toISO() }}", {}, flow) == "2024-03-10T14:30:00.000Z"
    assert _eval("{{ $today.toISO() }}", {}, flow) == "2024-03-10T00:00:00.000Z"
    assert _eval("{{ new Date().toISOString() }}", {}, flow) == "2024-03-10T14:30:00.000Z"
    assert _eval("{{ $('Lookup').item.json.v }}/{{ $('Lookup').all().length }}/{{ $node['Lookup'].json.v }}", {}, flow) == "1/2/1"
    assert _eval("{{ $execution.id }} {{ $workflow.name }}", {}, flow) == "job-1 lead-router"
    assert _eval("{{ $jmespath($json, 'a[*].b') }}", {"a": [{"b": 1}, {"b": 2}]}, flow) == [1, 2]
    with pytest.raises(N8nConditionError, match="Referenced node"):
        _eval("{{ $('Nowhere').item.json }}", {}, flow)


def test_env_is_read_in_live_and_a_secret_is_redacted_outside_live(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGE_ID", "123")
    monkeypatch.setenv("PAGE_ACCESS_TOKEN", "s3cr3t")
    template = "{{ $env.PAGE_ID + ':' + $env.PAGE_ACCESS_TOKEN + ':' + ($env.UNSET || 'none') }}"
    assert _eval(template, {}, _flow("live")) == "123:s3cr3t:none"
    assert _eval(template, {}, _flow("shadow")) == "123:<$env.PAGE_ACCESS_TOKEN redacted>:none"
    monkeypatch.setenv("N8N_VAR_REGION", "eu")
    assert _eval("{{ $vars.REGION }}", {}, _flow("shadow")) == "eu"
    monkeypatch.setenv("ORDERS_DB_URL", "postgresql://app:hunter2@db.internal/orders")  # a password in a URL
    monkeypatch.setenv("API_BASE", "https://api.example.com/v1")
    template = "{{ $env.ORDERS_DB_URL }} {{ $env.API_BASE }}"
    assert _eval(template, {}, _flow("shadow")) == "<$env.ORDERS_DB_URL redacted> https://api.example.com/v1"
    assert _eval(template, {}, _flow("live")) == "postgresql://app:hunter2@db.internal/orders https://api.example.com/v1"


def test_a_javascript_error_makes_the_part_undefined_and_n8ns_own_errors_fail() -> None:
    # Measured in n8n 1.123 (expr_conformance: "expr set v3.4 #22", "#37", "#39"): a TypeError or
    # an unknown method gives undefined; an extension on undefined or a bad conversion fails.
    assert _eval("{{ $json.a.b }}", {}) is None
    assert _eval("[{{ $json.s.nope() }}]", {"s": "x"}) == "[]"
    with pytest.raises(N8nConditionError, match="first can't be used on undefined value"):
        _eval("{{ $json.missing.first() }}", {})
    with pytest.raises(N8nConditionError, match="cannot convert to number"):
        _eval("{{ $json.s.toNumber() }}", {"s": "abc"})
    with pytest.raises(N8nConditionError, match=r"\.hash\(\) is an n8n extension method cutover does not provide"):
        _eval("{{ $json.s.hash() }}", {"s": "x"})


def test_a_node_evaluates_a_template_for_all_its_items_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = _n8n_expr._eval
    monkeypatch.setattr(_n8n_expr, "_eval", lambda script: calls.append(script) or real(script))
    flow = _flow()
    items = [{"json": {"n": n}} for n in range(5)]
    got = [n8n.js_expression(flow, "{{ $json.n * 2 }}/{{ $itemIndex }}", item, i, items) for i, item in enumerate(items)]
    assert got == ["0/0", "2/1", "4/2", "6/3", "8/4"]
    assert len(calls) == 1
    flow.emit("Later", [])  # a node that ran since: the template is evaluated anew
    assert n8n.js_expression(flow, "{{ $json.n * 2 }}/{{ $itemIndex }}", items[1], 1, items) == "2/1"
    assert len(calls) == 2


def test_the_translation_keeps_what_python_cannot_express_and_counts_it() -> None:
    source = ast.unparse(expr.value("=Hi {{ $json.name?.trim() ?? 'you' }}"))
    assert source == "n8n.js_expression(flow, \"Hi {{ $json.name?.trim() ?? 'you' }}\", item, i, items)"
    assert "js_expression" not in ast.unparse(expr.value("={{ $json.name.trim() }}"))  # Python where it is faithful
    lines = [ast.Expr(expr.value("={{ $json.a ?? 1 }}")), ast.Expr(expr.value("={{ $json.c.toJsonString() }}"))]
    assert expr.kept_count(lines) == 2


def test_edit_fields_json_output_reads_the_resolved_text() -> None:
    assert n8n.json_output(0, ['{"a": ', ', "o": ', ', "s": "', '"}'], [1, {"k": [1]}, "x"]) == \
        [("a", 1), ("o", {"k": [1]}), ("s", "x")]
    assert n8n.json_output(0, ['{"n": ', "}"], [None]) == [("n", None)]
    assert n8n.json_output(0, ['{"bad": ', ", 'q': 'x',}"], ["two words"]) == [("bad", "two words"), ("q", "x")]
    assert n8n.json_output(0, ['{"gone": "', '"}'], [n8n.MISSING]) == [("gone", "undefined")]
    with pytest.raises(N8nConditionError, match="The 'JSON Output' in item 1 contains invalid JSON"):
        n8n.json_output(1, ['{"bad": ', "}"], ["a: b"])
    with pytest.raises(N8nConditionError, match="does not contain a valid JSON object"):
        n8n.json_output(0, ["[1, 2]"])


def test_a_python_part_that_reads_through_a_missing_field_is_none_as_n8n_makes_it_undefined() -> None:
    # Measured in n8n 1.123 (expr_conformance "expr set v3.4 #36", "#39"): the TypeError makes the part undefined.
    scope = {"n8n": n8n, "item": {"json": {"contact": {}, "rows": [{"qty": 1}]}}, "i": 0, "items": [], "flow": None}
    ternary = ast.unparse(expr.value("={{ $json.contact.name.length > 3 ? 'long' : 'short' }}"))
    assert ternary.startswith("n8n.part(lambda: ") and "n8n.read(" in ternary
    assert eval(ternary, scope) is None  # noqa: S307 - generated source under test
    found = ast.unparse(expr.value("=x{{ $json.rows.find(r => r.qty > 5).sku.toLowerCase() }}y"))
    assert eval(found, scope) == "xy"  # noqa: S307
    assert ast.unparse(expr.value("={{ $json.contact.name }}")) == "n8n.get(item['json'], 'contact', 'name')"

"""n8n expressions translated to Python mean what they meant in n8n."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from harness.platforms.n8n.translate.expr import _python_template, value
from queue_core.compat import n8n
from harness.errors import Untranslatable


class _Ctx:
    def now(self) -> Any:
        raise AssertionError("not used")


def _run(param: Any, item: dict[str, Any], refs: dict[str, list[dict[str, Any]]] | None = None) -> Any:
    flow = n8n.Flow(_Ctx())
    for name, items in (refs or {}).items():
        flow.emit(name, items)
    scope = {"n8n": n8n, "item": {"json": item}, "i": 0, "items": [{"json": item}], "flow": flow, "ctx": _Ctx()}
    return eval(ast.unparse(value(param)), scope)  # noqa: S307 - the code under test is generated source


def test_json_paths_templates_and_string_methods() -> None:
    item = {"user": {"name": "Ada LOVELACE"}, "n": 4}
    assert _run("={{ $json.user.name }}", item) == "Ada LOVELACE"
    assert _run("=Hi {{ $json.user.name.toLowerCase() }}!", item) == "Hi ada lovelace!"
    assert _run("={{ $json.missing.deeper }}", item) is None
    assert _run("={{ $json.user?.name }}", item) == "Ada LOVELACE"
    assert _run("={{ $json.n + 1 }}", item) == 5
    assert _run("={{ $json.n + '1' }}", item) == "41"


def test_a_template_renders_its_parts_as_n8n_joins_them() -> None:
    # Measured in n8n 1.123 (Set v3.2, oracle case "set v3.2 #6"): an object inside a larger
    # string is "[object Object]", an array its items joined by "," (null as nothing); a
    # falsy part other than 0 and false (null, NaN, "") renders as nothing.
    item = {"user": {"name": "Ada"}, "tags": ["false", None, 2], "n": 0, "off": False, "none": None}
    assert _run("=obj={{ $json.user }}", item) == "obj=[object Object]"
    assert _run("=tags={{ $json.tags }};", item) == "tags=false,,2;"
    assert _run("=[{{ $json.n }}|{{ $json.off }}|{{ $json.none }}|{{ $json.x / 0 }}]", item) == "[0|false||]"
    assert _run("={{ $json.user }}", item) == {"name": "Ada"}  # a whole expression keeps its type
    assert _run("={{ $json.user + '!' }}", item) == "[object Object]!"
    assert _run("={{ $json.tags.join('-') }}", {"tags": [{"a": 1}, [1, 2]]}) == "[object Object]-1,2"


def test_set_makes_a_whole_expression_object_a_json_string() -> None:
    assert n8n.typed("f", {"k": [1, None]}, "string") == '{"k":[1,null]}'
    assert n8n.typed("f", [1, "a"], "string") == '[1,"a"]'


def test_ternaries_logic_and_comparisons_follow_javascript_truthiness() -> None:
    item = {"tags": [], "total": "120", "note": ""}
    assert _run("={{ $json.tags ? 'some' : 'none' }}", item) == "some"  # [] is truthy in JavaScript
    assert _run("={{ $json.note || 'empty' }}", item) == "empty"
    assert _run("={{ $json.total > 100 }}", item) is True
    assert _run("={{ $json.total === 120 }}", item) is False
    assert _run("={{ $json.total == 120 }}", item) is True
    assert _run("={{ !$json.note }}", item) is True


def test_other_nodes_items_and_globals() -> None:
    refs = {"Lookup": [{"json": {"id": 7, "email": "a@b.test"}}]}
    assert _run("={{ $('Lookup').item.json.email }}", {}, refs) == "a@b.test"
    assert _run("={{ $('Lookup').first().json.id }}", {}, refs) == 7
    assert _run('={{ $node["Lookup"].json.id }}', {}, refs) == 7
    assert _run("={{ Math.max(0, ['a', 'b'].indexOf($json.k)) }}", {"k": "b"}) == 1
    assert _run("={{ parseInt($json.t) + 2 }}", {"t": "40px"}) == 42


def test_array_callbacks_with_one_parameter_become_comprehensions() -> None:
    item = {"labels": [{"name": "Bug"}, {"name": "P1"}], "n": [1, 5, 9]}
    assert _run("={{ $json.labels.map(l => l.name.toLowerCase()) }}", item) == ["bug", "p1"]
    assert _run("={{ $json.n.filter(x => x > 2).length }}", item) == 2
    assert _run("={{ $json.n.some(x => x === 9) }}", item) is True
    assert _run("={{ $json.n.every(x => x > 2) }}", item) is False
    assert _run("={{ $json.labels.find(l => l.name === 'P1').name }}", item) == "P1"
    assert _run("={{ $json.missing.map(x => x) }}", item) is None  # n8n 1.123: undefined ("expr set v3.4 #43")


@pytest.mark.parametrize("param", ["={{ $json.items.reduce((a, x) => a + x, 0) }}", "={{ $workflow.name }}",
                                   "={{ /ab+c/.test($json.s) }}"])
def test_what_python_does_not_translate_is_kept_as_javascript_verbatim(param: str) -> None:
    with pytest.raises(Untranslatable):
        _python_template(param[1:])
    assert ast.unparse(value(param)) == f"n8n.js_expression(flow, {param[1:]!r}, item, i, items)"


@pytest.mark.parametrize("param", ['={{ $node["Loop"].context["noItemsLeft"] }}', "={{ $fromAI('to', '', 'string') }}",
                                   "={{ $execution.resumeUrl }}", "={{ $json.a.( }}"])
def test_what_neither_python_nor_v8_can_evaluate_says_so(param: str) -> None:
    with pytest.raises(Untranslatable):
        value(param)


@pytest.mark.parametrize(("version", "null", "missing"), [(3, "null", "undefined"), (3.2, None, None), (3.4, None, None)])
def test_edit_fields_string_of_null_and_of_a_missing_field_per_version(version: float, null: Any, missing: Any) -> None:
    # Measured in n8n 1.123: oracle cases "set v3 t2" … "set v3.4 t3".
    assert n8n.typed("w", None, "string", version=version) == null
    assert n8n.typed("w", n8n.MISSING, "string", version=version) == missing


def test_edit_fields_v3_1_fails_on_a_null_string_unless_conversion_errors_are_ignored() -> None:
    with pytest.raises(n8n.NodeFailed, match="'w' expects a string but we got null"):
        n8n.typed("w", None, "string", version=3.1)
    assert n8n.typed("w", None, "string", ignore_errors=True, version=3.1) is None


def test_a_whole_expression_field_read_by_edit_fields_tells_missing_from_null() -> None:
    assert n8n.field({"a": None}, "a") is None
    assert n8n.field({}, "a") is n8n.MISSING
    assert n8n.field({"a": [5]}, "a", 0) == 5


def test_edit_fields_collects_repeated_names_first_place_last_value() -> None:  # oracle case "set v3 f1"
    got = n8n.assign({"json": {}}, [("a", True), ("a.z", None), ("a", 0)], keep_only_set=True, by_name=True)
    assert got == {"json": {"a": {"z": None}}}  # "a" is written first (with 0), then "a.z" over it


def test_a_dotted_name_under_an_array_is_lost_as_json_drops_it() -> None:  # oracle case "set v3.1 f2"
    assert n8n.assign({"json": {"a": []}}, [("a.z", {})]) == {"json": {"a": []}}
    assert n8n.assign({"json": {}}, [("x.0", 5)]) == {"json": {"x": [5]}}


def test_switch_expression_mode_fails_on_an_output_it_does_not_have() -> None:  # oracle case "switch v3.3 f4"
    assert n8n.output_index("1", 2) == 1
    with pytest.raises(n8n.NodeFailed, match="between 0 and 0"):
        n8n.output_index(1, 1)

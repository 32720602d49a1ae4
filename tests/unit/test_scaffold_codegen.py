"""The scaffold builds generated code as code: no hand escaping, precedence by construction, no global state.

Names, strings and code holding quotes, backslashes, line breaks, triple quotes, NUL and other
control characters and non-ASCII text are translated into modules that compile and, run on the
workflow's pinned data (``prove``), compute exactly what n8n computed; JavaScript whose operator
precedence matters evaluates as JavaScript does; a comment made from a name is never code; and
translating workflows interleaved on threads gives what translating them one by one gives,
leaving every module-level value of the translators as it was.
"""

from __future__ import annotations

import ast
import copy
import sys
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.make.definition import load_blueprint, read_document
from harness.platforms.make.translate import build as build_make
from harness.platforms.make.translate.iml import expression as iml
from harness.platforms.n8n.definition import load_workflows, parse_workflow
from harness.platforms.n8n.translate.expr import expression
from harness.platforms.n8n.translate.module import build as build_n8n
from harness.platforms.n8n.translate.prove import prove, run
from harness.scaffold._code import comment, expr, lit, name, render, stmts
from harness.scaffold._module import edited
from queue_core.compat import make, n8n

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "workflows"
NASTY = ["it's", 'say "hi"', "back\\slash", "line\nbreak\r\nand\rmore", 'triple """ quotes', "and ''' these",
         "ünïcødé € 😀", "nul \x00 and bell \x07", "line\u2028separator", "ends with a quote\"", "ends with \\",
         "{{ not an expression }}", "# not a comment", "$json"]


def test_literals_of_any_text_round_trip() -> None:
    for text in NASTY:
        source = render(stmts("value = $text", text=text))
        namespace: dict[str, Any] = {}
        exec(compile(source, "<generated>", "exec"), namespace)  # noqa: S102 - code under test
        assert namespace["value"] == text
    nested = {"k'ey": ["a\"b", None, True, 1.5, -3, {"x\\": "y\n"}], "": ("t",)}
    assert eval(ast.unparse(lit(nested))) == nested  # noqa: S307


def test_holes_are_parenthesised_by_precedence() -> None:
    product = expr("$a * $b", a=expr("x + 1"), b=expr("-y"))
    assert eval(ast.unparse(product), {"x": 2, "y": 4}) == -12  # noqa: S307
    negated = expr("not $a", a=expr("x or y"))
    assert eval(ast.unparse(negated), {"x": False, "y": True}) is False  # noqa: S307
    chosen = expr("$a if $t else $b", a=expr("p if q else r"), t=expr("lambda: 0"), b=lit(1))
    assert eval(ast.unparse(chosen), {"p": "p", "q": False, "r": "r"}) == "r"  # noqa: S307


def test_a_comment_is_one_line_and_never_code() -> None:
    source = render([comment("x\nimport os\r\nos.system('boom')\x00 \u2028raise SystemExit"),
                     *stmts("value = 1")])
    tree = ast.parse(source)
    assert [type(s).__name__ for s in tree.body] == ["Assign"]
    assert source.count("\n") == 1 and source.startswith("# x import os")
    with pytest.raises(ValueError):
        name("not an identifier; import os")


def test_a_comment_only_block_still_compiles() -> None:
    source = render(stmts("if x:\n    $body\nelse:\n    $other", x=name("x"), body=[comment("only a comment")],
                          other=[comment("another")]))
    compile(source, "<generated>", "exec")


def _workflow(names: dict[str, str]) -> dict[str, Any]:
    """A workflow whose names, values and code are the nasty strings, with the outputs n8n pinned."""
    fields = [(f"field {i} '\"\\", text) for i, text in enumerate(NASTY)]
    expressions = [
        ("minus", "={{ 10 - (2 - 3) }}", "number", 11),
        ("times", "={{ ($json.a + 2) * 3 }}", "number", 9),
        ("negated", "={{ -($json.a + 2) }}", "number", -3),
        ("not-equal", "={{ !($json.a === 1) }}", "boolean", False),
        ("chosen", "={{ $json.a !== 1 ? 'x' : ($json.a === 1 ? 'y\\'\"' : 'z') }}", "string", "y'\""),
        ("either", "={{ !$json.a || $json.b }}", "string", "b\"\\"),
        ("nested", "={{ $json.xs.map(x => $json.xs.filter(y => y > x).length) }}", "array", [2, 1, 0]),
        ("some", "={{ $json.xs.some(x => x > 2 && x < 4) }}", "boolean", True),
        ("text", '={{ "a\'b\\"c\\\\d" + \'\\n"""\' }}', "string", 'a\'b"c\\d\n"""'),
        ("template", "=pre '{{ $json.b }}' \"\"\" \\ ü", "string", "pre 'b\"\\' \"\"\" \\ ü"),
    ]
    assignments = [{"id": f"f{i}", "name": key, "value": value, "type": "string"} for i, (key, value) in enumerate(fields)]
    assignments += [{"id": f"e{i}", "name": key, "value": source, "type": kind}
                    for i, (key, source, kind, _) in enumerate(expressions)]
    pinned = {key: value for key, value in fields} | {key: value for key, _, _, value in expressions}
    trigger, setter, gate, code = names["trigger"], names["set"], names["if"], names["code"]
    return {
        "name": names["workflow"],
        "nodes": [
            {"name": trigger, "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
            {"name": setter, "type": "n8n-nodes-base.set", "typeVersion": 3.4,
             "parameters": {"assignments": {"assignments": assignments}, "options": {"dotNotation": False}}},
            {"name": gate, "type": "n8n-nodes-base.if", "typeVersion": 2, "parameters": {"conditions": {
                "conditions": [{"leftValue": "={{ $json.minus }}", "rightValue": 11,
                                "operator": {"type": "number", "operation": "equals"}}],
                "combinator": "and", "options": {"typeValidation": "loose"}}}},
            {"name": code, "type": "n8n-nodes-base.code", "typeVersion": 2,
             "parameters": {"jsCode": 'const s = """\'\'\' \\\\ "\\n";\nreturn [{json: {s}}];\n\x00'}},
        ],
        "connections": {trigger: {"main": [[{"node": setter, "type": "main", "index": 0}]]},
                        setter: {"main": [[{"node": gate, "type": "main", "index": 0}]]},
                        gate: {"main": [[], [{"node": code, "type": "main", "index": 0}]]}},
        "pinData": {trigger: [{"json": {"a": 1, "b": 'b"\\', "xs": [1, 2, 3]}}], setter: [{"json": pinned}]},
    }


NAMES = {"workflow": 'Tricky """ \'name\' \\ ü\nsecond line', "trigger": "Start 'here' \"now\"",
         "set": 'Mark """large""" \\ ü\nnext', "if": "If 'a' \\ \x07", "code": 'Code """ \'\'\' \\'}


def test_nasty_names_and_values_compile_and_compute_what_n8n_pinned() -> None:
    workflow = parse_workflow(_workflow(NAMES), "tricky.json")
    source = build_n8n(workflow, "tricky", {}).source
    tree = ast.parse(source)
    assert NAMES["workflow"].split("\n")[0][:10] in (ast.get_docstring(tree) or "")
    assert not edited(source)  # the digest line still tells a generated file
    kept = [n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            and getattr(n.targets[0], "id", "").endswith("_js")]  # the Code node's JavaScript, kept exactly
    assert kept == [_workflow(NAMES)["nodes"][3]["parameters"]["jsCode"]]
    assert {p.node: p.outcome for p in prove(workflow)} == {NAMES["set"]: "proved"}, prove(workflow)
    flow, error, _ = run(workflow)
    assert error is None and flow is not None
    assert [len(out) for out in flow.outputs[NAMES["if"]]] == [1, 0]  # the Code node got no item


def test_js_precedence_and_scopes_evaluate_as_javascript_does() -> None:
    cases = {"1 - (2 - 3)": 2, "(1 + 2) * 3": 9, "1 + 2 * 3": 7, "-(1 + 2)": -3, "!(1 === 2)": True,
             "!1 === false": True, "1 === 1 ? 2 : 3 + 4": 2, "(1 === 1 ? 2 : 3) + 4": 6, "0 || 0 && 1": 0,
             "[1, 2].map(x => [3, 4].map(y => x * y))": [[3, 4], [6, 8]], "(1, 2) !== 2": None}
    for source, wanted in cases.items():
        if wanted is None:  # a sequence expression: not translated into Python, kept as JavaScript
            kept = ast.unparse(expression(source))
            assert kept.startswith("n8n.js_expression(flow, "), kept
            scope = {"n8n": n8n, "flow": None, "item": {"json": {}}, "i": 0, "items": None}
            assert eval(kept, scope) is False  # noqa: S307 - (1, 2) is 2 in JavaScript
            continue
        got = eval(ast.unparse(expression(source)), {"n8n": n8n})  # noqa: S307
        assert got == wanted, source


def test_iml_precedence_and_text_evaluate_as_make_does() -> None:
    cases = {"(1 + 2) * 3": 9, "1 + 2 * 3": 7, "10 - (4 - 1)": 7, "-(2 + 3)": -5, "007 + 1": 8}
    for source, wanted in cases.items():
        assert eval(ast.unparse(iml(source)), {"make": make}) == wanted, source  # noqa: S307
    assert eval(ast.unparse(iml('"a\'b\\\\c"')), {"make": make}) == "a'b\\\\c"  # noqa: S307


def _make_blueprint(tmp_path: Path) -> Path:
    text = '{"name": "Make \\"\\"\\" \' \\\\ ü\\nx", "flow": [{"id": 1, "module": "gateway:CustomWebHook", "version": 1, ' \
           '"metadata": {"designer": {"name": "Hook \\"\\"\\" \'"}}}, {"id": 2, "module": "util:SetVariable2", "version": 1, ' \
           '"mapper": {"name": "v \\"\\"\\" \'\\\\", "value": "{{(1 + 2) * 3}} \\"\\"\\" \\\\ \'"}, ' \
           '"metadata": {"designer": {"name": "Set \\"\\"\\"\\n\'"}}}]}'
    path = tmp_path / "tricky.blueprint.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_make_scenario_with_nasty_names_compiles(tmp_path: Path) -> None:
    path = _make_blueprint(tmp_path)
    scaffold = build_make(load_blueprint(path, read_document(path)), "tricky", {})
    tree = ast.parse(scaffold.source)
    assert "Make" in (ast.get_docstring(tree) or "")
    values = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert 'v """ \'\\' in values  # the variable's name, exactly
    assert not edited(scaffold.source)


def _all_definitions() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for path in sorted((FIXTURES / "n8n").rglob("*.json")):
        found += [("n8n", w) for w in load_workflows(path)]
    for path in sorted((FIXTURES / "make").rglob("*.blueprint.json")):
        found.append(("make", load_blueprint(path, read_document(path))))
    return found


def _translate(kind: str, definition: Any) -> str:
    build = build_n8n if kind == "n8n" else build_make
    return build(definition, "auto", {"api.github.com": "github"}).source


def _module_values() -> dict[str, Any]:
    """Every module-level value of the translator modules that a translation could change."""
    values = {}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith(("harness.platforms.n8n.translate", "harness.platforms.make.translate",
                                   "harness.scaffold")) and isinstance(module, types.ModuleType):
            for key, value in vars(module).items():
                if isinstance(value, list | dict | set) and not key.startswith("__"):
                    values[f"{module_name}.{key}"] = copy.deepcopy(value)
    return values


def test_no_module_global_state_interleaved_translations_equal_sequential_ones() -> None:
    definitions = _all_definitions() + [("n8n", parse_workflow(_workflow(NAMES), "tricky.json"))]
    assert len(definitions) >= 10
    before = _module_values()
    sequential = [_translate(kind, d) for kind, d in definitions]
    results: dict[tuple[int, int], str] = {}
    errors: list[BaseException] = []
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        def worker(t: int) -> None:  # each thread starts at another definition
            shift = t % len(definitions)
            try:
                for index, (kind, definition) in enumerate(definitions[shift:] + definitions[:shift]):
                    results[(t, (index + shift) % len(definitions))] = _translate(kind, definition)
            except BaseException as exc:  # noqa: BLE001 - reported below, with the thread's result missing
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert not errors, errors
    for (t, index), source in results.items():
        assert source == sequential[index], (t, index)
    assert len(results) == 6 * len(definitions)
    assert _module_values() == before


def test_a_translation_run_inside_another_changes_neither(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic interleaving: while the outer translation is inside an arrow function's scope,
    every definition is translated anew; a scope kept in a module global would shift their names."""
    from harness.platforms.n8n.translate import expr as expr_module

    definitions = _all_definitions()
    tricky = parse_workflow(_workflow(NAMES), "tricky.json")
    sequential, tricky_alone = [_translate(kind, d) for kind, d in definitions], _translate("n8n", tricky)
    original, nested = expr_module._node, {}

    def interleaving(node: Any, scope: Any) -> Any:
        if scope.frames and "sources" not in nested:
            nested["sources"] = []
            nested["sources"] = [_translate(kind, d) for kind, d in definitions + [("n8n", tricky)]]
        return original(node, scope)

    monkeypatch.setattr(expr_module, "_node", interleaving)
    assert _translate("n8n", tricky) == tricky_alone
    assert nested["sources"] == [*sequential, tricky_alone]

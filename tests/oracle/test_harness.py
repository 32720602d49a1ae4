"""The oracle's own parts that need no n8n: case generation, workflows, normalisation, the scaffold side."""

from __future__ import annotations

from pathlib import Path

from tests.oracle import cases, loops
from tests.oracle.outcome import Outcome, differences, js_value
from tests.oracle.scaffolded import run_one
from tests.oracle.workflow import START, UNDER_TEST, Case, input_name, workflow


def test_generation_is_deterministic_and_covers_every_node_version() -> None:
    first, second = cases.generate(3), cases.generate(3)
    assert [c.describe() for c in first] == [c.describe() for c in second]
    expected = {f"{t.rsplit('.', 1)[-1]} v{v:g}" for t, versions, _, _ in cases.NODES for v in versions}
    expected |= {f"splitInBatches v{v}" for v in loops.VERSIONS}  # the loop cases (tests.oracle.loops)
    assert {c.key for c in first} == expected
    assert len({c.id for c in first}) == len(first)


def test_a_merge_case_with_three_inputs_wires_each_to_its_own_input_index() -> None:
    case = Case("merge v3 #x", "n8n-nodes-base.merge", 3.0, {"numberInputs": 3}, [[{"a": 1}], [], [{"a": 3}]])
    document = workflow(case, "w1")
    wired = {name: conn["main"][0][0]["index"] for name, conn in document["connections"].items() if name != START}
    assert wired == {input_name(0): 0, input_name(1): 1, input_name(2): 2}
    node = next(n for n in document["nodes"] if n["name"] == UNDER_TEST)
    assert node["typeVersion"] == 3 and isinstance(node["typeVersion"], int)


def test_numbers_compare_as_javascript_has_them() -> None:
    assert js_value({"a": 2.0, "b": float("nan"), "c": [float("inf"), -0.0, 1.5]}) == {"a": 2, "b": None,
                                                                                        "c": [None, 0, 1.5]}


def test_a_node_that_output_nothing_equals_a_node_that_did_not_run() -> None:
    ran_empty = Outcome(nodes={UNDER_TEST: [[], []]})
    assert differences(Outcome(), ran_empty, [UNDER_TEST]) == []
    assert differences(Outcome(nodes={UNDER_TEST: [[{"a": 1}], []]}), ran_empty, [UNDER_TEST]) != []


def test_errors_compare_by_the_node_they_stopped_at() -> None:
    n8n = Outcome(error_node=UNDER_TEST, error="Cannot read properties of undefined on node Node under test")
    assert differences(n8n, Outcome(error_node=UNDER_TEST, error="NodeFailed: boom"), [UNDER_TEST]) == []
    (line,) = differences(n8n, Outcome(nodes={UNDER_TEST: [[{"a": 1}]]}), [UNDER_TEST])
    assert "the scaffold finished" in line


def test_the_scaffold_side_runs_the_generated_module_on_the_case_items(tmp_path: Path) -> None:
    items = [{"a": 1, "b": None}, {"c": [1, "x"]}]
    case = Case("noOp v1 #x", "n8n-nodes-base.noOp", 1.0, {}, [items])
    got = run_one(workflow(case, "w1"), tmp_path)
    assert got.translated and got.error is None
    assert got.nodes[input_name(0)] == [items]
    assert got.nodes[UNDER_TEST] == [items]


def test_the_scaffold_side_reports_the_node_a_run_stopped_at(tmp_path: Path) -> None:
    # Edit Fields v3.3 converting "abc" to a number fails that node (n8n: "… Ignore Type Conversion Errors").
    params = {"assignments": {"assignments": [{"id": "s", "name": "n", "value": "abc", "type": "number"}]}}
    got = run_one(workflow(Case("set v3.3 #x", "n8n-nodes-base.set", 3.3, params, [[{}]]), "w1"), tmp_path)
    assert got.error is not None and got.error_node == UNDER_TEST

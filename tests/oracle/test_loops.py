"""The loop cases' own parts that need no n8n: their workflow's wiring, and the scaffold side's run of one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.loops import AFTER, FILTER, MARK, loop_workflow, split_in_batches_cases
from tests.oracle.scaffolded import run_one
from tests.oracle.workflow import UNDER_TEST, workflow


@pytest.mark.parametrize(("version", "loop_output", "done_output"), [(1, 0, None), (2, 0, 1), (3, 1, 0)])
def test_the_loop_workflow_wires_each_versions_loop_and_done_outputs(version: int, loop_output: int,
                                                                     done_output: int | None) -> None:
    case = next(c for c in split_in_batches_cases() if c.version == version)
    document = workflow(case, "w1")
    assert document == loop_workflow(case, "w1")
    outputs = document["connections"][UNDER_TEST]["main"]
    assert outputs[loop_output] == [{"node": FILTER, "type": "main", "index": 0}]
    assert document["connections"][MARK]["main"] == [[{"node": UNDER_TEST, "type": "main", "index": 0}]]
    if done_output is None:
        assert len(outputs) == 1 and AFTER not in {n["name"] for n in document["nodes"]}
    else:
        assert outputs[done_output] == [{"node": AFTER, "type": "main", "index": 0}]


def test_the_cases_cover_every_batch_size_empty_input_and_reset_for_each_version() -> None:
    drawn = split_in_batches_cases()
    assert len({c.id for c in drawn}) == len(drawn)
    for version in (1.0, 2.0, 3.0):
        mine = [c for c in drawn if c.version == version]
        assert {c.parameters.get("batchSize") for c in mine} == {1, 2, 10, None}
        assert any(not c.inputs[0] for c in mine) and any(c.parameters["options"].get("reset") for c in mine)


def test_the_scaffold_side_runs_a_loop_case_to_its_done_output(tmp_path: Path) -> None:
    case = next(c for c in split_in_batches_cases()
                if c.version == 3 and c.parameters.get("batchSize") == 2 and len(c.inputs[0]) == 3
                and not c.parameters["options"])
    outcome = run_one(loop_workflow(case, "w1"), tmp_path)
    assert outcome.translated and outcome.error is None
    marked = [{**item, "visited": True} for item in case.inputs[0]]
    assert outcome.nodes[AFTER] == [marked] and outcome.nodes[UNDER_TEST] == [marked, []]

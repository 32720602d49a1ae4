"""The scaffold's translations against the real n8n, case by case, node version by node version.

The committed table (``conformance.json``, written by ``python -m tests.oracle.conformance
--write``) is data: per node type × typeVersion, how many generated cases ran, how many the
scaffold translated, how many gave every node's output equal to n8n's, and the first case that
differed. These tests hold the table to what is measured now: a version the table marks
*proved* must still prove (a regression fails, naming the cases), every generated version must
be in the table, and the README shows the table as committed. A version with differences is
listed as *not proved*, with its first difference; it fails nothing until it proves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.oracle import conformance, targeted
from tests.oracle.conftest import committed_table
from tests.oracle.workflow import START, input_name

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = committed_table()
PROVED = sorted(key for key, row in COMMITTED["nodes"].items() if row["status"] == "proved")


def test_n8n_ran_every_case_on_the_items_it_was_given(measured: tuple[list[conformance.Result], dict[str, Any]]) -> None:
    results, _ = measured
    assert results, "no case was generated"
    broken = [r.case.id for r in results if r.oracle.error == "n8n did not run this workflow"]
    assert not broken, f"n8n left cases unrun: {broken[:10]}"
    finished = [r for r in results if r.oracle.error is None]
    assert finished, "n8n finished no case at all"
    for result in finished:
        # The oracle's own plumbing: the trigger's one empty item, and each Code node's literal items.
        assert result.oracle.nodes[START] == [[{}]], result.case.id
        if targeted.writes_into_inputs(result.case):
            continue
        for index, items in enumerate(result.case.inputs):
            produced = result.oracle.nodes.get(input_name(index), [[]])
            assert produced == [items] or (not items and produced in ([[]], [])), (result.case.id, index)


def test_every_generated_node_version_is_in_the_committed_table(
        measured: tuple[list[conformance.Result], dict[str, Any]]) -> None:
    results, _ = measured
    measured_keys = list(conformance.table(results))
    assert measured_keys == list(COMMITTED["nodes"]), (
        f"the committed table lists {list(COMMITTED['nodes'])}, the suite generated {measured_keys}: "
        f"run {conformance.COMMAND}")


@pytest.mark.parametrize("key", PROVED)
def test_node_version_marked_proved_still_proves(key: str,
                                                 measured: tuple[list[conformance.Result], dict[str, Any]]) -> None:
    results, _ = measured
    row = conformance.table(results).get(key)
    assert row is not None, f"{key} is marked proved but no case of it was generated"
    assert row["translated"] > 0, f"{key} is marked proved but the scaffold translated none of its {row['cases']} cases"
    differing = [r for r in results if r.case.key == key and r.scaffold.translated and not r.refused and not r.equal]
    detail = "\n".join(f"{r.case.id}: {r.case.describe()}\n    " + "\n    ".join(r.differences)
                       for r in differing[:3])
    assert not differing, f"{key} no longer proves: {len(differing)} of {row['translated']} cases differ\n{detail}"


def test_readme_shows_the_committed_conformance_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert conformance.markdown(COMMITTED["nodes"]) in readme, (
        f"the README's conformance table is not the committed one: paste the table "
        f"{conformance.COMMAND} prints")
